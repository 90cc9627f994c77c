package plots

import (
	"errors"

	"headlab/numerics/experiment"
	"headlab/web/link"
)

// Standard is one figure of the project's standard set, the figures the
// README shows: a name, the state it is made from and how.
type Standard struct {
	// Name is the file stem.
	Name string
	// State is the link state the figure is made from.
	State link.State
	// Build makes the figure from the experiments Needs(State) names, as
	// experiment.RunFigure made them; its Link is State's link.
	Build func(s link.State, runs experiment.FigureRuns, o Options) (Figure, error)
}

// StandardSet returns the standard figures: attention weights, the atom
// explosion curve, the mass by |S|, a fitted rational function with its
// poles, recovery error against ε and against H, queries against d, and
// the Transformer's units along the line and its recovered parameters.
func StandardSet() []Standard {
	att := link.Default()
	atoms := link.Default()
	atoms.Scene, atoms.D = "atoms", 10
	atoms.Q = link.DefaultQuery(atoms)
	rec := link.Default()
	rec.Scene, rec.H, rec.D = "recovery", 3, 2
	rec.Tok, rec.W, rec.Val = link.Defaults(rec)
	rec.Q = link.DefaultQuery(rec)
	rfs := rec
	rfs.View, rfs.Step, rfs.Seed = "steps", 7, 8 // seed 8: three well-separated poles
	rfs.Tok, rfs.W, rfs.Val = link.Defaults(rfs)
	rfs.Q = link.DefaultQuery(rfs)
	sweep := rec
	sweep.View, sweep.H = "sweep", 2
	sweep.Tok, sweep.W, sweep.Val = link.Defaults(sweep)
	modes := rec
	modes.View, modes.D = "modes", 4
	modes.Tok, modes.W, modes.Val = link.Defaults(modes)
	modes.Q = link.DefaultQuery(modes)

	tf := link.Default()
	tf.Scene, tf.H, tf.D, tf.M, tf.Units, tf.Seed = "transformer", 2, 3, 3, 5, 1 // the tour's run
	tf.Tok, tf.W, tf.Val = link.Defaults(tf)
	tf.Q = link.DefaultQuery(tf)
	tfUnits := tf
	tfUnits.Step = 116 // every unit identified, before the self-checks
	tfResult := tf
	tfResult.View = "result"

	withLink := func(b func(link.State, experiment.FigureRuns, Style) (Figure, error)) func(link.State, experiment.FigureRuns, Options) (Figure, error) {
		return func(s link.State, runs experiment.FigureRuns, o Options) (Figure, error) {
			if o.Font == "" {
				o.Font = s.Font
			} else {
				s.Font = o.Font
			}
			if err := o.Validate(); err != nil {
				return Figure{}, err
			}
			f, err := b(s, runs, o.style())
			f.Link = s.Link()
			return f, err
		}
	}
	return []Standard{
		{Name: "attention-weights", State: att, Build: ForLink},
		{Name: "atom-explosion", State: atoms, Build: withLink(func(s link.State, runs experiment.FigureRuns, st Style) (Figure, error) {
			return ExplosionCurve(ExplosionFor(s, runs), st)
		})},
		{Name: "atom-mass", State: atoms, Build: withLink(func(s link.State, _ experiment.FigureRuns, st Style) (Figure, error) {
			return MassBySize(Mass{Q: s.Q}, st)
		})},
		{Name: "rational-fit", State: rfs, Build: ForLink},
		{Name: "recovery-noise", State: sweep, Build: withLink(func(s link.State, runs experiment.FigureRuns, st Style) (Figure, error) {
			if runs.Sweep == nil {
				return Figure{}, errors.New("plots: the sweep figure needs the noise sweep (Needs)")
			}
			return ErrorVsNoise(NoiseSweep(*runs.Sweep, s), st)
		})},
		{Name: "recovery-heads", State: sweep, Build: withLink(func(s link.State, runs experiment.FigureRuns, st Style) (Figure, error) {
			if runs.Sweep == nil {
				return Figure{}, errors.New("plots: the sweep figure needs the noise sweep (Needs)")
			}
			return ErrorVsHeads(HeadsSweep(*runs.Sweep, s), st)
		})},
		{Name: "recovery-queries", State: modes, Build: ForLink},
		{Name: "transformer-units", State: tfUnits, Build: ForLink},
		{Name: "transformer-result", State: tfResult, Build: ForLink},
		{Name: "recovery-digits", State: rec, Build: withLink(func(_ link.State, _ experiment.FigureRuns, st Style) (Figure, error) { return DigitsNeeded(st) })},
	}
}
