//go:build js && wasm

package main

import (
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/wasm/labels"
	"headlab/wasm/scene"
)

// The drawing helpers every renderer shares: the muted and accent
// colours, text measured and wrapped, numbers formatted for a label, and
// the sub-image a panel draws into.

// muted is the colour of secondary text.
func muted(th scene.Theme) color.RGBA {
	if th.Dark {
		return color.RGBA{0xa9, 0xb0, 0xbc, 0xff}
	}
	return color.RGBA{0x55, 0x5b, 0x66, 0xff}
}

// accent is the colour of what a plot is about: the fitted curve, a bar
// filled so far, the sweep's medians.
func accent(th scene.Theme) color.RGBA {
	if th.Dark {
		return color.RGBA{0x6c, 0xb8, 0xff, 0xff}
	}
	return color.RGBA{0x00, 0x62, 0xa3, 0xff}
}

// mix returns a blended towards b by f (0…1).
func mix(a, b color.RGBA, f float64) color.RGBA {
	f = math.Max(0, math.Min(1, f))
	m := func(x, y uint8) uint8 { return uint8(float64(x)*(1-f) + float64(y)*f + 0.5) }
	return color.RGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 0xff}
}

// wrapChars splits s into lines of at most n characters.
func wrapChars(s string, n int) []string {
	return scene.Wrap(s, func(line string) bool { return len([]rune(line)) <= n })
}

// wrapWidth splits s into lines no wider than w in l's type.
func wrapWidth(l *labels.Cache, s string, w float64) []string {
	return scene.Wrap(s, func(line string) bool { return l.Width(line) <= w })
}

// clip returns the sub-image of img a panel at rc draws into (grown by
// margin pixels right and below): same coordinates, but what does not
// fit is cut at the panel's edge.
func clip(img *ebiten.Image, rc scene.Rect, margin int) *ebiten.Image {
	return img.SubImage(rc.Pixels(margin)).(*ebiten.Image)
}

func finite(x float64) bool { return x-x == 0 }
