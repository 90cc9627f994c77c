package link

import "headlab/numerics/experiment"

// Recovery returns the recovery run the state sets up: the recovery
// scene's keys, copied into package experiment's set-up, which owns
// everything made from them (its TrueLayer, the learner's Options, the
// noise sweep around it). The link knows its keys only.
func (s State) Recovery() experiment.Recovery {
	r := experiment.Recovery{H: s.H, D: s.D, Seed: s.Seed, Src: s.Src, Dup: s.Dup, Cancel: s.Cancel,
		H0: s.H0, Mode: s.Mode, Noise: s.Noise, Prec: s.Prec, Log: s.Run}
	if s.Bias {
		r.Biases, r.QueryBias, r.Const = true, append([]float64(nil), s.QBias...), s.Const[0]
	}
	if s.Src == experiment.GivenLayer {
		r.W, r.Val = append([]float64(nil), s.W...), append([]float64(nil), s.Val...)
	}
	return r
}

// RunLog is a recorded run's log opened for replay (State.Run).
type RunLog = experiment.RunLog
