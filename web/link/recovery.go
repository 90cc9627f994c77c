package link

import (
	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
)

// TrueLayer returns the recovery scene's true layer: the attention scene's
// layer (src=attention) or a random one from the seed; then the first Dup
// heads each split into two heads with the same W and half the v; and with
// Cancel a pair of heads with one W and opposite v. Its canonical form is
// what recovery should find. The page and the figures both call this, so
// the canvas and a figure show the same layer.
func (s State) TrueLayer() attention.Layer {
	var l attention.Layer
	if s.Src == "attention" && len(s.W) == s.H*s.D*s.D && len(s.Val) == s.H*s.D {
		l = s.Layer()
	} else {
		l = attention.Random(s.H, s.D, s.Seed)
	}
	for h := 0; h < s.Dup && h < len(l); h++ {
		half := mat.NewVecDense(s.D, nil)
		half.ScaleVec(0.5, l[h].V)
		l[h].V = half
		l = append(l, attention.Head{W: l[h].W, V: mat.VecDenseCopyOf(half)})
	}
	if s.Cancel {
		extra := attention.Random(1, s.D, s.Seed^0x63616e63656c) // "cancel"
		neg := mat.NewVecDense(s.D, nil)
		neg.ScaleVec(-1, extra[0].V)
		l = append(l, extra[0], attention.Head{W: extra[0].W, V: neg})
	}
	return l
}

// canonicalTol is the tolerance within which the true layer's heads count
// as sharing W when the learner is told how many heads to expect.
const canonicalTol = 1e-9

// LearnOptions returns the recovery options the state asks for, for the
// layer l (usually TrueLayer): H is the number of canonical heads of l, or
// the upper bound H0 when the link gives one.
func (s State) LearnOptions(l attention.Layer) recovery.Options {
	heads := len(attention.Canonical(l, canonicalTol))
	opt := recovery.DefaultOptions(max(heads, 1), s.D)
	if s.H0 > 0 {
		opt.Heads, opt.UpperBound = max(s.H0, heads), true
	}
	if s.Mode == "economy" {
		opt.Mode = recovery.Economy
	}
	opt.Seed = s.Seed
	opt.Tolerance = s.Noise
	return opt
}
