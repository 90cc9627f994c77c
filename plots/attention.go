package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"headlab/numerics/attention"
)

// Weights builds the attention weights per head (MATH.md §1): for every
// token i (the last one the query) a group of bars, one per head, of height
// α_{h,i}, coloured as the page colours heads. details is Layer.Details of
// the sequence; every head must have the same number of tokens.
func Weights(details []attention.Detail, st Style) (Figure, error) {
	if err := st.validate(); err != nil {
		return Figure{}, err
	}
	H := len(details)
	if H == 0 {
		return Figure{}, fmt.Errorf("plots: attention weights of no heads")
	}
	N := len(details[0].Weights)
	if N == 0 {
		return Figure{}, fmt.Errorf("plots: attention weights over no tokens")
	}
	p := st.newPlot("token *i* (the last is the query)", "attention weight *α*_{*h*,*i*}")
	f := single("attention-weights", fmt.Sprintf("Attention weights of %d heads over %d tokens", H, N), p, st)
	f.data().Columns = []string{"head (index)", "token (index)", "score (logit)", "weight (probability)", "value (value units)", "head output (value units)"}
	group := 0.8
	width := group / float64(H)
	top := 0.0
	for h, d := range details {
		if len(d.Weights) != N || len(d.Scores) != N || len(d.Values) != N {
			return Figure{}, fmt.Errorf("plots: head %d has %d weights, head 1 has %d", h+1, len(d.Weights), N)
		}
		xys := make(plotter.XYs, N)
		for i, w := range d.Weights {
			if !finite(w) {
				return Figure{}, fmt.Errorf("plots: head %d's weight of token %d is %v", h+1, i+1, w)
			}
			xys[i] = plotter.XY{X: float64(i + 1), Y: w}
			top = math.Max(top, w)
			f.data().add(h+1, i+1, d.Scores[i], w, d.Values[i], d.Output)
		}
		b := &bars{XYs: xys, Width: width, Offset: (float64(h) - float64(H-1)/2) * width,
			Fill: Palette[h%len(Palette)], Line: draw.LineStyle{Color: black, Width: vg.Points(edgeWidth)}, Hatch: h}
		p.Add(b)
		f.legend(fmt.Sprintf("head %d", h+1), b)
	}
	p.X.Min, p.X.Max = 0.5, float64(N)+0.5
	p.Y.Min, p.Y.Max = 0, math.Min(1, niceCeil(top*1.05))
	p.X.Tick.Marker = intTicks{n: tickCount(st, 12)}
	p.Y.Tick.Marker = numTicks{}
	p.X.Padding, p.Y.Padding = 0, 0
	return f, nil
}

// niceCeil rounds x up to 1, 2 or 5 times a power of ten (or to a tenth
// above 0.1).
func niceCeil(x float64) float64 {
	if !(x > 0) || !finite(x) {
		return 1
	}
	e := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*e >= x*(1-1e-12) {
			return m * e
		}
	}
	return 10 * e
}

// tickCount is about how many labels an x axis of a panel holds.
func tickCount(st Style, one int) int {
	if st.Columns == 2 {
		return 2 * one
	}
	return one
}
