//go:build js && wasm

// Package labels renders short strings once, in the Go font through
// x/image/font, and keeps their images for ebiten to draw: the canvas's
// labels, and the drag benchmark's floor page's the same way.
package labels

import (
	"image"
	"image/color"
	"image/draw"

	"github.com/hajimehoshi/ebiten/v2"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Cache renders short strings once with x/image/font and keeps them as
// images. ebiten's text/v2 would pull in a text shaper that adds ~0.3 MB
// (brotli) to the first download; the canvas only needs a few labels.
// The zero Cache draws nothing until SetSize.
type Cache struct {
	face  font.Face
	size  float64
	cache map[labelKey]*ebiten.Image
}

type labelKey struct {
	s string
	c color.RGBA
}

// maxLabels bounds the cache; past it the cache starts afresh.
const maxLabels = 512

// SetSize sets the font size in pixels, forgetting every image made at
// another size.
func (l *Cache) SetSize(size float64) {
	if l.face != nil && l.size == size {
		return
	}
	for _, img := range l.cache {
		img.Deallocate()
	}
	l.cache = map[labelKey]*ebiten.Image{}
	l.size = size
	l.face = nil
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return
	}
	l.face = face
}

// Get returns the label's image in colour c, its top-left at the text's
// top (nil before SetSize, or for the empty string).
func (l *Cache) Get(s string, c color.RGBA) *ebiten.Image {
	if l.face == nil || s == "" {
		return nil
	}
	k := labelKey{s, c}
	if img, ok := l.cache[k]; ok {
		return img
	}
	if len(l.cache) >= maxLabels {
		for _, img := range l.cache {
			img.Deallocate()
		}
		l.cache = map[labelKey]*ebiten.Image{}
	}
	m := l.face.Metrics()
	w := font.MeasureString(l.face, s).Ceil() + 2
	h := (m.Ascent + m.Descent).Ceil() + 2
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	d := font.Drawer{Dst: rgba, Src: image.NewUniform(c), Face: l.face, Dot: fixed.Point26_6{X: fixed.I(1), Y: m.Ascent + fixed.I(1)}}
	draw.Draw(rgba, rgba.Bounds(), image.Transparent, image.Point{}, draw.Src)
	d.DrawString(s)
	img := ebiten.NewImageFromImage(rgba)
	l.cache[k] = img
	return img
}

// Width is the width of s in the cache's type, in pixels (0 before
// SetSize): the width of its image.
func (l *Cache) Width(s string) float64 {
	if l.face == nil {
		return 0
	}
	return float64(font.MeasureString(l.face, s).Ceil() + 2)
}

// LineHeight is the height of a line of the cache's type, in pixels (0
// before SetSize): the height of a label's image.
func (l *Cache) LineHeight() float64 {
	if l.face == nil {
		return 0
	}
	m := l.face.Metrics()
	return float64((m.Ascent + m.Descent).Ceil() + 2)
}
