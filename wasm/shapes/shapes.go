//go:build js && wasm

// Package shapes collects the triangles of many shapes (lines, dashes,
// discs, rings, rectangles) and draws them with one DrawTriangles call,
// anti-aliased by fringes where the batch is feathered. The canvas draws
// every scene with it, and the drag benchmark's floor page (wasm/floor)
// draws the same triangles through it.
package shapes

import (
	"image"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"
)

// Batch collects triangles of many shapes and draws them with one
// DrawTriangles call (one more per maxVertices). ebiten renders each
// anti-aliased vector call through an offscreen buffer that is flushed
// whenever the next call differs, which under software rendering
// (SwiftShader, headless Chromium) cost a whole frame for a few hundred
// lines; one call per layer costs one flush. Colours are premultiplied
// (color.RGBA), as vector's helpers take them.
//
// A feathered Batch anti-aliases its lines, discs and rings itself: each
// shape gets a fringe one device pixel wide whose colour fades to
// transparent across it, so that the edge's coverage ramps as ebiten's
// anti-aliasing would make it, in the same single call and without
// ebiten's anti-aliased path (which draws through an offscreen buffer of
// twice the size, so slow under software rendering that a drag of the
// largest attention scene fell under 10 fps; BenchmarkDragFPS). Its flush
// ignores the aa argument. Rectangles stay crisp.
type Batch struct {
	vs []ebiten.Vertex
	is []uint16
	// full holds earlier parts that reached maxVertices, drawn first.
	full []part
	// Feather: anti-alias by fringes (see above).
	Feather bool
}

type part struct {
	vs []ebiten.Vertex
	is []uint16
}

// whitePixel is the source of every batched triangle: the centre of a 3×3
// white image, so that sampling never reaches an edge.
var whitePixel = func() *ebiten.Image {
	img := ebiten.NewImage(3, 3)
	img.Fill(color.White)
	return img.SubImage(image.Rect(1, 1, 2, 2)).(*ebiten.Image)
}()

// maxVertices keeps indices within uint16.
const maxVertices = 60000

func (b *Batch) vertex(x, y float64, c color.RGBA) uint16 {
	b.vs = append(b.vs, ebiten.Vertex{
		DstX: float32(x), DstY: float32(y), SrcX: 1, SrcY: 1,
		ColorR: float32(c.R) / 255, ColorG: float32(c.G) / 255, ColorB: float32(c.B) / 255, ColorA: float32(c.A) / 255,
	})
	return uint16(len(b.vs) - 1)
}

// room starts a new part when n more vertices would not fit in this one.
func (b *Batch) room(n int) {
	if len(b.vs)+n > maxVertices && len(b.vs) > 0 {
		b.full = append(b.full, part{b.vs, b.is})
		b.vs, b.is = nil, nil
	}
}

// Line adds a segment of width w (pixels) in colour c (premultiplied).
func (b *Batch) Line(x0, y0, x1, y1, w float64, c color.RGBA) {
	dx, dy := x1-x0, y1-y0
	l := math.Hypot(dx, dy)
	if l == 0 || c.A == 0 {
		return
	}
	if b.Feather {
		// A line thinner than the fringe is drawn one pixel wide, fainter.
		c = fainter(c, w)
		w = math.Max(1, w)
		ux, uy := dx/l/2, dy/l/2 // half a pixel along the line
		if w == 1 && l >= 1 {
			b.thinLine(x0, y0, x1, y1, 2*ux, 2*uy, c)
			return
		}
		nx, ny := -uy*w, ux*w
		b.featherConvex([][2]float64{
			{x0 - nx + ux, y0 - ny + uy}, {x1 - nx - ux, y1 - ny - uy},
			{x1 + nx - ux, y1 + ny - uy}, {x0 + nx + ux, y0 + ny + uy},
		}, c)
		return
	}
	nx, ny := -dy/l*w/2, dx/l*w/2
	b.room(4)
	i := b.vertex(x0+nx, y0+ny, c)
	b.vertex(x1+nx, y1+ny, c)
	b.vertex(x0-nx, y0-ny, c)
	b.vertex(x1-nx, y1-ny, c)
	b.is = append(b.is, i, i+1, i+2, i+1, i+3, i+2)
}

// thinLine adds a feathered line one pixel wide from (x0, y0) to (x1, y1),
// (ux, uy) a pixel along it: the triangles of featherConvex's one-pixel
// rectangle that cover any pixel, the same vertices without its zero-area
// ones. The rectangle inset by half a pixel is the segment from a pixel
// after the start to a pixel before the end (its corners meet in pairs);
// the fringe reaches a pixel to each side at the ends. So six vertices and
// six triangles, where featherConvex makes eight and ten: most of the
// attention scene's weight lines and their dashes are this thin. (A line
// shorter than a pixel turns that rectangle inside out; Line leaves it to
// featherConvex.)
func (b *Batch) thinLine(x0, y0, x1, y1, ux, uy float64, c color.RGBA) {
	var none color.RGBA
	b.room(6)
	s := b.vertex(x0+ux, y0+uy, c) // the inset segment's ends, in colour c
	e := b.vertex(x1-ux, y1-uy, c)
	s0 := b.vertex(x0-uy, y0+ux, none) // the fringe's corners, transparent
	s1 := b.vertex(x0+uy, y0-ux, none)
	e0 := b.vertex(x1-uy, y1+ux, none)
	e1 := b.vertex(x1+uy, y1-ux, none)
	b.is = append(b.is, // as featherConvex splits each quad of the fringe
		s, s1, e, s1, e1, e, // one side
		e, e0, s, e0, s0, s, // the other
		s0, s1, s, e1, e0, e) // the ends
}

// segments picks how many sides a circle of radius r pixels needs to look
// round: the polygon strays at most a tenth of a pixel from the circle.
func segments(r float64) int {
	if r <= 0.2 {
		return 12
	}
	n := math.Ceil(math.Pi / math.Acos(1-0.1/r))
	return max(12, min(128, int(n)))
}

// Disc adds a filled circle.
func (b *Batch) Disc(cx, cy, r float64, c color.RGBA) {
	if r <= 0 || c.A == 0 {
		return
	}
	n := segments(r)
	if b.Feather {
		c = fainter(c, 2*r)
		r = math.Max(0.5, r)
		pts := make([][2]float64, n)
		for k := range pts {
			a := 2 * math.Pi * float64(k) / float64(n)
			pts[k] = [2]float64{cx + r*math.Cos(a), cy + r*math.Sin(a)}
		}
		b.featherConvex(pts, c)
		return
	}
	b.room(n + 1)
	centre := b.vertex(cx, cy, c)
	for k := 0; k < n; k++ {
		a := 2 * math.Pi * float64(k) / float64(n)
		b.vertex(cx+r*math.Cos(a), cy+r*math.Sin(a), c)
	}
	for k := 0; k < n; k++ {
		b.is = append(b.is, centre, centre+1+uint16(k), centre+1+uint16((k+1)%n))
	}
}

// Ring adds a circle's outline of width w centred on radius r.
func (b *Batch) Ring(cx, cy, r, w float64, c color.RGBA) {
	if r <= 0 || w <= 0 || c.A == 0 {
		return
	}
	n := segments(r)
	if b.Feather {
		b.featherRing(cx, cy, r, w, n, c)
		return
	}
	b.room(2 * n)
	first := uint16(len(b.vs))
	for k := 0; k < n; k++ {
		a := 2 * math.Pi * float64(k) / float64(n)
		cos, sin := math.Cos(a), math.Sin(a)
		b.vertex(cx+(r-w/2)*cos, cy+(r-w/2)*sin, c)
		b.vertex(cx+(r+w/2)*cos, cy+(r+w/2)*sin, c)
	}
	for k := 0; k < n; k++ {
		i, j := first+uint16(2*k), first+uint16(2*((k+1)%n))
		b.is = append(b.is, i, i+1, j, i+1, j+1, j)
	}
}

// featherConvex adds the convex polygon pts (in order, either direction)
// with its edges feathered: the polygon inset by half a pixel in colour c,
// and a fringe out to half a pixel beyond the edges, fading to transparent.
// A corner moves along its bisector, so the fringe is half a pixel from
// each edge.
func (b *Batch) featherConvex(pts [][2]float64, c color.RGBA) {
	n := len(pts)
	if n < 3 {
		return
	}
	// Orientation, so that the normals point outwards.
	var area float64
	for k := range pts {
		p, q := pts[k], pts[(k+1)%n]
		area += p[0]*q[1] - q[0]*p[1]
	}
	if area == 0 {
		return
	}
	sign := 1.0
	if area < 0 {
		sign = -1
	}
	normal := func(p, q [2]float64) (float64, float64) {
		dx, dy := q[0]-p[0], q[1]-p[1]
		l := math.Hypot(dx, dy)
		if l == 0 {
			return 0, 0
		}
		return sign * dy / l, -sign * dx / l
	}
	b.room(2 * n)
	first := uint16(len(b.vs))
	var none color.RGBA
	for k := range pts {
		ax, ay := normal(pts[(k+n-1)%n], pts[k])
		bx, by := normal(pts[k], pts[(k+1)%n])
		mx, my := ax+bx, ay+by
		d := mx*ax + my*ay // |m|·cos of half the turn, times |m|
		if d < 1e-6 {
			mx, my, d = bx, by, 1
		}
		ox, oy := 0.5*mx/d, 0.5*my/d
		p := pts[k]
		b.vertex(p[0]-ox, p[1]-oy, c)
		b.vertex(p[0]+ox, p[1]+oy, none)
	}
	for k := 1; k+1 < n; k++ { // the inset polygon, a fan
		b.is = append(b.is, first, first+uint16(2*k), first+uint16(2*k+2))
	}
	for k := range n { // the fringe, a quad per edge
		i, j := first+uint16(2*k), first+uint16(2*((k+1)%n))
		b.is = append(b.is, i, i+1, j, i+1, j+1, j)
	}
}

// fainter scales the premultiplied colour c by the coverage f, at most 1.
func fainter(c color.RGBA, f float64) color.RGBA {
	if f >= 1 {
		return c
	}
	f = math.Max(0, f)
	return color.RGBA{uint8(float64(c.R)*f + 0.5), uint8(float64(c.G)*f + 0.5), uint8(float64(c.B)*f + 0.5), uint8(float64(c.A)*f + 0.5)}
}

// featherRing adds a feathered ring: from radius r-w/2 to r+w/2, each
// edge fading across one pixel; a ring thinner than a pixel is fainter.
func (b *Batch) featherRing(cx, cy, r, w float64, n int, c color.RGBA) {
	c = fainter(c, w)
	w = math.Max(1, w)
	radii := [4]float64{r - w/2 - 0.5, r - w/2 + 0.5, r + w/2 - 0.5, r + w/2 + 0.5}
	radii[0] = math.Max(0, radii[0])
	cols := [4]color.RGBA{{}, c, c, {}}
	b.room(4 * n)
	first := uint16(len(b.vs))
	for k := range n {
		a := 2 * math.Pi * float64(k) / float64(n)
		cos, sin := math.Cos(a), math.Sin(a)
		for e := range 4 {
			b.vertex(cx+radii[e]*cos, cy+radii[e]*sin, cols[e])
		}
	}
	for k := range n {
		i, j := first+uint16(4*k), first+uint16(4*((k+1)%n))
		for e := uint16(0); e < 3; e++ {
			b.is = append(b.is, i+e, i+e+1, j+e, i+e+1, j+e+1, j+e)
		}
	}
}

// Rect adds a filled axis-aligned rectangle.
func (b *Batch) Rect(x, y, w, h float64, c color.RGBA) {
	if w <= 0 || h <= 0 || c.A == 0 {
		return
	}
	b.room(4)
	i := b.vertex(x, y, c)
	b.vertex(x+w, y, c)
	b.vertex(x, y+h, c)
	b.vertex(x+w, y+h, c)
	b.is = append(b.is, i, i+1, i+2, i+1, i+3, i+2)
}

// StrokeRect adds a rectangle's outline of width w centred on its edges,
// as vector.StrokeRect draws it: four bars, the corners in the top and
// bottom ones.
func (b *Batch) StrokeRect(x, y, rw, rh, w float64, c color.RGBA) {
	if rw < 0 {
		x, rw = x+rw, -rw
	}
	if rh < 0 {
		y, rh = y+rh, -rh
	}
	h := w / 2
	b.Rect(x-h, y-h, rw+w, w, c)
	b.Rect(x-h, y+rh-h, rw+w, w, c)
	b.Rect(x-h, y+h, w, rh-w, c)
	b.Rect(x+rw-h, y+h, w, rh-w, c)
}

// Polyline adds the line through pts, width w, with round joins: a bar
// per segment and a disc at each inner point. Opaque colours only look
// right (a translucent line would be darker where the pieces overlap).
func (b *Batch) Polyline(pts [][2]float64, w float64, c color.RGBA) {
	for k := 1; k < len(pts); k++ {
		b.Line(pts[k-1][0], pts[k-1][1], pts[k][0], pts[k][1], w, c)
		if k < len(pts)-1 {
			b.Disc(pts[k][0], pts[k][1], w/2, c)
		}
	}
}

// maxDashes bounds the dashes of one dashed segment.
const maxDashes = 40

// Dashed adds a dashed segment: dashes of length dash, gaps as long (at
// most maxDashes of them, longer on a long segment).
func (b *Batch) Dashed(x0, y0, x1, y1, dash, w float64, c color.RGBA) {
	l := math.Hypot(x1-x0, y1-y0)
	if l < 1 || dash <= 0 {
		return
	}
	dash = max(dash, l/(2*maxDashes)) // a long line: longer dashes, not more
	dx, dy := (x1-x0)/l, (y1-y0)/l
	for s := 0.0; s < l; s += 2 * dash {
		e := math.Min(l, s+dash)
		b.Line(x0+dx*s, y0+dy*s, x0+dx*e, y0+dy*e, w, c)
	}
}

// Flush draws everything collected onto dst and empties the batch. The
// colours are premultiplied, as vector's helpers take them.
func (b *Batch) Flush(dst *ebiten.Image, aa bool) {
	op := &ebiten.DrawTrianglesOptions{AntiAlias: aa && !b.Feather, ColorScaleMode: ebiten.ColorScaleModePremultipliedAlpha}
	for _, p := range b.full {
		dst.DrawTriangles(p.vs, p.is, whitePixel, op)
	}
	if len(b.is) > 0 {
		dst.DrawTriangles(b.vs, b.is, whitePixel, op)
	}
	b.vs, b.is, b.full = b.vs[:0], b.is[:0], nil
}

// AppendClipped moves src's triangles into b, cut to the rectangle
// [x0, x1]×[y0, y1]: the same pixels as drawing src onto that rectangle's
// sub-image, but in b's call.
func (b *Batch) AppendClipped(src *Batch, x0, y0, x1, y1 float64) {
	parts := append(src.full, part{src.vs, src.is})
	var poly, next [][2]float64
	for _, p := range parts {
		for t := 0; t+2 < len(p.is); t += 3 {
			c := p.vs[p.is[t]]
			poly = poly[:0]
			for _, i := range p.is[t : t+3] {
				poly = append(poly, [2]float64{float64(p.vs[i].DstX), float64(p.vs[i].DstY)})
			}
			// Sutherland–Hodgman against each edge of the rectangle.
			for e := 0; e < 4 && len(poly) > 0; e++ {
				inside := func(q [2]float64) bool {
					switch e {
					case 0:
						return q[0] >= x0
					case 1:
						return q[0] <= x1
					case 2:
						return q[1] >= y0
					}
					return q[1] <= y1
				}
				cross := func(a, q [2]float64) [2]float64 {
					var f float64
					switch e {
					case 0:
						f = (x0 - a[0]) / (q[0] - a[0])
					case 1:
						f = (x1 - a[0]) / (q[0] - a[0])
					case 2:
						f = (y0 - a[1]) / (q[1] - a[1])
					default:
						f = (y1 - a[1]) / (q[1] - a[1])
					}
					return [2]float64{a[0] + f*(q[0]-a[0]), a[1] + f*(q[1]-a[1])}
				}
				next = next[:0]
				for k, q := range poly {
					a := poly[(k+len(poly)-1)%len(poly)]
					switch {
					case inside(q) && inside(a):
						next = append(next, q)
					case inside(q):
						next = append(next, cross(a, q), q)
					case inside(a):
						next = append(next, cross(a, q))
					}
				}
				poly, next = next, poly
			}
			if len(poly) < 3 {
				continue
			}
			b.room(len(poly))
			first := uint16(len(b.vs))
			for _, q := range poly {
				v := c
				v.DstX, v.DstY = float32(q[0]), float32(q[1])
				b.vs = append(b.vs, v)
			}
			for k := 1; k+1 < len(poly); k++ {
				b.is = append(b.is, first, first+uint16(k), first+uint16(k+1))
			}
		}
	}
	src.vs, src.is, src.full = src.vs[:0], src.is[:0], nil
}

// HeadDash returns head h's dash length in CSS pixels (0: solid), so that
// a head's lines differ from another's in pattern as well as in colour.
func HeadDash(h int) float64 {
	dashes := [...]float64{0, 9, 4, 1.5, 14, 6, 2.5, 11}
	return dashes[((h%len(dashes))+len(dashes))%len(dashes)]
}

// HeadLine adds a line in head h's pattern: solid for the first head,
// dashes of the head's length (longer for thicker lines) for the others;
// dsf is the device pixels per CSS pixel.
func (b *Batch) HeadLine(h int, x0, y0, x1, y1, w, dsf float64, c color.RGBA) {
	d := HeadDash(h)
	if d == 0 {
		b.Line(x0, y0, x1, y1, w, c)
		return
	}
	b.Dashed(x0, y0, x1, y1, d*dsf+w, w, c)
}

// WithAlpha scales the opaque colour c to the opacity f (clamped to
// 0…1), premultiplied, as the batch takes its colours.
func WithAlpha(c color.RGBA, f float64) color.RGBA {
	f = math.Max(0, math.Min(1, f))
	return color.RGBA{uint8(float64(c.R) * f), uint8(float64(c.G) * f), uint8(float64(c.B) * f), uint8(255 * f)}
}

// minWeight is the smallest attention weight WeightLines draws.
const minWeight = 0.004

// WeightLines adds head h's attention weights ws (one per token; heads
// heads in all) from the query, token q: to every other token whose
// weight reaches minWeight a line in the head's pattern (HeadLine), wider
// and more opaque as the weight grows, offset sideways by head so that
// the heads' lines stay apart; and the query's weight on itself as a ring
// around it. at gives token i's position on the screen; dsf is the
// device pixels per CSS pixel.
func (b *Batch) WeightLines(h, heads, q int, ws []float64, at func(i int) (x, y float64), dsf float64, col color.RGBA) {
	qx, qy := at(q)
	off := (float64(h) - float64(heads-1)/2) * 3 * dsf
	for i, w := range ws {
		if i == q || w < minWeight {
			continue
		}
		tx, ty := at(i)
		dx, dy := tx-qx, ty-qy
		l := math.Hypot(dx, dy)
		if l < 1 {
			continue
		}
		nx, ny := -dy/l*off, dx/l*off
		b.HeadLine(h, qx+nx, qy+ny, tx+nx, ty+ny, (0.75+7*w)*dsf, dsf, WithAlpha(col, 0.25+0.75*w))
	}
	if w := ws[q]; w >= minWeight {
		b.Ring(qx, qy, (14+4*float64(h))*dsf, (0.75+5*w)*dsf, WithAlpha(col, 0.25+0.75*w))
	}
}
