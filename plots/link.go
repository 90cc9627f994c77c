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
// The figure draws runs, the experiments Needs(s) names as
// experiment.RunFigure made them (the canvas's compute worker runs the
// same), and computes none of its own. The state must be valid (link.Parse
// only returns valid states); the options choose the style (size preset,
// typeface and font size) and are checked. The typeface is the link's font
// key unless the options name one, which then goes into the figure's link.
func ForLink(s link.State, runs experiment.FigureRuns, o Options) (Figure, error) {
	if o.Font == "" {
		o.Font = s.Font
	} else {
		s.Font = o.Font
	}
	if err := o.Validate(); err != nil {
		return Figure{}, err
	}
	st := o.style()
	var f Figure
	var err error
	switch s.Scene {
	case link.Attention:
		f, err = attentionFigure(s, st)
	case link.Atoms:
		f, err = atomsFigure(s, runs, st)
	case link.Recovery:
		switch s.View {
		case link.Sweep:
			f, err = sweepFigure(s, runs, st)
		case link.Modes:
			f, err = queriesFigure(s, st)
		default:
			f, err = rfFigure(s, runs, st)
		}
	case "transformer":
		var tr *replay.Transformer
		if tr, s, err = TransformerReplay(s, runs); err == nil {
			f, err = TransformerFigure(tr, s.View, st)
		}
	default:
		return Figure{}, fmt.Errorf("plots: no figure for scene %q", s.Scene)
	}
	if err != nil {
		return Figure{}, err
	}
	f.Link = s.Link()
	if s.Run != nil {
		f.Replay = s.Run.Name + " (SHA-256 " + s.Run.Hash + ")"
	}
	return f, nil
}

// Needs returns the experiments the figure of a state draws, for
// experiment.RunFigure: a recovery run (the recovery scene's steps and
// result views), the noise sweep (its sweep view), a transformer run, or
// general fusion's merged counts (the atoms scene).
func Needs(s link.State) experiment.Figure {
	switch s.Scene {
	case link.Atoms:
		return experiment.Figure{Merged: &experiment.Merged{M: s.M, MaxH: min(explosionHeads(s), 12), Seed: s.Seed}}
	case link.Recovery:
		r := s.Recovery()
		switch s.View {
		case link.Sweep:
			return experiment.Figure{Sweep: &r}
		case link.Modes:
			return experiment.Figure{}
		}
		return experiment.Figure{Recovery: &r}
	case "transformer":
		t := s.Transformer()
		return experiment.Figure{Transformer: &t}
	}
	return experiment.Figure{}
}

func attentionFigure(s link.State, st Style) (Figure, error) {
	if err := s.Validate(); err != nil {
		return Figure{}, fmt.Errorf("plots: %w", err)
	}
	return Weights(s.Model().Details(s.Sequence()), st)
}

// explosionHeads is the last H of a state's explosion curve: 24, further
// when d is larger.
func explosionHeads(s link.State) int { return min(max(24, s.D+4), MaxExplosionHeads) }

// ExplosionFor returns the explosion curve's input for a state: up to
// explosionHeads heads, m atoms per head, and the merged counts of runs
// (experiment.MergedCounts with the state's seed, as Needs asks).
func ExplosionFor(s link.State, runs experiment.FigureRuns) Explosion {
	return Explosion{MaxH: explosionHeads(s), Current: s.D, M: s.M, MergedShared: runs.Shared, MergedRandom: runs.Random}
}

func atomsFigure(s link.State, runs experiment.FigureRuns, st Style) (Figure, error) {
	a, err := ExplosionCurve(ExplosionFor(s, runs), st)
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

func rfFigure(s link.State, runs experiment.FigureRuns, st Style) (Figure, error) {
	if runs.Recovery == nil {
		return Figure{}, errors.New("plots: the recovery figure needs the recovery run (Needs)")
	}
	r, err := runs.Recovery.Result, runs.Recovery.Err
	var rerr *recovery.Error
	if err != nil && !errors.As(err, &rerr) {
		return Figure{}, fmt.Errorf("plots: recovery: %w", err)
	}
	if len(r.Trace.Queries) == 0 || len(r.Trace.RFs) == 0 {
		return Figure{}, fmt.Errorf("plots: recovery made no queries: %v", err)
	}
	step := s.Step
	if s.View == link.Result || step > len(r.Trace.Queries) {
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

func sweepOf(ps []experiment.SweepPoint, mode recovery.Mode, sw Sweep) Sweep {
	se := Series{Name: mode.String()}
	for _, p := range ps {
		sw.X = append(sw.X, p.X)
		se.Y = append(se.Y, p.Median)
		se.Runs = append(se.Runs, p.Errors)
		se.Unresolved = append(se.Unresolved, p.Unresolved)
	}
	sw.Series = []Series{se}
	return sw
}

func sweepFigure(s link.State, runs experiment.FigureRuns, st Style) (Figure, error) {
	if runs.Sweep == nil {
		return Figure{}, errors.New("plots: the sweep figure needs the noise sweep (Needs)")
	}
	sw := *runs.Sweep
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
