package plots

import (
	"math"
	"strings"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// markup is a text handler for figure labels with a tiny markup: ^{…} sets
// its contents as a superscript, _{…} as a subscript, and *…* toggles
// italics (for variables: *d*, *H*, *ε*). Anything else, unmatched braces
// included, is drawn as it is, so no label can make it fail. gonum/plot's
// LaTeX handler would be the obvious choice but its parser panics on '|' and
// has no superscripts, and Liberation Serif lacks ⁹ and ⁻.
type markup struct {
	fonts *font.Cache
}

var _ text.Handler = markup{}

// run is a piece of a line in one font style.
type run struct {
	s        string
	italic   bool
	shift    int // +1 superscript, −1 subscript
	fontSize vg.Length
}

const scriptScale = 0.7

func (m markup) Cache() *font.Cache { return m.fonts }

func (m markup) Extents(fnt font.Font) font.Extents {
	f := m.fonts.Lookup(fnt, fnt.Size)
	return f.Extents()
}

func (m markup) Lines(txt string) []string {
	return strings.Split(strings.TrimRight(txt, "\n"), "\n")
}

// parse splits one line into runs.
func parse(line string) []run {
	var runs []run
	var b strings.Builder
	italic := false
	shift := 0
	flush := func() {
		if b.Len() > 0 {
			runs = append(runs, run{s: b.String(), italic: italic, shift: shift})
			b.Reset()
		}
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case (r == '^' || r == '_') && shift == 0 && i+1 < len(rs) && rs[i+1] == '{' && strings.ContainsRune(string(rs[i+2:]), '}'):
			flush()
			if r == '^' {
				shift = 1
			} else {
				shift = -1
			}
			i++
		case r == '}' && shift != 0:
			flush()
			shift = 0
		case r == '*':
			flush()
			italic = !italic
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return runs
}

func (m markup) face(fnt font.Font, r run) font.Face {
	f := fnt
	if r.italic {
		f.Style = stdfont.StyleItalic
	}
	size := fnt.Size
	if r.shift != 0 {
		size = fnt.Size * scriptScale
	}
	f.Size = size
	return m.fonts.Lookup(f, size)
}

// offset is the baseline shift of a run.
func offset(fnt font.Font, r run) vg.Length {
	switch r.shift {
	case 1:
		return fnt.Size * 0.38
	case -1:
		return -fnt.Size * 0.18
	}
	return 0
}

func (m markup) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	ext := m.Extents(fnt)
	height, depth = ext.Ascent, ext.Descent
	for _, r := range parse(txt) {
		f := m.face(fnt, r)
		width += f.Width(r.s)
		e := f.Extents()
		off := offset(fnt, r)
		height = vg.Length(math.Max(float64(height), float64(e.Ascent+off)))
		depth = vg.Length(math.Max(float64(depth), float64(e.Descent-off)))
	}
	return width, height, depth
}

func (m markup) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if txt == "" {
		return
	}
	ext := m.Extents(sty.Font)
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}
	sin64, cos64 := math.Sincos(sty.Rotation)
	cos, sin := vg.Length(cos64), vg.Length(sin64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin

	lines := m.Lines(txt)
	pt.Y += sty.Height(txt)*vg.Length(sty.YAlign) - ext.Ascent
	for i, line := range lines {
		runs := parse(line)
		w, _, _ := m.Box(line, sty.Font)
		x := pt.X + vg.Length(sty.XAlign)*w
		y := pt.Y + vg.Length(len(lines)-i)*sty.Font.Size
		for _, r := range runs {
			f := m.face(sty.Font, r)
			c.FillString(f, vg.Point{X: x, Y: y + offset(sty.Font, r)}, r.s)
			x += f.Width(r.s)
		}
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}
