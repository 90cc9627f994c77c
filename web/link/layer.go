package link

import (
	"errors"
	"fmt"
	"math"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
)

// FromLayer returns base with its layer replaced by m (an imported layer,
// heads in the file's order): the Attention scene (or base's Recovery
// scene, which recovers it, src=attention) with H and d of m, its W, v and,
// where m has any, its biases c and C, the tokens drawn anew from the seed
// for the new width; what else the state says (seed, N, theme, mode …) is
// kept, and the run's own additions to the true layer (dup, cancel, H0)
// and its step are reset. It fails, changing nothing, when the link
// cannot carry m exactly: more heads or a wider d than the scenes take, or
// a number beyond ±MaxParam, which a link would clamp.
func FromLayer(base State, m attention.Biased) (State, error) {
	if err := m.Validate(); err != nil {
		return base, err
	}
	H, d := len(m.Layer), m.Layer.Width()
	s := base
	if s.Scene != Recovery {
		s.Scene = Attention
	}
	s.Prec = 0 // a layer with biases is learnt in float64; H ≤ MaxHeads either way
	if lim := HeadLimit(s); H > lim {
		return base, fmt.Errorf("the layer has %d heads; a link carries at most %d", H, lim)
	}
	if lim := WidthLimit(s.Scene); d > lim {
		return base, fmt.Errorf("the layer's width is d = %d; the %s scene takes d up to %d", d, s.Scene, lim)
	}
	s.H, s.D = H, d
	s.W, s.Val = make([]float64, 0, H*d*d), make([]float64, 0, H*d)
	for _, hd := range m.Layer {
		for i := 0; i < d; i++ {
			s.W = append(s.W, hd.W.RawRowView(i)...)
		}
		s.Val = append(s.Val, hd.V.RawVector().Data[:d]...)
	}
	s.Bias = m.HasBias()
	s.QBias, s.Const = make([]float64, H*d), []float64{0}
	if s.Bias {
		s.Const[0] = m.Const
		for h := range m.Layer {
			copy(s.QBias[h*d:], m.Bias(h))
		}
	}
	for _, l := range [][]float64{s.W, s.Val, s.QBias, s.Const} {
		for _, x := range l {
			if math.Abs(x) > MaxParam {
				return base, fmt.Errorf("the layer has a number %.4g beyond ±%d, which a link cannot carry", x, MaxParam)
			}
		}
	}
	s.Tok, _, _ = Defaults(s)
	s.Q = DefaultQuery(s)
	s.Src, s.Dup, s.Cancel, s.H0, s.Step = experiment.GivenLayer, 0, false, 0, 0
	s.Heat = min(max(s.Heat, 1), H)
	normalize(&s)
	if err := s.Validate(); err != nil {
		return base, errors.Join(errors.New("the layer does not fit the link"), err)
	}
	return s, nil
}
