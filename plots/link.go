package plots

import (
	"errors"
	"fmt"
	"math"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
	"headlab/web/link"
)

// ForLink builds the figure of the scene a share link shows, so that the
// page and the figures command make the same figure from the same link:
//
//   - attention: the attention weights per head (Weights);
//   - atoms: the explosion curve and the mass by |S| side by side in two
//     columns, stacked in one (ExplosionCurve, MassBySize);
//   - recovery, by view: steps and result, the rational function of the
//     current step with its fit and poles (RationalFit); sweep, error
//     against ε and against H (ErrorVsNoise, ErrorVsHeads); modes, queries
//     against d (QueriesVsWidth).
//
// The state must be valid (link.Parse only returns valid states); the
// options choose the style (size preset and font size) and are checked.
func ForLink(s link.State, o Options) (Figure, error) {
	if err := o.Validate(); err != nil {
		return Figure{}, err
	}
	st := o.style()
	var f Figure
	var err error
	switch s.Scene {
	case "attention":
		f, err = attentionFigure(s, st)
	case "atoms":
		f, err = atomsFigure(s, st)
	case "recovery":
		switch s.View {
		case "sweep":
			f, err = sweepFigure(s, st)
		case "modes":
			f, err = queriesFigure(s, st)
		default:
			f, err = rfFigure(s, st)
		}
	default:
		return Figure{}, fmt.Errorf("plots: no figure for scene %q", s.Scene)
	}
	if err != nil {
		return Figure{}, err
	}
	f.Link = s.Link()
	return f, nil
}

func attentionFigure(s link.State, st Style) (Figure, error) {
	if err := s.Validate(); err != nil {
		return Figure{}, fmt.Errorf("plots: %w", err)
	}
	return Weights(s.Layer().Details(s.Sequence()), st)
}

// ExplosionFor returns the explosion curve's input for a state: up to
// H = 24 heads (further when d is larger), m atoms per head, the merged
// counts measured with the state's seed.
func ExplosionFor(s link.State) (Explosion, error) {
	maxH := min(max(24, s.D+4), MaxExplosionHeads)
	shared, random, err := MeasureMerged(s.M, min(maxH, 12), s.Seed)
	if err != nil {
		return Explosion{}, err
	}
	return Explosion{MaxH: maxH, Current: s.D, M: s.M, MergedShared: shared, MergedRandom: random}, nil
}

func atomsFigure(s link.State, st Style) (Figure, error) {
	in, err := ExplosionFor(s)
	if err != nil {
		return Figure{}, err
	}
	a, err := ExplosionCurve(in, st)
	if err != nil {
		return Figure{}, err
	}
	b, err := MassBySize(Mass{Q: s.Q}, st)
	if err != nil {
		return Figure{}, err
	}
	cols := 1
	if st.Columns == 2 {
		cols = 2
	}
	return Grid("atoms", fmt.Sprintf("Atom explosion and the mass of the fused W_%d head by |S|", s.D), cols, a, b)
}

// Limit on the recovery runs a figure makes: the sweep runs about 20.
const maxSweepQueries = 800

// learn runs recovery on a state's true layer with the oracle's noise
// drawn from the seed. A run that cannot be resolved still returns its
// trace (see recovery.Learn) together with the error.
func learn(s link.State) (recovery.Result, attention.Layer, error) {
	l := s.TrueLayer()
	opt := s.LearnOptions(l)
	r, err := recovery.Learn(recovery.LayerOracle(l, s.Noise, s.Seed), opt)
	return r, l, err
}

func rfFigure(s link.State, st Style) (Figure, error) {
	r, _, err := learn(s)
	var rerr *recovery.Error
	if err != nil && !errors.As(err, &rerr) {
		return Figure{}, fmt.Errorf("plots: recovery: %w", err)
	}
	if len(r.Trace.Queries) == 0 || len(r.Trace.RFs) == 0 {
		return Figure{}, fmt.Errorf("plots: recovery made no queries: %v", err)
	}
	step := s.Step
	if s.View == "result" || step > len(r.Trace.Queries) {
		step = len(r.Trace.Queries)
	}
	k := max(step, 1) - 1
	rf, _, ok := r.Trace.Step(k)
	if !ok || rf < 0 || rf >= len(r.Trace.RFs) {
		return Figure{}, fmt.Errorf("plots: recovery step %d has no rational function", step)
	}
	fn := r.Trace.RFs[rf]
	taken := 0
	for i, q := range fn.Query {
		if q < step {
			taken = i + 1
		}
	}
	in := RF{Name: fn.Name(), N: fn.N, F: fn.F, Taken: taken, Fit: fn.Fit, Heads: fn.Heads,
		Fitted: len(fn.Fit.Poles) > 0 && len(fn.Fit.Residues) == len(fn.Fit.Poles)}
	f, ferr := RationalFit(in, st)
	if ferr != nil {
		return Figure{}, ferr
	}
	f.Title = fmt.Sprintf("Recovery step %d of %d: rational function %s", step, len(r.Trace.Queries), fn.Name())
	return f, nil
}

// NoiseLevels are the ε of the noise sweep.
var noiseLevels = []float64{1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6}

// SweepNoise runs recovery of the state's true layer at every ε of the
// sweep in both schedules; a run that fails gives NaN.
func SweepNoise(s link.State) (Sweep, error) {
	if q := recovery.PaperQueries(max(s.H, s.H0), s.D); q > maxSweepQueries {
		return Sweep{}, fmt.Errorf("plots: the noise sweep runs %d recoveries of %d queries each; it is limited to %d queries per run (4Hd² − 2H + 1): lower H or d", 2*len(noiseLevels), q, maxSweepQueries)
	}
	sw := Sweep{X: noiseLevels, H: s.H, D: s.D}
	for _, mode := range []string{"paper", "economy"} {
		t := s
		t.Mode = mode
		ys := make([]float64, len(noiseLevels))
		for i, eps := range noiseLevels {
			t.Noise = eps
			ys[i] = runError(t)
		}
		sw.Series = append(sw.Series, Series{Name: mode, Y: ys})
	}
	return sw, nil
}

// SweepHeads runs recovery for H = 1…6 random heads of the state's width
// at its ε, in both schedules.
func SweepHeads(s link.State) (Sweep, error) {
	const maxH = 6
	if q := recovery.PaperQueries(maxH, s.D); q > 2*maxSweepQueries {
		return Sweep{}, fmt.Errorf("plots: the heads sweep needs %d queries at H = %d, d = %d; it is limited to %d: lower d", q, maxH, s.D, 2*maxSweepQueries)
	}
	sw := Sweep{H: s.H, D: s.D, Noise: s.Noise}
	for H := 1; H <= maxH; H++ {
		sw.X = append(sw.X, float64(H))
	}
	for _, mode := range []string{"paper", "economy"} {
		ys := make([]float64, maxH)
		for H := 1; H <= maxH; H++ {
			t := s
			t.Mode, t.H, t.H0, t.Src, t.Dup, t.Cancel = mode, H, 0, "random", 0, false
			ys[H-1] = runError(t)
		}
		sw.Series = append(sw.Series, Series{Name: mode, Y: ys})
	}
	return sw, nil
}

// runError is the largest relative error of a recovery run against the
// canonical true layer; NaN when the run fails.
func runError(s link.State) float64 {
	r, l, err := learn(s)
	if err != nil {
		return math.NaN()
	}
	e, err := attention.RelativeError(r.Layer, attention.Canonical(l, 1e-9))
	if err != nil {
		return math.NaN()
	}
	return e
}

func sweepFigure(s link.State, st Style) (Figure, error) {
	a, err := SweepNoise(s)
	if err != nil {
		return Figure{}, err
	}
	b, err := SweepHeads(s)
	if err != nil {
		return Figure{}, err
	}
	fa, err := ErrorVsNoise(a, st)
	if err != nil {
		return Figure{}, err
	}
	fb, err := ErrorVsHeads(b, st)
	if err != nil {
		return Figure{}, err
	}
	cols := 1
	if st.Columns == 2 {
		cols = 2
	}
	return Grid("recovery-sweep", fmt.Sprintf("Recovery error against ε (H = %d, d = %d) and against H (ε = %g)", s.H, s.D, s.Noise), cols, fa, fb)
}

func queriesFigure(s link.State, st Style) (Figure, error) {
	return QueriesVsWidth(Queries{H: max(s.H, s.H0), MaxD: max(16, s.D), Current: s.D}, st)
}
