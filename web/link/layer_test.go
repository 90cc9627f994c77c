package link

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
)

// TestFromLayer: a layer goes into the link exactly (W, val, c, C,
// src=attention), and one a link cannot carry is refused with base kept.
func TestFromLayer(t *testing.T) {
	layer := func(H, d int, x float64) attention.Biased {
		b := attention.Biased{Const: 0.1 * x}
		for h := 0; h < H; h++ {
			w := mat.NewDense(d, d, nil)
			for i := 0; i < d; i++ {
				w.Set(i, (i+h)%d, x/3)
			}
			v := make([]float64, d)
			c := make([]float64, d)
			for i := range v {
				v[i], c[i] = x/7+float64(i), -x/11
			}
			b.Layer = append(b.Layer, attention.Head{W: w, V: mat.NewVecDense(d, v)})
			b.QueryBias = append(b.QueryBias, c)
		}
		return b
	}
	base, _ := Parse("#v=1&scene=recovery&H=3&d=2&seed=8&dup=2&step=40&prec=128")
	m := layer(2, 5, 1)
	s, err := FromLayer(base, m)
	if err != nil {
		t.Fatal(err)
	}
	got, notes := Parse(s.Link())
	if len(notes) > 0 || !got.Equal(s) {
		t.Fatalf("link %s: notices %v", s.Link(), notes)
	}
	if s.Scene != Recovery || s.H != 2 || s.D != 5 || s.Src != "attention" || s.Dup != 0 || s.Step != 0 || s.Prec != 0 || s.Seed != 8 || !s.Bias {
		t.Errorf("state %+v", s)
	}
	model := got.Model()
	X := got.Sequence()
	if a, b := model.Output(X), m.Output(X); a != b {
		t.Errorf("the link's layer answers %v, the layer %v", a, b)
	}
	for _, c := range []struct {
		m    attention.Biased
		want string
	}{
		{layer(9, 2, 1), "heads"},
		{layer(2, 17, 1), "d = 17"},
		{layer(2, 3, 1000), "beyond"},
	} {
		s, err := FromLayer(base, c.m)
		if err == nil || !strings.Contains(err.Error(), c.want) || !s.Equal(base) {
			t.Errorf("%s: %v, state kept %v", c.want, err, s.Equal(base))
		}
	}
	plain := layer(1, 2, 1)
	plain.QueryBias, plain.Const = nil, 0
	if s, err := FromLayer(Default(), plain); err != nil || s.Bias || s.Scene != Attention {
		t.Errorf("a layer without biases: %v bias=%v", err, s.Bias)
	}
}
