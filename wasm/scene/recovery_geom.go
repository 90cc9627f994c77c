package scene

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
	"headlab/numerics/recovery"
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
// compared with, and each pair's relative error (replay.Pairing, computed
// when the run arrives); nil when the run has no layer or a different
// number of heads.
func (r *Recovery) Pairing() (pair []int, errs []float64) { return r.pair, r.pairErrs }

// pairUp computes the pairing of the run's layer with the canonical one.
func (r *Recovery) pairUp() {
	r.pair, r.pairErrs = nil, nil
	if r.Result != nil && r.Err == nil && r.Replay == nil {
		r.pair, r.pairErrs = replay.Pairing(r.Result.Layer, r.Canonical)
	}
}

// HeatLayout places the result view's heat maps: for each true head a row
// with the true W and v, the recovered W and v, and the error.
type HeatLayout struct {
	D, Heads int
	Cell     float64 // cell side in pixels
	// Origin of each block: [head][0 true, 1 recovered] the top-left of W;
	// v is the row of cells one cell under W.
	W [][2][2]float64
	// Titles are the columns' titles, true and recovered, over the blocks
	// (ResultLayout).
	Titles [2]Label
}

// NewHeatLayout lays out heads rows of two d×d matrices (plus v) in r,
// the recovered block at least column pixels right of the true one (so
// that the true column's title fits over it).
func NewHeatLayout(r Rect, d, heads int, unit, column float64) HeatLayout {
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
	pitch := math.Max(float64(d)*l.Cell+gap, column)
	for h := 0; h < heads; h++ {
		y := r.Y + float64(h)*(blockH+gap)
		x := r.X + label
		l.W = append(l.W, [2][2]float64{{x, y}, {x + pitch, y}})
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

// Type is the canvas's type as the layouts need it: U is one CSS pixel in
// canvas pixels (times the presentation scale), Title and Text the line
// heights of the title and the body type.
type Type struct{ U, Title, Text float64 }

// StepFrame is the frame of a step view, the Recovery scene's and the
// Transformer's (which draws phase A as the Recovery scene draws a query):
// the margin, the room left of a plot for its value labels, and the
// column beside the plot on a wide canvas (Side 0: what it holds goes
// under the plot).
type StepFrame struct {
	Full   Rect
	U      float64
	Pad    float64 // the margin on every side
	Left   float64 // left of a plot, for its value labels
	Side   float64 // the column beside the plot
	Narrow bool    // a phone: smaller margins, the header on two lines
}

// NewStepFrame returns the frame of a step view on a canvas of full's
// size, with a column side CSS pixels wide beside the plot when the canvas
// is 900 CSS pixels wide or more.
func NewStepFrame(full Rect, u, side float64) StepFrame {
	f := StepFrame{Full: full, U: u, Pad: 16 * u, Left: 58 * u}
	if full.W < 560*u {
		f.Narrow, f.Pad, f.Left = true, 10*u, 46*u
	}
	if full.W >= 900*u {
		f.Side = side * u
	}
	return f
}

// W is the width inside the margins.
func (f StepFrame) W() float64 { return f.Full.W - 2*f.Pad }

// Plot returns a plot from y down to the bottom margin less each of
// below, as wide as the column beside it leaves (or the whole width when
// beside is false).
func (f StepFrame) Plot(y float64, beside bool, below ...float64) Rect {
	p := Rect{X: f.Pad + f.Left, Y: y, W: f.W() - f.Left, H: f.Full.H - y - f.Pad}
	if beside && f.Side > 0 {
		p.W = f.W() - f.Left - f.Side - 16*f.U
	}
	for _, b := range below {
		p.H -= b
	}
	return p
}

// Beside returns the column beside plot, from its top, h high.
func (f StepFrame) Beside(plot Rect, h float64) Rect {
	return Rect{X: plot.X + plot.W + 16*f.U, Y: plot.Y, W: f.Side, H: h}
}

// StepsSide is the width of the pole table beside the step view's plot,
// in CSS pixels.
const StepsSide = 320

// Panel is the frame of the result, sweep and modes views: a margin of
// 16 CSS pixels, the title at its top left, the rest below it.
type Panel struct {
	Full Rect
	U    float64
	Pad  float64
	Top  float64 // the y under the title
}

// NewPanel returns the panel of a canvas of full's size.
func NewPanel(full Rect, t Type) Panel {
	pad := 16 * t.U
	return Panel{Full: full, U: t.U, Pad: pad, Top: pad + t.Title + 4*t.U}
}

// W is the width inside the margins.
func (p Panel) W() float64 { return p.Full.W - 2*p.Pad }

// ResultLayout places the result view's heat maps below y (the title and
// the run's summary are above): a line of column titles, then a row per
// canonical head, leaving a line at the bottom for the colour legend. The
// titles do not overlap, however small the cells.
func (r *Recovery) ResultLayout(p Panel, y float64, m Measure) HeatLayout {
	t := m.Type
	area := Rect{X: p.Pad, Y: y + t.Text + 4*t.U, W: p.W(), H: p.Full.H - y - t.Text - 2*p.Pad - t.Text}
	titles := [2]string{"true (canonical)", "recovered"}
	l := NewHeatLayout(area, r.State.D, len(r.Canonical), t.U, m.TextWidth(titles[0])+8*t.U)
	if len(l.W) > 0 {
		for side, s := range titles {
			l.Titles[side] = Label{Text: s, X: l.W[0][side][0], Y: y}
		}
	}
	return l
}

// CellRect returns the rectangle of a heat-map cell: head h, side 0 (true)
// or 1 (recovered), row i (D for v), column j.
func (l HeatLayout) CellRect(h, side, i, j int) Rect {
	y := l.W[h][side][1] + float64(i)*l.Cell
	if i == l.D {
		y = l.VY(h)
	}
	return Rect{X: l.W[h][side][0] + float64(j)*l.Cell, Y: y, W: l.Cell, H: l.Cell}
}

// SweepAxes maps the noise sweep's log–log plot to the canvas: ε a decade
// beyond the sweep's range (experiment.SweepNoise) on each side, the
// error from 1e−17 to 10^0.5.
type SweepAxes struct {
	Plot               Rect
	EX0, EX1, EY0, EY1 float64 // the decades shown
	Statement          float64 // the y of the statement under the plot
}

// NewSweepAxes places the sweep's plot below y, leaving three lines and
// the margin at the bottom for the statement of the largest H.
func NewSweepAxes(p Panel, y float64, t Type) SweepAxes {
	left := 64 * t.U
	bottom := t.Text*3 + p.Pad
	return SweepAxes{
		Plot: Rect{X: p.Pad + left, Y: y, W: p.W() - left - 8*t.U, H: p.Full.H - y - bottom - 30*t.U},
		EX0:  math.Floor(math.Log10(slices.Min(experiment.SweepNoise))) - 1,
		EX1:  math.Ceil(math.Log10(slices.Max(experiment.SweepNoise))) + 1,
		EY0:  -17, EY1: 0.5,
		Statement: p.Full.H - bottom + 6*t.U,
	}
}

// X returns the pixel column of the accuracy e.
func (a SweepAxes) X(e float64) float64 {
	return a.Plot.X + (math.Log10(e)-a.EX0)/(a.EX1-a.EX0)*a.Plot.W
}

// Y returns the pixel row of the error e.
func (a SweepAxes) Y(e float64) float64 {
	return a.Plot.Y + (a.EY1-math.Log10(e))/(a.EY1-a.EY0)*a.Plot.H
}

// ModesAxes maps the modes view's plot of query counts over d = 1…MaxD,
// log-scaled from 1 to 1.5 times the paper's count at MaxD.
type ModesAxes struct {
	Plot Rect
	MaxD int
	YMax float64 // log10 of the top count
}

// NewModesAxes places the modes view's plot below y, leaving two lines
// and the margin at the bottom; false when it would be shorter than 60
// CSS pixels.
func NewModesAxes(p Panel, y float64, t Type, heads, d int) (ModesAxes, bool) {
	left := 58 * t.U
	a := ModesAxes{Plot: Rect{X: p.Pad + left, Y: y, W: p.W() - left - 8*t.U, H: p.Full.H - y - p.Pad - 2*t.Text}, MaxD: max(16, d)}
	a.YMax = math.Log10(float64(recovery.PaperQueries(heads, a.MaxD)) * 1.5)
	return a, a.Plot.H >= 60*t.U
}

// X returns the pixel column of the width d.
func (a ModesAxes) X(d int) float64 { return a.Plot.X + float64(d-1)/float64(a.MaxD-1)*a.Plot.W }

// Y returns the pixel row of the count n.
func (a ModesAxes) Y(n int) float64 {
	return a.Plot.Y + (a.YMax-math.Log10(float64(n)))/a.YMax*a.Plot.H
}
