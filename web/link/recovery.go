package link

import (
	"headlab/numerics/attention"
	"headlab/numerics/experiment"
	"headlab/numerics/recovery"
)

// Recovery returns the recovery run the state sets up (the recovery scene's
// keys), for package experiment, which owns the run: its true layer, the
// learner's options, the noise sweep around it.
func (s State) Recovery() experiment.Recovery {
	r := experiment.Recovery{H: s.H, D: s.D, Seed: s.Seed, Src: s.Src, Dup: s.Dup, Cancel: s.Cancel,
		H0: s.H0, Mode: s.Mode, Noise: s.Noise, Prec: s.Prec}
	if s.Src == "attention" {
		r.W, r.Val = append([]float64(nil), s.W...), append([]float64(nil), s.Val...)
	}
	return r
}

// TrueLayer returns the recovery scene's true layer (experiment.Recovery's
// TrueLayer of the state's set-up). The page and the figures both call it,
// so the canvas and a figure show the same layer.
func (s State) TrueLayer() attention.Layer { return s.Recovery().TrueLayer() }

// LearnOptions returns the recovery options the state asks for, for the
// layer l (usually TrueLayer); see experiment.Recovery's Options.
func (s State) LearnOptions(l attention.Layer) recovery.Options { return s.Recovery().Options(l) }
