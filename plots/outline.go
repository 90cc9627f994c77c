package plots

import (
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"

	"headlab/plots/internal/outline"
)

// outlineSVG is gonum's SVG canvas with text drawn as the glyphs' outlines,
// read from the same TrueType font the PDF embeds (golang.org/x/image's
// sfnt), so that every renderer draws an SVG's text the same, with no font
// installed: the SVG is the PDF, as matplotlib's default SVG is. Measured
// against vgsvg's own option of embedding the fonts (base64 @font-face),
// outlines are smaller (only the glyphs drawn, not whole fonts) and librsvg,
// which ignores @font-face, draws them at all; see FIGURES.md.
type outlineSVG struct {
	*vgsvg.Canvas
	buf sfnt.Buffer
	err error
}

// FillString draws str's glyphs as filled paths, the baseline's left end
// at p, each glyph advancing by its advance width, as the PDF sets text.
func (c *outlineSVG) FillString(f font.Face, p vg.Point, str string) {
	path, err := outline.Path(&c.buf, f, p, str)
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		return
	}
	if len(path) > 0 {
		c.Fill(path)
	}
}
