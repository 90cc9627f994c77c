package attention

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/internal/xmath"
)

// Head is one attention head: W is the d×d merged query-key matrix and V the
// merged value-output vector of length d.
type Head struct {
	W *mat.Dense
	V *mat.VecDense
}

// Layer is a multi-head attention layer: the sum of its heads' outputs.
type Layer []Head

// Width returns the token width d of the layer, or 0 for an empty layer.
func (l Layer) Width() int {
	if len(l) == 0 || l[0].V == nil {
		return 0
	}
	return l[0].V.Len()
}

// Scaled returns l with every W_h multiplied by f (its scores by f, as a
// softmax temperature of 1/f); the values are shared with l.
func (l Layer) Scaled(f float64) Layer {
	out := make(Layer, len(l))
	for h, hd := range l {
		var w mat.Dense
		w.Scale(f, hd.W)
		out[h] = Head{W: &w, V: hd.V}
	}
	return out
}

// Validate reports whether every head is square, of one width, and finite.
func (l Layer) Validate() error {
	if len(l) == 0 {
		return errors.New("attention: layer has no heads")
	}
	d := l.Width()
	for h, hd := range l {
		if hd.W == nil || hd.V == nil {
			return fmt.Errorf("attention: head %d has a nil W or v", h)
		}
		r, c := hd.W.Dims()
		if r != d || c != d || hd.V.Len() != d {
			return fmt.Errorf("attention: head %d has W %d×%d and v of length %d, want %d×%d and %d", h, r, c, hd.V.Len(), d, d, d)
		}
		for i := 0; i < d; i++ {
			if !finite(hd.V.AtVec(i)) {
				return fmt.Errorf("attention: head %d has a non-finite v", h)
			}
			for j := 0; j < d; j++ {
				if !finite(hd.W.At(i, j)) {
					return fmt.Errorf("attention: head %d has a non-finite W", h)
				}
			}
		}
	}
	return nil
}

// Softmax writes the stable softmax of s into dst (allocating when dst is nil
// or of the wrong length) and returns it. The largest score is subtracted
// before exponentiating, so scores of ±1e4 give finite weights. A NaN score
// makes every weight NaN; callers that accept user input validate first.
func Softmax(dst, s []float64) []float64 {
	if len(dst) != len(s) {
		dst = make([]float64, len(s))
	}
	if len(s) == 0 {
		return dst
	}
	m := math.Inf(-1)
	for _, v := range s {
		if v > m {
			m = v
		}
	}
	if math.IsInf(m, 1) {
		// Tokens with +Inf scores share the mass equally.
		k := 0
		for _, v := range s {
			if math.IsInf(v, 1) {
				k++
			}
		}
		for i, v := range s {
			if math.IsInf(v, 1) {
				dst[i] = 1 / float64(k)
			} else {
				dst[i] = 0
			}
		}
		return dst
	}
	var z float64
	for i, v := range s {
		e := xmath.Exp(v - m)
		dst[i] = e
		z += e
	}
	for i := range dst {
		dst[i] /= z
	}
	return dst
}

// Scores returns the head's scores x_iᵀ W x_N of every row of X, the last row
// being the query.
func (h Head) Scores(X mat.Matrix) []float64 { return h.scores(X, nil) }

// scores returns x_iᵀ(W x_N + c) for every row of X; c nil is 0.
func (h Head) scores(X mat.Matrix, bias []float64) []float64 {
	n, d := X.Dims()
	if n == 0 {
		return nil
	}
	// w = W x_N + c, then s_i = x_i · w.
	w := make([]float64, d)
	for r := 0; r < d; r++ {
		var acc float64
		if bias != nil {
			acc = bias[r]
		}
		for c := 0; c < d; c++ {
			acc += float64(h.W.At(r, c) * X.At(n-1, c))
		}
		w[r] = acc
	}
	s := make([]float64, n)
	for i := 0; i < n; i++ {
		var acc float64
		for c := 0; c < d; c++ {
			acc += float64(X.At(i, c) * w[c])
		}
		s[i] = acc
	}
	return s
}

// Weights returns the head's attention weights over the rows of X.
func (h Head) Weights(X mat.Matrix) []float64 {
	return Softmax(nil, h.Scores(X))
}

// Output returns the head's output Σ_i α_i (v·x_i) on the sequence X.
func (h Head) Output(X mat.Matrix) float64 { return h.output(X, nil) }

// output is Output with the scores x_iᵀ(W x_N + c); c nil is 0.
func (h Head) output(X mat.Matrix, bias []float64) float64 {
	n, d := X.Dims()
	a := Softmax(nil, h.scores(X, bias))
	var y float64
	for i := 0; i < n; i++ {
		var val float64
		for c := 0; c < d; c++ {
			val += float64(h.V.AtVec(c) * X.At(i, c))
		}
		y += float64(a[i] * val)
	}
	return y
}

// Output returns the layer's output Σ_h f_{W_h,v_h}(X) on the sequence X
// (rows are tokens, the last row is the query). An empty sequence gives 0.
func (l Layer) Output(X mat.Matrix) float64 {
	var y float64
	for _, h := range l {
		y += h.Output(X)
	}
	return y
}

// Biased is a layer with a query bias c_h per head and a constant C, beyond
// the papers' model: F(X) = C + Σ_h Σ_i softmax_i(x_iᵀ(W_h x_N + c_h))
// (v_h·x_i), what PyTorch's nn.MultiheadAttention with bias=True computes
// through a scalar readout (numerics/layerfile derives c_h and C from its
// weights). The biases of b_k cancel in the softmax and are not in it.
// With QueryBias nil and Const 0 it is Layer, bit for bit.
type Biased struct {
	Layer Layer
	// QueryBias holds c_h per head of Layer (d numbers each), or is nil
	// for none.
	QueryBias [][]float64
	Const     float64
}

// Bias returns head h's query bias c_h, nil for none.
func (b Biased) Bias(h int) []float64 {
	if h < len(b.QueryBias) {
		return b.QueryBias[h]
	}
	return nil
}

// HasBias reports whether some c_h or C is nonzero.
func (b Biased) HasBias() bool {
	if b.Const != 0 {
		return true
	}
	for _, c := range b.QueryBias {
		for _, x := range c {
			if x != 0 {
				return true
			}
		}
	}
	return false
}

// Output returns C + Σ_h Σ_i softmax_i(x_iᵀ(W_h x_N + c_h)) (v_h·x_i) on the
// sequence X (rows are tokens, the last row the query).
func (b Biased) Output(X mat.Matrix) float64 {
	y := b.Const
	for h, hd := range b.Layer {
		y += hd.output(X, b.Bias(h))
	}
	return y
}

// Validate reports whether the layer is valid (Layer.Validate) and every
// c_h has the layer's width and C and the c_h are finite.
func (b Biased) Validate() error {
	if err := b.Layer.Validate(); err != nil {
		return err
	}
	if b.QueryBias != nil && len(b.QueryBias) != len(b.Layer) {
		return fmt.Errorf("attention: %d query biases for %d heads", len(b.QueryBias), len(b.Layer))
	}
	d := b.Layer.Width()
	for h, c := range b.QueryBias {
		if len(c) != d {
			return fmt.Errorf("attention: head %d has a query bias of length %d, want %d", h, len(c), d)
		}
		for _, x := range c {
			if !finite(x) {
				return fmt.Errorf("attention: head %d has a non-finite query bias", h)
			}
		}
	}
	if !finite(b.Const) {
		return errors.New("attention: the constant C is not finite")
	}
	return nil
}

// Detail is what one head does on one sequence, for the scenes to draw.
type Detail struct {
	Scores  []float64 // x_iᵀ W x_N per token
	Weights []float64 // softmax of Scores
	Values  []float64 // v·x_i per token
	Output  float64   // Σ_i Weights_i Values_i
}

// Details returns every head's scores, weights, values and output on X.
func (l Layer) Details(X mat.Matrix) []Detail { return Biased{Layer: l}.Details(X) }

// Details returns every head's scores x_iᵀ(W_h x_N + c_h), weights, values
// and output on X (Const is in none of them).
func (b Biased) Details(X mat.Matrix) []Detail {
	n, d := X.Dims()
	out := make([]Detail, len(b.Layer))
	for k, h := range b.Layer {
		s := h.scores(X, b.Bias(k))
		a := Softmax(nil, s)
		vals := make([]float64, n)
		var y float64
		for i := 0; i < n; i++ {
			var val float64
			for c := 0; c < d; c++ {
				val += float64(h.V.AtVec(c) * X.At(i, c))
			}
			vals[i] = val
			y += float64(a[i] * val)
		}
		out[k] = Detail{Scores: s, Weights: a, Values: vals, Output: y}
	}
	return out
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
