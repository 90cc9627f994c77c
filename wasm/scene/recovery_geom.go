package scene

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/replay"
)

// RFAxes maps the step view's plot of F(n) to the canvas. The n axis is
// linear while every pole −ρ_h lies within a few sample spacings of 0, and
// otherwise symmetric-logarithmic, sign(n)·log(1+|n|), so that far poles
// and the samples at n = 0…2H are both in view.
type RFAxes struct {
	Plot           Rect    // the plot area in canvas pixels
	X0, X1, Y0, Y1 float64 // the data ranges shown
	Log            bool    // the n axis is symmetric-logarithmic
}

// PlotRange returns the data ranges of RF k's plot: n from left of its
// farthest pole to right of its last sample, F over every sample of the RF
// (also those not made yet, so the axes stay put while stepping) and its
// constant, with a margin. It uses the RF's own fit for the poles.
func (r *Recovery) PlotRange(k int, plot Rect) RFAxes {
	a := RFAxes{Plot: plot, X0: -1.5, X1: float64(2*r.Heads()) + 0.6, Y0: -1, Y1: 1}
	if r.Result == nil || k < 0 || k >= len(r.Result.Trace.RFs) {
		return a
	}
	rf := &r.Result.Trace.RFs[k]
	far := 0.0
	for _, p := range rf.Fit.Poles {
		if finite(p) {
			far = math.Max(far, p)
		}
	}
	a.X0 = math.Min(-1.5, -far*1.25-0.5)
	if far > float64(2*r.Heads()+2) {
		a.Log = true
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range rf.F {
		if finite(y) {
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
	}
	if len(rf.Fit.Poles) > 0 && finite(rf.Fit.C) {
		lo, hi = math.Min(lo, rf.Fit.C), math.Max(hi, rf.Fit.C)
	}
	if !(lo <= hi) {
		return a
	}
	span := hi - lo
	if span < 1e-9*math.Max(1, math.Abs(hi)) {
		span = math.Max(0.1, 0.1*math.Abs(hi))
	}
	a.Y0, a.Y1 = lo-0.6*span, hi+0.6*span
	return a
}

func (a RFAxes) tx(n float64) float64 {
	if a.Log {
		return math.Copysign(math.Log1p(math.Abs(n)), n)
	}
	return n
}

// ToScreen maps (n, F) to canvas pixels.
func (a RFAxes) ToScreen(n, y float64) (float64, float64) {
	x0, x1 := a.tx(a.X0), a.tx(a.X1)
	px := a.Plot.X + (a.tx(n)-x0)/(x1-x0)*a.Plot.W
	py := a.Plot.Y + (a.Y1-y)/(a.Y1-a.Y0)*a.Plot.H
	return px, py
}

// ToN maps a canvas x back to n.
func (a RFAxes) ToN(px float64) float64 {
	x0, x1 := a.tx(a.X0), a.tx(a.X1)
	t := x0 + (px-a.Plot.X)/a.Plot.W*(x1-x0)
	if a.Log {
		return math.Copysign(math.Expm1(math.Abs(t)), t)
	}
	return t
}

// NTicks returns the n values to mark on the axis.
func (a RFAxes) NTicks() []float64 {
	var out []float64
	if !a.Log {
		step := 1.0
		if a.X1-a.X0 > 24 {
			step = 5
		}
		for n := math.Ceil(a.X0/step) * step; n <= a.X1; n += step {
			out = append(out, n)
		}
		return out
	}
	for _, n := range []float64{-1000, -500, -200, -100, -50, -20, -10, -5, -2, -1, 0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 16} {
		if n >= a.X0 && n <= a.X1 {
			out = append(out, n)
		}
	}
	return out
}

// YTicks returns about n round values within the F range.
func (a RFAxes) YTicks(n int) []float64 { return niceTicks(a.Y0, a.Y1, n) }

// niceTicks returns round values 1, 2 or 5 × 10^k apart within [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || n < 1 {
		return nil
	}
	raw := (hi - lo) / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := p
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, v)
	}
	return out
}

// Pairing returns, for each true canonical head, the recovered head it is
// compared with, and each pair's relative error (replay.Pairing); nil
// when the run has no layer or a different number of heads.
func (r *Recovery) Pairing() (pair []int, errs []float64) {
	if r.Result == nil || r.Err != nil {
		return nil, nil
	}
	return replay.Pairing(r.Result.Layer, r.Canonical)
}

// HeatLayout places the result view's heat maps: for each true head a row
// with the true W and v, the recovered W and v, and the error.
type HeatLayout struct {
	D, Heads int
	Cell     float64 // cell side in pixels
	// Origin of each block: [head][0 true, 1 recovered] the top-left of W;
	// v is the row of cells one cell under W.
	W [][2][2]float64
}

// NewHeatLayout lays out heads rows of two d×d matrices (plus v) in r.
func NewHeatLayout(r Rect, d, heads int, unit float64) HeatLayout {
	l := HeatLayout{D: d, Heads: heads}
	if heads < 1 || d < 1 {
		return l
	}
	gap := 14 * unit
	errW := 110 * unit
	label := 64 * unit
	rowH := (r.H - float64(heads-1)*gap) / float64(heads)
	byH := rowH / (float64(d) + 1.6)
	byW := (r.W - label - errW - 3*gap) / (2 * float64(d))
	l.Cell = math.Max(2, math.Min(60*unit, math.Min(byH, byW)))
	blockH := l.Cell * (float64(d) + 1.6)
	for h := 0; h < heads; h++ {
		y := r.Y + float64(h)*(blockH+gap)
		x := r.X + label
		l.W = append(l.W, [2][2]float64{{x, y}, {x + float64(d)*l.Cell + gap, y}})
	}
	return l
}

// VY returns the top of head h's v row.
func (l HeatLayout) VY(h int) float64 { return l.W[h][0][1] + (float64(l.D)+0.4)*l.Cell }

// Hit returns the cell under (x, y): head, side (0 true, 1 recovered), row
// i (d for v) and column j; ok false when none.
func (l HeatLayout) Hit(x, y float64) (h, side, i, j int, ok bool) {
	for h = range l.W {
		for side = 0; side < 2; side++ {
			ox, oy := l.W[h][side][0], l.W[h][side][1]
			j = int(math.Floor((x - ox) / l.Cell))
			if j < 0 || j >= l.D {
				continue
			}
			if y >= oy && y < oy+float64(l.D)*l.Cell {
				return h, side, int((y - oy) / l.Cell), j, true
			}
			if vy := l.VY(h); y >= vy && y < vy+l.Cell {
				return h, side, l.D, j, true
			}
		}
	}
	return 0, 0, 0, 0, false
}

// HeadValue returns W[i][j] (or v[j] when i = d) of head h of layer l.
func HeadValue(l attention.Layer, h, i, j int) float64 {
	if h < 0 || h >= len(l) {
		return math.NaN()
	}
	d, _ := l[h].W.Dims()
	if i == d {
		return l[h].V.AtVec(j)
	}
	return l[h].W.At(i, j)
}

// HeadScale returns the largest |entry| of W and of v over the layer, for
// a shared colour scale.
func HeadScale(l attention.Layer) (w, v float64) {
	for _, hd := range l {
		w = math.Max(w, maxAbsDense(hd.W))
		v = math.Max(v, maxAbsVec(hd.V.RawVector().Data))
	}
	return w, v
}

func maxAbsDense(m *mat.Dense) float64 {
	r, c := m.Dims()
	var x float64
	for i := 0; i < r; i++ {
		x = math.Max(x, maxAbsVec(m.RawRowView(i)[:c]))
	}
	return x
}

func maxAbsVec(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}
