// Package pdfcanvas is a gonum/plot vg.Canvas that writes PDF with fonts
// embedded from memory.
//
// gonum's own vg/vgpdf converts each TrueType font with fpdf.MakeFont, which
// reads and writes files in a temporary directory: under GOOS=js the browser
// has no file system and os.MkdirTemp fails, so PDF export panics there. It
// also encodes text in code page 1252, which has no Greek (ε, ρ, σ).
// This canvas instead hands the font bytes to fpdf.AddUTF8FontFromBytes:
// fpdf parses them in memory, embeds a subset of the glyphs used, and
// writes text as UTF-16, so no file is touched and every glyph of the font
// prints. Arcs are converted to cubic Béziers here, in the canvas's own
// coordinates, so their direction and start point are exact.
//
// Subset fonts are named as ISO 32000-1 §9.6.4 asks, a six-letter tag and
// the font's PostScript name ("ABCDEF+LiberationSerif"). A font fpdf cannot
// embed (CFF outlines, as Latin Modern's) is drawn as the glyphs' outlines.
// No transparency group is written unless something is transparent.
//
// Output is deterministic: the document dates are fixed (a figure is a
// function of its link, not of the time it was drawn) and fpdf's catalogs
// are sorted.
package pdfcanvas

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"image/png"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"headlab/plots/internal/outline"
)

// DPI is the nominal resolution of PDF drawing: lengths are in points.
const DPI = 72

// Epoch is the creation and modification date written into every PDF.
var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Info is the document information written into the PDF.
type Info struct {
	Title, Subject, Keywords, Creator string
}

// Canvas implements vg.Canvas on an fpdf document of one page.
type Canvas struct {
	doc   *fpdf.Fpdf
	w, h  vg.Length
	stack []context
	fonts map[string]bool // fpdf family names registered
	err   error
	imgs  int
	alpha float64 // the alpha last set, 1 at first

	// subsets holds, for each registered font, its PostScript name and the
	// runes drawn, for the subset's tag (see WriteTo).
	subsets  map[string]*subset
	outlines sfnt.Buffer
}

type subset struct {
	psName string
	runes  map[rune]bool
}

type context struct {
	color color.Color
	width vg.Length
}

// New returns a canvas of the given size (one page).
func New(w, h vg.Length) *Canvas {
	doc := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: w.Points(), Ht: h.Points()}})
	doc.SetCreationDate(epoch)
	doc.SetModificationDate(epoch)
	doc.SetCatalogSort(true)
	doc.SetCompression(true)
	doc.SetMargins(0, 0, 0)
	doc.SetAutoPageBreak(false, 0)
	doc.AddPage()
	c := &Canvas{doc: doc, w: w, h: h, stack: []context{{color: color.Black, width: 1}}, fonts: map[string]bool{}, alpha: 1, subsets: map[string]*subset{}}
	// fpdf's user space has its origin top left, y down; vg's bottom left,
	// y up.
	c.Push()
	c.Translate(vg.Point{X: 0, Y: h})
	c.Scale(1, -1)
	vg.Initialize(c)
	return c
}

// SetInfo sets the document's title, subject, keywords and creator.
func (c *Canvas) SetInfo(in Info) {
	c.doc.SetTitle(in.Title, true)
	c.doc.SetSubject(in.Subject, true)
	c.doc.SetKeywords(in.Keywords, true)
	c.doc.SetCreator(in.Creator, true)
}

func (c *Canvas) ctx() *context { return &c.stack[len(c.stack)-1] }

// Size returns the page size.
func (c *Canvas) Size() (w, h vg.Length) { return c.w, c.h }

// DPI returns the nominal resolution, 72.
func (c *Canvas) DPI() float64 { return DPI }

// SetLineWidth sets the width of stroked lines.
func (c *Canvas) SetLineWidth(w vg.Length) {
	c.ctx().width = w
	c.doc.SetLineWidth(w.Points())
}

// SetLineDash sets the dash pattern of stroked lines.
func (c *Canvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = d.Points()
	}
	c.doc.SetDashPattern(ds, offs.Points())
}

// SetColor sets the colour of strokes, fills and text.
func (c *Canvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	c.ctx().color = clr
	r, g, b, a := clr.RGBA()
	c.doc.SetFillColor(int(r>>8), int(g>>8), int(b>>8))
	c.doc.SetDrawColor(int(r>>8), int(g>>8), int(b>>8))
	c.doc.SetTextColor(int(r>>8), int(g>>8), int(b>>8))
	// An alpha only when something is transparent: fpdf's first alpha makes
	// the file PDF 1.4 with a page transparency group, which pdfTeX warns
	// about when two such figures share a page (and PDF/X forbids).
	if alpha := float64(a) / math.MaxUint16; alpha != 1 || c.alpha != 1 {
		c.doc.SetAlpha(alpha, "Normal")
		c.alpha = alpha
	}
}

// Rotate rotates by r radians, counter-clockwise in vg's coordinates.
func (c *Canvas) Rotate(r float64) { c.doc.TransformRotate(-r*180/math.Pi, 0, 0) }

// Translate moves the origin to pt.
func (c *Canvas) Translate(pt vg.Point) { c.doc.TransformTranslate(pt.X.Points(), pt.Y.Points()) }

// Scale scales by x and y.
func (c *Canvas) Scale(x, y float64) { c.doc.TransformScale(x*100, y*100, 0, 0) }

// Push saves the graphics state.
func (c *Canvas) Push() {
	c.stack = append(c.stack, *c.ctx())
	c.doc.TransformBegin()
}

// Pop restores the last saved graphics state.
func (c *Canvas) Pop() {
	if len(c.stack) <= 1 {
		return
	}
	c.doc.TransformEnd()
	c.stack = c.stack[:len(c.stack)-1]
}

// Stroke strokes p with the current line style.
func (c *Canvas) Stroke(p vg.Path) {
	if c.ctx().width > 0 {
		c.path(p, "D")
	}
}

// Fill fills p with the current colour.
func (c *Canvas) Fill(p vg.Path) { c.path(p, "F") }

func (c *Canvas) path(p vg.Path, style string) {
	var start vg.Point
	open := false
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			c.doc.MoveTo(pt(comp.Pos))
			start, open = comp.Pos, true
		case vg.LineComp:
			c.doc.LineTo(pt(comp.Pos))
		case vg.ArcComp:
			c.arc(comp, &open, &start)
		case vg.CurveComp:
			x, y := pt(comp.Pos)
			switch len(comp.Control) {
			case 1:
				cx, cy := pt(comp.Control[0])
				c.doc.CurveTo(cx, cy, x, y)
			case 2:
				cx, cy := pt(comp.Control[0])
				dx, dy := pt(comp.Control[1])
				c.doc.CurveBezierCubicTo(cx, cy, dx, dy, x, y)
			}
		case vg.CloseComp:
			c.doc.ClosePath()
			c.doc.MoveTo(pt(start))
		}
	}
	c.doc.DrawPath(style)
}

// arc appends a circular arc as cubic Béziers of at most 90° each.
func (c *Canvas) arc(comp vg.PathComp, open *bool, start *vg.Point) {
	r := float64(comp.Radius)
	cx, cy := float64(comp.Pos.X), float64(comp.Pos.Y)
	t0, sweep := comp.Start, comp.Angle
	p0 := vg.Point{X: vg.Length(cx + r*math.Cos(t0)), Y: vg.Length(cy + r*math.Sin(t0))}
	if *open {
		c.doc.LineTo(pt(p0))
	} else {
		c.doc.MoveTo(pt(p0))
		*start, *open = p0, true
	}
	n := int(math.Ceil(math.Abs(sweep) / (math.Pi / 2)))
	if n < 1 {
		n = 1
	}
	d := sweep / float64(n)
	k := 4.0 / 3 * math.Tan(d/4)
	for i := 0; i < n; i++ {
		a, b := t0+float64(i)*d, t0+float64(i+1)*d
		sa, ca := math.Sincos(a)
		sb, cb := math.Sincos(b)
		x1, y1 := cx+r*(ca-k*sa), cy+r*(sa+k*ca)
		x2, y2 := cx+r*(cb+k*sb), cy+r*(sb-k*cb)
		x3, y3 := cx+r*cb, cy+r*sb
		c.doc.CurveBezierCubicTo(x1, y1, x2, y2, x3, y3) // vg.Length is in points
	}
}

func pt(p vg.Point) (float64, float64) { return p.X.Points(), p.Y.Points() }

// family returns the fpdf font family name of a face, registering the
// face's TrueType bytes on first use; "" for a font fpdf cannot embed
// (CFF outlines, as Latin Modern's), whose text is drawn as outlines.
//
// fpdf names an embedded font "utf8" + the family; the family is chosen as
// "hlb" + the font's PostScript name, so that WriteTo can replace that name
// with the subset tag and the PostScript name ("ABCDEF+LiberationSerif",
// ISO 32000-1 §9.6.4) without changing the file's length.
func (c *Canvas) family(f font.Face) string {
	var buf sfnt.Buffer
	ps, err := f.Face.Name(&buf, sfnt.NameIDPostScript)
	if err != nil || ps == "" {
		ps = strings.NewReplacer(" ", "", "-", "").Replace(f.Name())
	}
	name := "hlb" + ps
	if _, ok := c.subsets[name]; ok {
		if c.fonts[name] {
			return name
		}
		return "" // seen before, not embeddable
	}
	c.subsets[name] = &subset{psName: ps, runes: map[rune]bool{}}
	var raw bytes.Buffer
	if _, err := f.Face.WriteSourceTo(nil, &raw); err != nil {
		c.setErr(fmt.Errorf("pdfcanvas: font %s: %w", f.Name(), err))
		return ""
	}
	if bytes.HasPrefix(raw.Bytes(), []byte("OTTO")) {
		return "" // CFF: fpdf reads TrueType outlines only
	}
	c.doc.AddUTF8FontFromBytes(name, "", raw.Bytes())
	c.fonts[name] = true
	return name
}

func (c *Canvas) setErr(err error) {
	if c.err == nil {
		c.err = err
	}
}

// FillString draws str with its baseline's left end at p.
func (c *Canvas) FillString(f font.Face, p vg.Point, str string) {
	if f.Font.Size == 0 || str == "" {
		return
	}
	fam := c.family(f)
	if c.err != nil {
		return
	}
	if fam == "" {
		path, err := outline.Path(&c.outlines, f, p, str)
		if err != nil {
			c.setErr(fmt.Errorf("pdfcanvas: %w", err))
			return
		}
		if len(path) > 0 {
			c.Fill(path)
		}
		return
	}
	for _, r := range str {
		c.subsets[fam].runes[r] = true
	}
	c.doc.SetFont(fam, "", f.Font.Size.Points())
	c.Push()
	c.Translate(p)
	c.Scale(1, -1) // text upright again
	c.doc.Text(0, 0, str)
	c.Pop()
}

// DrawImage draws img in rect (as a PNG inside the PDF).
func (c *Canvas) DrawImage(rect vg.Rectangle, img image.Image) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		c.setErr(fmt.Errorf("pdfcanvas: image: %w", err))
		return
	}
	c.imgs++
	name := fmt.Sprintf("image%03d", c.imgs)
	opt := fpdf.ImageOptions{ImageType: "png", ReadDpi: true}
	c.doc.RegisterImageOptionsReader(name, opt, &buf)
	w, h := pt(rect.Size())
	c.Push()
	c.Translate(vg.Point{X: rect.Min.X, Y: rect.Min.Y + rect.Size().Y})
	c.Scale(1, -1)
	c.doc.ImageOptions(name, 0, 0, w, h, false, opt, 0, "")
	c.Pop()
}

// WriteTo closes the document and writes it to w. The canvas cannot be used
// afterwards.
func (c *Canvas) WriteTo(w io.Writer) (int64, error) {
	if c.err != nil {
		return 0, c.err
	}
	for len(c.stack) > 1 {
		c.Pop()
	}
	c.doc.Close()
	if err := c.doc.Error(); err != nil {
		return 0, fmt.Errorf("pdfcanvas: %w", err)
	}
	var out bytes.Buffer
	if err := c.doc.Output(&out); err != nil {
		return 0, fmt.Errorf("pdfcanvas: %w", err)
	}
	b := out.Bytes()
	// Longest names first: one may be the start of another
	// (LiberationSerif, LiberationSerif-Italic).
	fams := slices.Collect(maps.Keys(c.fonts))
	slices.SortFunc(fams, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	for _, fam := range fams {
		sub := c.subsets[fam]
		old := []byte("/utf8" + strings.ToLower(fam)) // fpdf's key for the family
		tagged := []byte("/" + sub.tag() + "+" + sub.psName)
		if len(old) != len(tagged) {
			return 0, fmt.Errorf("pdfcanvas: font name %s and its tag differ in length", fam)
		}
		b = bytes.ReplaceAll(b, old, tagged)
	}
	n, err := w.Write(b)
	return int64(n), err
}

// tag is the subset's six-letter tag, a function of the font and the
// characters drawn (so equal subsets have equal tags, different ones
// differ).
func (s *subset) tag() string {
	runes := make([]rune, 0, len(s.runes))
	for r := range s.runes {
		runes = append(runes, r)
	}
	slices.Sort(runes)
	h := fnv.New64a()
	h.Write([]byte(s.psName))
	h.Write([]byte(string(runes)))
	v := h.Sum64()
	var t [6]byte
	for i := range t {
		t[i] = byte('A' + v%26)
		v /= 26
	}
	return string(t[:])
}
