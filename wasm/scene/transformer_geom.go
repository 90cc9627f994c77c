package scene

import (
	"math"

	"headlab/numerics/replay"
	"headlab/numerics/transformer"
)

// The line of phase B, p + t·q for t ∈ ℝ ∪ {±∞}, is drawn with
// θ = atan t on the horizontal axis, so that the whole line, both ends at
// infinity included, fits one plot.

// LineAxes maps the line's t and a value of F to canvas pixels in a plot.
type LineAxes struct {
	Plot   Rect
	Y0, Y1 float64 // the values of F shown
}

// X returns the pixel column of t.
func (a LineAxes) X(t float64) float64 {
	return a.Plot.X + a.Plot.W*(math.Atan(t)/math.Pi+0.5)
}

// T returns the t of a pixel column.
func (a LineAxes) T(px float64) float64 {
	th := ((px-a.Plot.X)/a.Plot.W - 0.5) * math.Pi
	switch {
	case th <= -math.Pi/2:
		return math.Inf(-1)
	case th >= math.Pi/2:
		return math.Inf(1)
	}
	return math.Tan(th)
}

// Y returns the pixel row of the value f.
func (a LineAxes) Y(f float64) float64 {
	return a.Plot.Y + a.Plot.H*(a.Y1-f)/(a.Y1-a.Y0)
}

// TTicks are the t the axis labels: both infinities, 0 and a few between
// (±10 would crowd the infinities).
func (a LineAxes) TTicks() []float64 {
	return []float64{math.Inf(-1), -3, -1, -0.3, 0, 0.3, 1, 3, math.Inf(1)}
}

// YTicks returns about n round values of F in the plot's range.
func (a LineAxes) YTicks(n int) []float64 { return niceTicks(a.Y0, a.Y1, n) }

// HitMark returns the index in marks of the mark nearest the pixel column
// px within r pixels (kinks first, as they matter most), or −1.
func HitMark(a LineAxes, marks []replay.Mark, px, py, r float64) int {
	if !a.Plot.Inset(-r).Contains(px, py) {
		return -1
	}
	best, bestD := -1, r
	for pass := 0; pass < 2 && best < 0; pass++ {
		for i, m := range marks {
			if (pass == 0) != (m.Kind == transformer.KinkFound) {
				continue
			}
			if d := math.Abs(a.X(m.T) - px); d <= bestD {
				best, bestD = i, d
			}
		}
	}
	return best
}

// TransformerSide is the width of the unit list beside phase B's plot of
// the line, in CSS pixels.
const TransformerSide = 280

// plotAndList places the step view below y (the header and counters are
// above). In phase A (and at step 0) it returns the plot of the odd part's
// rational function, the whole width; in phase B the plot of the line,
// with room under it for its axis labels and a legend of legend lines
// (two at least), and the unit list beside it on a wide canvas or under
// it, four lines of body type high. Plots are at least 60 CSS pixels
// high.
func (t *Transformer) plotAndList(f StepFrame, y float64, ty Type, legend int) (plot, list Rect) {
	u := ty.U
	if cur, has := t.Current(); !has || replay.InHeads(cur) {
		plot = f.Plot(y, false, 26*u)
		plot.H = math.Max(60*u, plot.H)
		return plot, Rect{}
	}
	under := 4*ty.Text + 8*u + float64(max(0, legend-2))*1.1*ty.Text
	plot = f.Plot(y, true, under)
	if f.Side == 0 {
		plot.H -= 4 * ty.Text
	}
	plot.H = math.Max(60*u, plot.H)
	if f.Side > 0 {
		return plot, f.Beside(plot, plot.H)
	}
	return plot, Rect{X: f.Pad, Y: plot.Y + plot.H + under, W: f.W(), H: 4 * ty.Text}
}
