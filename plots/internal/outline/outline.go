// Package outline turns text into the outlines of its glyphs, read from
// the TrueType or CFF font with golang.org/x/image's sfnt, for canvases that
// draw text as paths: headlab's SVG (any renderer draws it the same, no font
// installed) and its PDF in a typeface the PDF writer cannot embed.
package outline

import (
	"fmt"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// Path returns the outlines of str set in f with its baseline's left
// end at p, in canvas coordinates (y up), each glyph advancing by its
// advance width without kerning, as a PDF's text is set.
func Path(buf *sfnt.Buffer, f font.Face, p vg.Point, str string) (vg.Path, error) {
	fnt := f.Face
	upem := fixed.Int26_6(fnt.UnitsPerEm())
	// Outlines are loaded at ppem = units per em (in 26.6 units), exact
	// font units, then scaled to the size.
	scale := float64(f.Font.Size.Points()) / float64(upem)
	var path vg.Path
	x := 0.0 // in font units
	for _, r := range str {
		idx, err := fnt.GlyphIndex(buf, r)
		if err != nil {
			return nil, fmt.Errorf("outline: glyph of %q: %w", r, err)
		}
		segs, err := fnt.LoadGlyph(buf, idx, upem, nil)
		if err != nil {
			return nil, fmt.Errorf("outline: outline of %q: %w", r, err)
		}
		pt := func(q fixed.Point26_6) vg.Point {
			// sfnt's y grows downwards.
			return vg.Point{X: p.X + vg.Length((x+float64(q.X))*scale), Y: p.Y - vg.Length(float64(q.Y)*scale)}
		}
		open := false
		for _, s := range segs {
			switch s.Op {
			case sfnt.SegmentOpMoveTo:
				if open {
					path.Close()
				}
				path.Move(pt(s.Args[0]))
				open = true
			case sfnt.SegmentOpLineTo:
				path.Line(pt(s.Args[0]))
			case sfnt.SegmentOpQuadTo:
				path.QuadTo(pt(s.Args[0]), pt(s.Args[1]))
			case sfnt.SegmentOpCubeTo:
				path.CubeTo(pt(s.Args[0]), pt(s.Args[1]), pt(s.Args[2]))
			}
		}
		if open {
			path.Close()
		}
		adv, err := fnt.GlyphAdvance(buf, idx, upem, 0)
		if err != nil {
			return nil, fmt.Errorf("outline: advance of %q: %w", r, err)
		}
		x += float64(adv)
	}
	return path, nil
}
