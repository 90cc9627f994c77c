package plots

import (
	"bytes"
	"fmt"
	"strings"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgtex"
)

// texCanvas is gonum's PGF canvas (vgtex); the label handler (markup)
// writes each label whole, as LaTeX (TeXLabel), so that the paper's LaTeX
// sets it in the paper's fonts, anchored where the label's alignment puts
// it: left, centre or right, at the baseline the layout chose.
type texCanvas struct {
	*vgtex.Canvas
}

// lineTeX writes a line of a label to a TeX canvas (markup.Draw places
// it: x is where the line starts, w its width in the layout's font, y its
// baseline): one \pgftext whose content is a zero-width box aligned left,
// centred or right on the anchor, so the alignment is exact whatever the
// widths LaTeX's fonts give. vgtex centres the text it is given on
// p.X + Width/2 (Width measured in the layout's font), so p.X is set to
// anchor − Width/2.
func (m markup) lineTeX(c *texCanvas, line string, sty text.Style, x, w, y vg.Length) {
	align, anchor := "l", x
	switch {
	case sty.XAlign <= -0.75:
		align, anchor = "r", x+w
	case sty.XAlign <= -0.25:
		align, anchor = "c", x+w/2
	}
	face := m.fonts.Lookup(sty.Font, sty.Font.Size)
	s := `\makebox[0pt][` + align + `]{` + TeXLabel(line) + `}`
	c.FillString(face, vg.Point{X: anchor - face.Width(s)/2, Y: y}, s)
}

// texHeader is written before a figure's PGF code: what it is, the link
// it was made from and how to use it.
func texHeader(f Figure) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%% headlab figure: %s\n", oneLine(Plain(f.Title)))
	if f.Replay != "" {
		fmt.Fprintf(&b, "%% replay of the run log %s\n", oneLine(f.Replay))
	}
	if f.Link != "" {
		fmt.Fprintf(&b, "%% link: %s\n", oneLine(f.Link))
		fmt.Fprintf(&b, "%% regenerate: %s -link '%s' -format tex\n", Command, oneLine(f.Link))
	}
	b.WriteString("% Use: \\usepackage{pgf} in the preamble, then \\input{this file} (in a figure).\n")
	b.WriteString("% The labels are set by the document's LaTeX, in its fonts.\n")
	return b.Bytes()
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }
