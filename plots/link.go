package plots

import (
	"errors"
	"fmt"

	"headlab/numerics/experiment"
	"headlab/numerics/recovery"
	"headlab/numerics/replay"
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
//     against d (QueriesVsWidth);
//   - transformer: the scene's view at its step (TransformerFigure).
//
// The state must be valid (link.Parse only returns valid states); the
// options choose the style (size preset, typeface and font size) and are
// checked. The typeface is the link's font key unless the options name one,
// which then goes into the figure's link.
func ForLink(s link.State, o Options) (Figure, error) {
	if o.Font == "" {
		o.Font = Typeface(s.Font)
	} else {
		s.Font = string(o.Font)
	}
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
	case "transformer":
		var tr *replay.Transformer
		if tr, s, err = TransformerReplay(s); err == nil {
			f, err = TransformerFigure(tr, s.View, st)
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
	return Grid("atoms", fmt.Sprintf("Atom explosion and the mass of the fused *W*_{%d} head by |*S*|", s.D), cols, a, b)
}

// learn runs recovery on a state's true layer as the page does
// (experiment.Learn). A run that cannot be resolved still returns its trace
// (see recovery.Learn) together with the error.
func learn(s link.State) (recovery.Result, error) {
	run, err := experiment.Learn(experiment.Context{}, s.Recovery())
	if err != nil {
		return recovery.Result{}, err
	}
	return run.Result, run.Err
}

func rfFigure(s link.State, st Style) (Figure, error) {
	r, err := learn(s)
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
	in, err := stepRF(&r.Trace, step)
	if err != nil {
		return Figure{}, err
	}
	f, ferr := RationalFit(in, st)
	if ferr != nil {
		return Figure{}, ferr
	}
	f.Title = fmt.Sprintf("Recovery step %d of %d: rational function %s", step, len(r.Trace.Queries), labelName(in.Name))
	return f, nil
}

// RunSweep runs the noise sweep the state sets up, the one the page's
// canvas shows (experiment.Sweep: its ε range, seeds, mode and scan over
// H are defined there); a sweep the page refuses is an error here too.
func RunSweep(s link.State) (experiment.SweepState, error) {
	st, err := experiment.Sweep(experiment.Context{}, s.Recovery())
	if err != nil {
		return experiment.SweepState{}, fmt.Errorf("plots: %w", err)
	}
	if st.Refused != "" {
		return experiment.SweepState{}, fmt.Errorf("plots: %s", st.Refused)
	}
	return st, nil
}

// NoiseSweep is the ε part of a noise sweep as a figure's input: the
// median over the resolved seeds, every seed's run, and the unresolved
// runs at each ε.
func NoiseSweep(st experiment.SweepState, s link.State) Sweep {
	return sweepOf(st.Points, s.Mode, Sweep{H: max(s.H, s.H0), D: s.D})
}

// HeadsSweep is the scan over H of a noise sweep as a figure's input.
func HeadsSweep(st experiment.SweepState, s link.State) Sweep {
	return sweepOf(st.Heads, s.Mode, Sweep{D: s.D, Noise: experiment.SweepHeadNoise})
}

func sweepOf(ps []experiment.SweepPoint, mode string, sw Sweep) Sweep {
	se := Series{Name: mode}
	for _, p := range ps {
		sw.X = append(sw.X, p.X)
		se.Y = append(se.Y, p.Median)
		se.Runs = append(se.Runs, p.Errors)
		se.Unresolved = append(se.Unresolved, p.Unresolved)
	}
	sw.Series = []Series{se}
	return sw
}

func sweepFigure(s link.State, st Style) (Figure, error) {
	sw, err := RunSweep(s)
	if err != nil {
		return Figure{}, err
	}
	fa, err := ErrorVsNoise(NoiseSweep(sw, s), st)
	if err != nil {
		return Figure{}, err
	}
	if len(sw.Heads) == 0 {
		return fa, nil
	}
	fb, err := ErrorVsHeads(HeadsSweep(sw, s), st)
	if err != nil {
		return Figure{}, err
	}
	cols := 1
	if st.Columns == 2 {
		cols = 2
	}
	return Grid("recovery-sweep", fmt.Sprintf("Recovery error against ε (H = %d, d = %d, %s mode, %d seeds) and against H (ε = %g)",
		max(s.H, s.H0), s.D, s.Mode, experiment.SweepSeeds, experiment.SweepHeadNoise), cols, fa, fb)
}

func queriesFigure(s link.State, st Style) (Figure, error) {
	return QueriesVsWidth(Queries{H: max(s.H, s.H0), MaxD: max(16, s.D), Current: s.D}, st)
}

// stepRF returns the input of RationalFit at a step of a recovery trace
// (0…its queries): the rational function of the step's query with the
// samples made by the step (replay.At); at step 0 the first query's, none
// made.
func stepRF(tr *recovery.Trace, step int) (RF, error) {
	v, ok := replay.At(tr, max(step, 1))
	if !ok {
		return RF{}, fmt.Errorf("plots: recovery step %d has no rational function", step)
	}
	fn := v.RF
	in := RF{Name: fn.Name(), N: fn.N, F: fn.F, Taken: v.Taken, Fit: fn.Fit, Heads: fn.Heads, Fitted: v.Fitted}
	if step == 0 {
		in.Taken, in.Fitted = 0, false
	}
	return in, nil
}
