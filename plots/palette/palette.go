// Package palette holds the head colours that headlab's canvas and its
// figures share: the Okabe–Ito palette, safe for the common forms of colour
// blindness, in the order heads are coloured, so that head h has the same
// colour on the page and in a paper. The page's HTML reads it from
// web/static/palette.js, which the package's tests write from Heads and
// keep equal.
package palette

import "image/color"

// Heads returns the eight head colours; head h (0-based) takes
// Heads()[h%8].
func Heads() [8]color.RGBA {
	return [8]color.RGBA{
		{0x00, 0x72, 0xB2, 0xff}, // blue
		{0xE6, 0x9F, 0x00, 0xff}, // orange
		{0x00, 0x9E, 0x73, 0xff}, // bluish green
		{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
		{0x56, 0xB4, 0xE9, 0xff}, // sky blue
		{0xD5, 0x5E, 0x00, 0xff}, // vermillion
		{0xF0, 0xE4, 0x42, 0xff}, // yellow
		{0x00, 0x00, 0x00, 0xff}, // black
	}
}

// Head returns head h's colour (0-based), the palette repeating after
// eight heads.
func Head(h int) color.RGBA {
	hs := Heads()
	return hs[((h%len(hs))+len(hs))%len(hs)]
}

// UnitHead returns the index of the head colour in which unit k of the
// Transformer scene is drawn, on the canvas and in the figures: the heads'
// first colours last, and yellow (too light on white for a thin line) left
// out, repeating after seven units.
func UnitHead(k int) int {
	order := [...]int{5, 2, 3, 4, 1, 0, 7}
	return order[((k%len(order))+len(order))%len(order)]
}
