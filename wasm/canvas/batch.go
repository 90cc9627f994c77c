//go:build js && wasm

package main

import (
	"image"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"
)

// batch collects triangles of many shapes and draws them with one
// DrawTriangles call. ebiten renders each anti-aliased vector call through
// an offscreen buffer that is flushed whenever the next call differs, which
// under software rendering (SwiftShader, headless Chromium) cost a whole
// frame for a few hundred lines; one call per layer costs one flush.
type batch struct {
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

func (b *batch) vertex(x, y float64, c color.RGBA) uint16 {
	b.vs = append(b.vs, ebiten.Vertex{
		DstX: float32(x), DstY: float32(y), SrcX: 1, SrcY: 1,
		ColorR: float32(c.R) / 255, ColorG: float32(c.G) / 255, ColorB: float32(c.B) / 255, ColorA: float32(c.A) / 255,
	})
	return uint16(len(b.vs) - 1)
}

// room flushes the batch to dst when n more vertices would not fit.
func (b *batch) room(dst *ebiten.Image, n int, aa bool) {
	if len(b.vs)+n > maxVertices {
		b.flush(dst, aa)
	}
}

// line adds a segment of width w (pixels) in colour c (premultiplied).
func (b *batch) line(x0, y0, x1, y1, w float64, c color.RGBA) {
	dx, dy := x1-x0, y1-y0
	l := math.Hypot(dx, dy)
	if l == 0 || c.A == 0 {
		return
	}
	nx, ny := -dy/l*w/2, dx/l*w/2
	i := b.vertex(x0+nx, y0+ny, c)
	b.vertex(x1+nx, y1+ny, c)
	b.vertex(x0-nx, y0-ny, c)
	b.vertex(x1-nx, y1-ny, c)
	b.is = append(b.is, i, i+1, i+2, i+1, i+3, i+2)
}

// segments picks how many sides a circle of radius r pixels needs to look round.
func segments(r float64) int {
	return max(12, min(64, int(r*1.5)))
}

// disc adds a filled circle.
func (b *batch) disc(cx, cy, r float64, c color.RGBA) {
	if r <= 0 || c.A == 0 {
		return
	}
	n := segments(r)
	centre := b.vertex(cx, cy, c)
	for k := 0; k < n; k++ {
		a := 2 * math.Pi * float64(k) / float64(n)
		b.vertex(cx+r*math.Cos(a), cy+r*math.Sin(a), c)
	}
	for k := 0; k < n; k++ {
		b.is = append(b.is, centre, centre+1+uint16(k), centre+1+uint16((k+1)%n))
	}
}

// ring adds a circle's outline of width w centred on radius r.
func (b *batch) ring(cx, cy, r, w float64, c color.RGBA) {
	if r <= 0 || w <= 0 || c.A == 0 {
		return
	}
	n := segments(r)
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

// rect adds a filled axis-aligned rectangle.
func (b *batch) rect(x, y, w, h float64, c color.RGBA) {
	if w <= 0 || h <= 0 || c.A == 0 {
		return
	}
	i := b.vertex(x, y, c)
	b.vertex(x+w, y, c)
	b.vertex(x, y+h, c)
	b.vertex(x+w, y+h, c)
	b.is = append(b.is, i, i+1, i+2, i+1, i+3, i+2)
}

// flush draws everything collected onto dst and empties the batch.
func (b *batch) flush(dst *ebiten.Image, aa bool) {
	if len(b.is) > 0 {
		dst.DrawTriangles(b.vs, b.is, whitePixel, &ebiten.DrawTrianglesOptions{AntiAlias: aa})
	}
	b.vs, b.is = b.vs[:0], b.is[:0]
}
