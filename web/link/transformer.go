package link

import "headlab/numerics/experiment"

// Transformer returns the transformer run the state sets up (the
// transformer scene's keys), for package experiment, which owns the run.
// The state's prec 0 is the scene's working precision
// (transformer.DefaultPrecision), not float64: the unit phase needs about
// 40 significant digits (numerics/MATH.md §3.7, C4).
func (s State) Transformer() experiment.Transformer {
	return experiment.Transformer{H: s.H, D: s.D, M: s.M, K: s.Units, Seed: s.Seed,
		Residual: s.Resid, Readout: s.Readout, Mode: s.Mode, Prec: s.Prec}
}

// TransformerView returns the view the transformer scene shows for s: its
// views are steps and result, and any other view shows as steps.
func (s State) TransformerView() View {
	if s.View == Result {
		return Result
	}
	return Steps
}
