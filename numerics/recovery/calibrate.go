package recovery

import (
	"context"
	"fmt"
	"math"

	"headlab/numerics/rational"
)

// Calibration's constants. The log-poles p_h of a measurement have RMS
// about κ for reference weights; a run resolves most often near the
// default κ (MATH.md §4), so Calibrate scales the tokens until the RMS
// of the probed log-poles is about the default's, by a power of 2, so that
// a layer 4^k times the reference's gets exactly the reference's rational
// functions.
const (
	calibrationProbes = 4    // RFs of column one fitted (at most d)
	calibrationBand   = 1.25 // within this factor of a power of 4, the scale is its root
	calibrationStep   = 2    // factor between the token scales tried when a probe fails
	calibrationTries  = 11   // token scales tried: 1, 1/2, 2, 1/4, 4, …
)

// Calibrate reads the scale of the layer behind b from the first RFs of
// its schedule (the measurements on z₁ and u₁…u₄) and returns the token
// scale at which their log-poles have about the RMS that reference layers
// have (the spread κ): a power of 2 where that is within a factor 1.25
// (tokenScaleFor). A layer at the reference scale
// keeps 1 (and then a caching oracle answers the run's first queries from
// the probes); one 16 times smaller gets 4, and then the run is the
// reference layer's. A probe whose rational functions cannot be fitted
// (poles crowded together, or so far apart that the answers overflow) is
// retried at a token scale 2 times smaller, then larger, and so on. opt.TokenScale, if set, is where the search
// starts.
func Calibrate(ctx context.Context, b BlackBox, opt Options) (Calibration, error) {
	if b == nil {
		return Calibration{}, fmt.Errorf("recovery: nil black box")
	}
	if err := opt.validate(); err != nil {
		return Calibration{}, err
	}
	opt.Precision = 0 // the probes are fitted in float64
	t0 := opt.tokenScale()
	cal := Calibration{Target: opt.spread()}
	var lastErr error
	for try := 0; try < calibrationTries; try++ {
		// t0, t0/2, t0·2, t0/4, t0·4, …
		ts := t0 / math.Pow(calibrationStep, float64((try+1)/2))
		if try%2 == 0 {
			ts = t0 * math.Pow(calibrationStep, float64(try/2))
		}
		opt.TokenScale = ts
		rms, n, err := probeRMS(ctx, b, opt)
		cal.Queries += n
		if ctx.Err() != nil {
			return cal, ctx.Err()
		}
		if err != nil {
			lastErr = err
			continue
		}
		cal.RMS, cal.Probed = rms, ts
		cal.TokenScale = tokenScaleFor(ts * ts * cal.Target / rms)
		return cal, nil
	}
	return cal, fmt.Errorf("recovery: calibration found no token scale in 2^±%d at which the first RFs can be fitted: %w",
		(calibrationTries-1)/2, lastErr)
}

// tokenScaleFor returns the token scale s that multiplies the log-poles
// of scale 1 by about r (s² = r): a power of 2 where r is within
// calibrationBand of a power of 4, so that a layer 4^k times the
// reference's, or the reference itself, runs exactly as the reference
// does; elsewhere √r, as near the target as the probes can tell.
func tokenScaleFor(r float64) float64 {
	k := math.Round(math.Log2(r) / 2)
	k = max(-40, min(40, k))
	if q := r / math.Ldexp(1, 2*int(k)); q >= 1/calibrationBand && q <= calibrationBand {
		return math.Ldexp(1, int(k))
	}
	return math.Sqrt(r)
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
