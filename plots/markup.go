package plots

import (
	"math"
	"regexp"
	"strings"

	stdfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// markup is a text handler for figure labels with a tiny markup: ^{…} sets
// its contents as a superscript, _{…} as a subscript, and *…* toggles
// italics (for variables: *d*, *H*, *ε*). Anything else, unmatched braces
// included, is drawn as it is, so no label can make it fail. gonum/plot's
// LaTeX handler would be the obvious choice but its parser panics on '|' and
// has no superscripts, and Liberation Serif lacks ⁹ and ⁻.
type markup struct {
	fonts *font.Cache
	widen float64 // widths are measured × widen (0: 1); see texWiden
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
		size = max(fnt.Size*scriptScale, vg.Points(MinTextSize))
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
		width += advance(f, r.s)
		e := f.Extents()
		off := offset(fnt, r)
		height = vg.Length(math.Max(float64(height), float64(e.Ascent+off)))
		depth = vg.Length(math.Max(float64(depth), float64(e.Descent-off)))
	}
	if m.widen > 0 {
		width *= vg.Length(m.widen)
	}
	return width, height, depth
}

func (m markup) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if txt == "" {
		return
	}
	tc, tex := underlying(c).(*texCanvas)
	if tex {
		c = tc
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
		w, _, _ := m.Box(line, sty.Font)
		x := pt.X + vg.Length(sty.XAlign)*w
		y := pt.Y + vg.Length(len(lines)-i)*sty.Font.Size
		if tex {
			m.lineTeX(tc, line, sty, x, w, y)
			continue
		}
		for _, r := range parse(line) {
			f := m.face(sty.Font, r)
			c.FillString(f, vg.Point{X: x, Y: y + offset(sty.Font, r)}, r.s)
			x += advance(f, r.s)
		}
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}

// subscripted matches a one-letter name with a numeric index, such as M_11,
// z_4 or u_1 in the names of rational functions ("RF(z_4, u_1+u_4)").
var subscripted = regexp.MustCompile(`\b([A-Za-z])_([0-9]+)\b`)

// labelName writes the names of a rational function (M_21, RF(z_4,
// u_1+u_4)) in the label markup: italic letters with subscript indices.
func labelName(name string) string {
	return subscripted.ReplaceAllString(name, "*$1*_{$2}")
}

// Plain returns a label in the markup as plain Unicode text, for metadata
// (an SVG's <title>, a PDF's Title, a PNG's iTXt chunks): italics dropped,
// scripts as Unicode super- and subscript characters where every character
// of the script has one (W_{10} → W₁₀, 2^{d} → 2ᵈ), else as _(…) or ^(…).
func Plain(label string) string {
	var b strings.Builder
	for _, r := range parse(label) {
		switch r.shift {
		case 0:
			b.WriteString(r.s)
		case 1:
			b.WriteString(scriptChars(r.s, superscripts, "^"))
		case -1:
			b.WriteString(scriptChars(r.s, subscripts, "_"))
		}
	}
	return b.String()
}

func scriptChars(s string, table map[rune]rune, mark string) string {
	var b strings.Builder
	for _, r := range s {
		c, ok := table[r]
		if !ok {
			if len([]rune(s)) == 1 {
				return mark + s
			}
			return mark + "(" + s + ")"
		}
		b.WriteRune(c)
	}
	return b.String()
}

var (
	superscripts = map[rune]rune{'0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹',
		'+': '⁺', '−': '⁻', '-': '⁻', '(': '⁽', ')': '⁾', 'd': 'ᵈ', 'H': 'ᴴ', 'n': 'ⁿ', 'i': 'ⁱ', 'm': 'ᵐ', 'k': 'ᵏ'}
	subscripts = map[rune]rune{'0': '₀', '1': '₁', '2': '₂', '3': '₃', '4': '₄', '5': '₅', '6': '₆', '7': '₇', '8': '₈', '9': '₉',
		'+': '₊', '−': '₋', '-': '₋', '(': '₍', ')': '₎', 'h': 'ₕ', 'i': 'ᵢ', 'j': 'ⱼ', 'k': 'ₖ', 'n': 'ₙ', 'm': 'ₘ'}
)

// TeXLabel returns a label in the markup as LaTeX source: italic runs and
// scripts in math mode, Greek and the other symbols as their commands,
// TeX's special characters escaped, so the paper's LaTeX sets the label in
// its own fonts.
func TeXLabel(label string) string {
	var b strings.Builder
	for _, r := range parse(label) {
		math := r.italic || r.shift != 0
		body := texChars(r.s, math)
		if !r.italic && r.shift != 0 {
			body = `\mathrm{` + body + `}`
		}
		switch {
		case r.shift == 1:
			b.WriteString(`\ensuremath{^{` + body + `}}`)
		case r.shift == -1:
			b.WriteString(`\ensuremath{_{` + body + `}}`)
		case r.italic:
			b.WriteString(`\ensuremath{` + body + `}`)
		default:
			b.WriteString(body)
		}
	}
	return b.String()
}

// texChars escapes s for LaTeX, in math mode when math is set.
func texChars(s string, math bool) string {
	var b strings.Builder
	for _, r := range s {
		if cmd, ok := texSymbols[r]; ok {
			if math {
				b.WriteString(cmd + " ")
			} else {
				b.WriteString(`\ensuremath{` + cmd + `}`)
			}
			continue
		}
		switch r {
		case '#', '$', '%', '&', '_', '{', '}':
			b.WriteString(`\` + string(r))
		case '~':
			b.WriteString(`\textasciitilde{}`)
		case '^':
			b.WriteString(`\textasciicircum{}`)
		case '\\':
			b.WriteString(`\textbackslash{}`)
		case ' ':
			if math {
				b.WriteString(`\ `)
			} else {
				b.WriteByte(' ')
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// texSymbols are the non-ASCII characters the labels use, as LaTeX math.
var texSymbols = map[rune]string{
	'α': "\\alpha", 'β': "\\beta", 'γ': "\\gamma", 'δ': "\\delta", 'ε': "\\varepsilon", 'η': "\\eta",
	'θ': "\\theta", 'λ': "\\lambda", 'μ': "\\mu", 'ρ': "\\rho", 'σ': "\\sigma", 'φ': "\\varphi",
	'Λ': "\\Lambda", 'Σ': "\\Sigma", 'Δ': "\\Delta",
	'−': "-", '·': "\\cdot", '×': "\\times", '≤': "\\le", '≥': "\\ge", '∞': "\\infty", '±': "\\pm",
	'|': "|", '…': "\\ldots", '≈': "\\approx",
}

// underlying returns the canvas under gonum's draw.Canvas wrappers.
func underlying(c vg.Canvas) vg.Canvas {
	for {
		switch dc := c.(type) {
		case draw.Canvas:
			c = dc.Canvas
		case *draw.Canvas:
			c = dc.Canvas
		default:
			return c
		}
	}
}

// advance is the width of s set in f without kerning, as the PDF writer
// sets it (fpdf places glyphs by their advances) and so the SVG's outlines
// (package outline): the layout, the PDF and the SVG agree.
func advance(f font.Face, s string) vg.Length {
	var buf sfnt.Buffer
	upem := fixed.Int26_6(f.Face.UnitsPerEm())
	w := 0
	for _, r := range s {
		idx, err := f.Face.GlyphIndex(&buf, r)
		if err != nil {
			continue
		}
		a, err := f.Face.GlyphAdvance(&buf, idx, upem, 0)
		if err == nil {
			w += int(a)
		}
	}
	return f.Font.Size * vg.Length(w) / vg.Length(upem)
}
