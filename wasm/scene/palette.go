package scene

import (
	"image/color"

	"headlab/plots/palette"
)

// HeadColors is the Okabe–Ito palette, safe for the common forms of colour
// blindness, shared with the figures (package palette); head h (0-based) is
// drawn in HeadColors[h%8]. Heads are also told apart by dash pattern and
// label, never by colour alone.
var HeadColors = palette.Heads()

// Theme holds the colours of the canvas for one colour scheme.
type Theme struct {
	Background, Grid, Axis, Token, Query, Text color.RGBA
	// Diverging ends of the heat map (negative, positive scores).
	Cold, Hot color.RGBA
	Dark      bool
}

// Light and Dark are the canvas themes.
var (
	Light = Theme{
		Background: color.RGBA{0xff, 0xff, 0xff, 0xff}, Grid: color.RGBA{0xe6, 0xe6, 0xe6, 0xff},
		Axis: color.RGBA{0xb0, 0xb0, 0xb0, 0xff}, Token: color.RGBA{0x33, 0x33, 0x33, 0xff},
		Query: color.RGBA{0xc0, 0x1c, 0x28, 0xff}, Text: color.RGBA{0x1a, 0x1a, 0x1a, 0xff},
		Cold: color.RGBA{0x43, 0x93, 0xc3, 0xff}, Hot: color.RGBA{0xd6, 0x60, 0x4d, 0xff},
	}
	Dark = Theme{
		Background: color.RGBA{0x16, 0x18, 0x1d, 0xff}, Grid: color.RGBA{0x2a, 0x2e, 0x36, 0xff},
		Axis: color.RGBA{0x55, 0x5b, 0x66, 0xff}, Token: color.RGBA{0xe8, 0xe8, 0xe8, 0xff},
		Query: color.RGBA{0xff, 0x6b, 0x6b, 0xff}, Text: color.RGBA{0xee, 0xee, 0xee, 0xff},
		Cold: color.RGBA{0x43, 0x93, 0xc3, 0xff}, Hot: color.RGBA{0xd6, 0x60, 0x4d, 0xff},
		Dark: true,
	}
)

// HeadColor returns head h's colour in theme t.
func (t Theme) HeadColor(h int) color.RGBA {
	c := HeadColors[h%len(HeadColors)]
	if t.Dark && h%len(HeadColors) == 7 {
		return color.RGBA{0xff, 0xff, 0xff, 0xff}
	}
	return c
}

// HeatCell is the heat map's cell size in CSS pixels: the canvas computes
// the field on that grid and scales the image up with linear filtering,
// which is smooth because the score is linear.
const HeatCell = 8

// Heat returns the heat-map colour of a score s relative to the largest
// magnitude m on screen: white (or the background) at 0, Cold below, Hot above,
// with alpha so that tokens stay readable.
func (t Theme) Heat(s, m float64) color.RGBA {
	if m <= 0 || s != s {
		return color.RGBA{}
	}
	f := s / m
	if f > 1 {
		f = 1
	} else if f < -1 {
		f = -1
	}
	c := t.Hot
	if f < 0 {
		c, f = t.Cold, -f
	}
	a := f * 0.55
	// Premultiplied alpha, as ebiten expects.
	return color.RGBA{uint8(float64(c.R) * a), uint8(float64(c.G) * a), uint8(float64(c.B) * a), uint8(255 * a)}
}
