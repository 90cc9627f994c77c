package scene

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
	"headlab/web/link"
)

// CanonicalTol is the tolerance within which two heads' W count as equal
// when the scene shows the canonical form.
const CanonicalTol = experiment.CanonicalTol

// Attention is the Attention scene computed from a state: the layer, the
// tokens, what every head does on them, and the canonical form.
type Attention struct {
	State link.State
	// Model is the layer with its biases (c_h and C, zero without
	// bias=1); Layer is its heads.
	Model     attention.Biased
	Layer     attention.Layer
	X         *mat.Dense
	Details   []attention.Detail
	Output    float64 // C + Σ of the heads' outputs
	Canonical attention.Layer
}

// NewAttention computes the scene for s. It fails only on a state outside
// the schema, which link.Parse never returns.
func NewAttention(s link.State) (*Attention, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	a := &Attention{State: s, Model: s.Model(), X: s.Sequence()}
	a.Layer = a.Model.Layer
	a.Details = a.Model.Details(a.X)
	a.Output = a.Model.Const
	for _, d := range a.Details {
		a.Output += d.Output
	}
	if math.IsNaN(a.Output) || math.IsInf(a.Output, 0) {
		return nil, fmt.Errorf("scene: the layer's output is %v on these tokens", a.Output)
	}
	a.Canonical = a.Model.Canonical(CanonicalTol).Layer
	return a, nil
}

// Point returns token i projected on the canvas plane: its first two
// coordinates (the second is 0 when d = 1).
func (a *Attention) Point(i int) (x, y float64) {
	d := a.State.D
	x = a.State.Tok[i*d]
	if d > 1 {
		y = a.State.Tok[i*d+1]
	}
	return x, y
}

// Query is the index of the query token, the last one.
func (a *Attention) Query() int { return a.State.N - 1 }

// HitToken returns the token under the canvas point (px, py), within radius
// pixels, or -1. Where tokens overlap the query wins, then the one drawn last.
func (a *Attention) HitToken(v View, px, py, radius float64) int {
	best, bestDist := -1, radius*radius
	for i := a.State.N - 1; i >= 0; i-- {
		sx, sy := v.ToScreen(a.Point(i))
		d2 := (sx-px)*(sx-px) + (sy-py)*(sy-py)
		if d2 <= bestDist && (best == -1 || d2 < bestDist) {
			best, bestDist = i, d2
		}
	}
	return best
}

// Moved returns the state with token i's first two coordinates at the world
// point (x, y), rounded to 1/100 so that links stay short.
func (a *Attention) Moved(i int, x, y float64) link.State {
	s := a.State
	s.Tok = append([]float64(nil), s.Tok...)
	d := s.D
	s.Tok[i*d] = math.Round(x*100) / 100
	if d > 1 {
		s.Tok[i*d+1] = math.Round(y*100) / 100
	}
	return s
}

// Field returns head h's score x ↦ xᵀ(W_h z + c_h) (z the query) on a cols×rows
// grid of cell centres covering the canvas, row by row from the top, with
// x's coordinates beyond the first two set to 0, and the largest magnitude.
func (a *Attention) Field(v View, h, cols, rows int) (field []float64, peak float64) {
	d := a.State.D
	z := a.X.RawRowView(a.Query())
	// w = W z restricted to the first two coordinates.
	var w [2]float64
	W := a.Layer[h].W
	c := a.Model.Bias(h)
	for r := 0; r < min(d, 2); r++ {
		if c != nil {
			w[r] = c[r]
		}
		for c := 0; c < d; c++ {
			w[r] += W.At(r, c) * z[c]
		}
	}
	field = make([]float64, cols*rows)
	for j := 0; j < rows; j++ {
		for i := 0; i < cols; i++ {
			x, y := v.ToWorld((float64(i)+0.5)*v.Width/float64(cols), (float64(j)+0.5)*v.Height/float64(rows))
			s := x * w[0]
			if d > 1 {
				s += y * w[1]
			}
			field[j*cols+i] = s
			peak = math.Max(peak, math.Abs(s))
		}
	}
	return field, peak
}

// Facts returns the numbers the scene shows, under the names of the page's
// test contract: output (the layer's), heads (per head), and weights (per
// head, per token), canonical (heads in canonical form), and with biases
// queryBias (c_h per head) and const (C), which output includes.
func (a *Attention) Facts() map[string]any {
	heads := make([]float64, len(a.Details))
	weights := make([][]float64, len(a.Details))
	for h, d := range a.Details {
		heads[h] = d.Output
		weights[h] = d.Weights
	}
	f := map[string]any{
		"scene":     "attention",
		"output":    a.Output,
		"heads":     heads,
		"weights":   weights,
		"canonical": len(a.Canonical),
	}
	if a.State.Bias {
		f["queryBias"] = a.Model.QueryBias
		f["const"] = a.Model.Const
	}
	return f
}

// Describe returns a sentence stating what the canvas shows, for its text
// alternative.
func (a *Attention) Describe() string {
	bias := ""
	if a.State.Bias {
		bias = fmt.Sprintf(" with query biases c_h and a constant C = %.4g", a.Model.Const)
	}
	return fmt.Sprintf("Attention of %d heads%s over %d tokens in %d dimensions; the query is token %d at (%s). Layer output %.4g.",
		a.State.H, bias, a.State.N, a.State.D, a.State.N, coords(a.X.RawRowView(a.Query())), a.Output)
}

func coords(x []float64) string {
	s := ""
	for i, v := range x {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.2f", v)
	}
	return s
}
