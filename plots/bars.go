package plots

import (
	"image/color"

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
