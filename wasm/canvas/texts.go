//go:build js && wasm

package main

import (
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/wasm/labels"
)

// texts collects labels to draw after the shapes under them, so that the
// shapes go in one call; a label's image is looked up when drawn.
type texts struct {
	items []textItem
}

type textItem struct {
	dst  *ebiten.Image
	l    *labels.Cache
	s    string
	x, y float64
	c    color.RGBA
}

// put adds s, to be drawn onto dst with its top-left at (x, y), and
// returns its width.
func (t *texts) put(dst *ebiten.Image, l *labels.Cache, s string, x, y float64, c color.RGBA) float64 {
	img := l.Get(s, c)
	if img == nil {
		return 0
	}
	t.items = append(t.items, textItem{dst, l, s, x, y, c})
	return float64(img.Bounds().Dx())
}

// flush draws the labels in the order put and forgets them.
func (t *texts) flush() {
	for _, it := range t.items {
		img := it.l.Get(it.s, it.c)
		if img == nil {
			continue
		}
		op := &ebiten.DrawImageOptions{}
		op.GeoM.Translate(math.Round(it.x), math.Round(it.y))
		it.dst.DrawImage(img, op)
	}
	clear(t.items) // drop the images
	t.items = t.items[:0]
}
