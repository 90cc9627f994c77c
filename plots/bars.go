package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bars draws a bar at each (X, Y) from 0 to Y, Width wide in data units and
// shifted by Offset data units, so grouped bars keep their proportions at
// any figure size (gonum's BarChart measures widths in canvas units).
type bars struct {
	plotter.XYs
	Width, Offset float64
	Fill          color.Color
	Line          draw.LineStyle
	// Hatch is the hatching drawn over the fill (see hatchings): bars of
	// different series sharing an axis differ in grey as well as in colour.
	Hatch int
}

// hatchings are the directions of hatch lines, in degrees: none, one or
// two directions.
var hatchings = [...][]float64{nil, {45}, {-45}, {0}, {90}, {45, -45}, {0, 90}, {22.5}}

// hatchSpacing is the distance between hatch lines, hatchWidth their
// width, in points.
const (
	hatchSpacing = 2.6
	hatchWidth   = 0.8
)

// hatch strokes the hatching of kind k across rectangle r.
func hatch(c *draw.Canvas, r vg.Rectangle, k int) {
	dirs := hatchings[((k%len(hatchings))+len(hatchings))%len(hatchings)]
	if len(dirs) == 0 {
		return
	}
	// White on the fill: the bar reads as stripes in grey, and its colour
	// stays its head's.
	ls := draw.LineStyle{Color: color.White, Width: vg.Points(hatchWidth)}
	w, h := float64(r.Max.X-r.Min.X), float64(r.Max.Y-r.Min.Y)
	cx, cy := float64(r.Min.X)+w/2, float64(r.Min.Y)+h/2
	half := math.Hypot(w, h) / 2
	for _, deg := range dirs {
		s, co := math.Sincos(deg * math.Pi / 180)
		// Lines along (co, s), offset along the normal (−s, co), through
		// the rectangle's centre ± multiples of the spacing.
		for off := -math.Floor(half/hatchSpacing) * hatchSpacing; off <= half; off += hatchSpacing {
			px, py := cx-s*off, cy+co*off
			a, b, ok := clipLine(px, py, co, s, r)
			if ok {
				c.StrokeLine2(ls, vg.Length(px+co*a), vg.Length(py+s*a), vg.Length(px+co*b), vg.Length(py+s*b))
			}
		}
	}
}

// clipLine clips the line (px, py) + t·(dx, dy) to r (Liang–Barsky),
// returning the parameters of its ends inside.
func clipLine(px, py, dx, dy float64, r vg.Rectangle) (t0, t1 float64, ok bool) {
	t0, t1 = math.Inf(-1), math.Inf(1)
	for _, e := range [...]struct{ p, lo, hi, d float64 }{
		{px, float64(r.Min.X), float64(r.Max.X), dx},
		{py, float64(r.Min.Y), float64(r.Max.Y), dy},
	} {
		if math.Abs(e.d) < 1e-12 {
			if e.p < e.lo || e.p > e.hi {
				return 0, 0, false
			}
			continue
		}
		a, b := (e.lo-e.p)/e.d, (e.hi-e.p)/e.d
		if a > b {
			a, b = b, a
		}
		t0, t1 = math.Max(t0, a), math.Min(t1, b)
	}
	return t0, t1, t1-t0 > 1e-9
}

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for _, xy := range b.XYs {
		if !finite(xy.X) || !finite(xy.Y) {
			continue
		}
		x0, x1 := tx(xy.X+b.Offset-b.Width/2), tx(xy.X+b.Offset+b.Width/2)
		y0, y1 := ty(0), ty(xy.Y)
		if y1 < y0 {
			y0, y1 = y1, y0
		}
		r := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}
		pts := c.ClipPolygonXY(r)
		c.FillPolygon(b.Fill, pts)
		if b.Hatch != 0 {
			rect := vg.Rectangle{Min: vg.Point{X: max(x0, c.Min.X), Y: max(y0, c.Min.Y)}, Max: vg.Point{X: min(x1, c.Max.X), Y: min(y1, c.Max.Y)}}
			if rect.Max.X > rect.Min.X && rect.Max.Y > rect.Min.Y {
				hatch(&c, rect, b.Hatch)
			}
		}
		if b.Line.Width > 0 {
			c.StrokeLines(b.Line, c.ClipLinesXY(append(r, r[0]))...)
		}
	}
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = plotter.XYRange(b.XYs)
	xmin += b.Offset - b.Width/2
	xmax += b.Offset + b.Width/2
	if ymin > 0 {
		ymin = 0
	}
	if ymax < 0 {
		ymax = 0
	}
	return
}

func (b *bars) Thumbnail(c *draw.Canvas) {
	h := (c.Max.Y - c.Min.Y)
	w := h * 1.2
	mid := (c.Min.X + c.Max.X) / 2
	r := []vg.Point{{X: mid - w/2, Y: c.Min.Y}, {X: mid - w/2, Y: c.Max.Y}, {X: mid + w/2, Y: c.Max.Y}, {X: mid + w/2, Y: c.Min.Y}}
	c.FillPolygon(b.Fill, r)
	hatch(c, vg.Rectangle{Min: r[0], Max: r[2]}, b.Hatch)
	if b.Line.Width > 0 {
		c.StrokeLines(b.Line, append(r, r[0]))
	}
}

// vline is a vertical guide at X spanning the plot's y range.
type vline struct {
	X    float64
	Line draw.LineStyle
}

func (v *vline) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	x := tx(v.X)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	c.StrokeLine2(v.Line, x, max(c.Min.Y, ty(p.Y.Min)), x, min(c.Max.Y, ty(p.Y.Max)))
}

// Thumbnail draws the line's style horizontally: a vertical stroke in a
// legend is too short to show its dashes.
func (v *vline) Thumbnail(c *draw.Canvas) {
	mid := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(v.Line, c.Min.X, mid, c.Max.X, mid)
}

// hline is a horizontal guide at Y spanning the plot's x range.
type hline struct {
	Y    float64
	Line draw.LineStyle
}

func (h *hline) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	y := ty(h.Y)
	if y < c.Min.Y || y > c.Max.Y {
		return
	}
	c.StrokeLine2(h.Line, max(c.Min.X, tx(p.X.Min)), y, min(c.Max.X, tx(p.X.Max)), y)
}

func (h *hline) Thumbnail(c *draw.Canvas) {
	mid := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(h.Line, c.Min.X, mid, c.Max.X, mid)
}
