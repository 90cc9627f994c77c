package recovery

import (
	"context"
	"fmt"
	"math"

	"headlab/numerics/rational"
)

// MaxSpread is the largest Spread κ a run accepts: the scale of a layer
// about 1/500 of the reference weights of size 1/√d.
const MaxSpread = 1024

// Calibration's constants. The log-poles p_h of a measurement have RMS
// about κ for reference weights; a run resolves most often near the
// default κ (MATH.md §4), so Calibrate rescales κ until the RMS of the
// probed log-poles is the default's, and leaves it alone within
// calibrationBand of it.
const (
	calibrationProbes = 4    // RFs of column one fitted (at most d)
	calibrationBand   = 1.25 // RMS within this factor of the target: keep κ
	calibrationStep   = 4    // factor between the spreads tried when a probe fails
	calibrationTries  = 9    // spreads tried: κ, κ·4, κ/4, κ·16, …
)

// A Calibration is what Calibrate measured of a layer's scale.
type Calibration struct {
	// Spread is the κ to run with (Options.Spread).
	Spread float64
	// RMS is the RMS of the probed log-poles at the spread Probed, Target
	// the RMS at which a run resolves most often (the default κ).
	RMS, Target float64
	// Probed is the spread of the probes that measured RMS.
	Probed float64
	// Queries counts the black-box queries made. Those at the default
	// spread are the first queries of the run's own schedule in float64
	// (the same tokens bit for bit): a caching oracle answers them again
	// for free.
	Queries int
}

// Calibrate reads the scale of the layer behind b from the first RFs of
// its schedule (the measurements on z₁ and u₁…u₄) and returns the spread κ
// at which their log-poles have the RMS that reference layers have at the
// default κ. A layer at the reference scale keeps the default (and then a
// caching oracle answers the run's first queries from the probes); one
// 16 times smaller gets a κ about 16 times larger. A probe whose
// rational functions cannot be fitted (poles crowded together, or so far
// apart that the answers overflow) is retried at a spread 4 times larger,
// then smaller, and so on. opt.Spread, if set, is where the search starts.
func Calibrate(ctx context.Context, b BlackBox, opt Options) (Calibration, error) {
	if b == nil {
		return Calibration{}, fmt.Errorf("recovery: nil black box")
	}
	if err := opt.validate(); err != nil {
		return Calibration{}, err
	}
	opt.Precision = 0 // the probes are fitted in float64
	k0 := opt.spread()
	cal := Calibration{Target: k0}
	var lastErr error
	for try := 0; try < calibrationTries; try++ {
		// κ, κ·4, κ/4, κ·16, κ/16, …
		k := k0 * math.Pow(calibrationStep, float64((try+1)/2))
		if try%2 == 0 {
			k = k0 / math.Pow(calibrationStep, float64(try/2))
		}
		if k > MaxSpread {
			continue
		}
		opt.Spread = k
		rms, n, err := probeRMS(ctx, b, opt)
		cal.Queries += n
		if ctx.Err() != nil {
			return cal, ctx.Err()
		}
		if err != nil {
			lastErr = err
			continue
		}
		cal.RMS, cal.Probed = rms, k
		cal.Spread = k
		if rms < cal.Target/calibrationBand || rms > cal.Target*calibrationBand || k != k0 {
			cal.Spread = min(k*cal.Target/rms, MaxSpread)
		}
		return cal, nil
	}
	return cal, fmt.Errorf("recovery: calibration found no spread in %g…%g at which the first RFs can be fitted: %w",
		k0/math.Pow(calibrationStep, (calibrationTries-1)/2), k0*math.Pow(calibrationStep, (calibrationTries-1)/2), lastErr)
}

// probeRMS asks the first min(d, calibrationProbes) measurements on z₁ at
// opt's spread as one batch, the same queries as the schedule's, fits
// them, and returns the RMS of their log-poles and the queries made.
func probeRMS(ctx context.Context, b BlackBox, opt Options) (float64, int, error) {
	rec := &boxSource{ctx: ctx, record: true}
	l := newLearner(source{box: rec}, opt)
	m := min(l.d, calibrationProbes)
	h := l.h0
	var ks []int
	for i := 0; i < m; i++ {
		k := l.addRF(Measurement, i, 0, []int{i}, []int{0})
		ks = append(ks, k)
		from := 1
		if i == 0 {
			from = 0 // z₁ alone, shared by every measurement on z₁
		}
		for n := from; n <= 2*h; n++ {
			if _, err := l.askBox(k, n); err != nil {
				return 0, 0, err
			}
		}
	}
	ans, err := b.Answer(ctx, rec.asked)
	if err != nil {
		return 0, len(rec.asked), err
	}
	if len(ans) != len(rec.asked) {
		return 0, len(rec.asked), fmt.Errorf("the black box answered %d of a batch of %d queries", len(ans), len(rec.asked))
	}
	var ss float64
	var cnt int
	q := 1
	for i := range ks {
		ns := []float64{0}
		fs := []float64{ans[0].Y}
		for n := 1; n <= 2*h; n++ {
			ns, fs = append(ns, float64(n)), append(fs, ans[q].Y)
			if ans[q].Err != nil {
				return 0, len(ans), ans[q].Err
			}
			q++
		}
		fit, err := rational.Fit(ns, fs, rational.Options{Poles: h, UpperBound: true, Tolerance: max(opt.epsilon(), 1e-13)})
		if err != nil {
			return 0, len(ans), fmt.Errorf("probe %d: %w", i+1, err)
		}
		for _, p := range fit.LogPoles() {
			ss += float64(p * p)
			cnt++
		}
	}
	if cnt == 0 || ss == 0 {
		return 0, len(ans), fmt.Errorf("the probes show no head")
	}
	return math.Sqrt(ss / float64(cnt)), len(ans), nil
}
