package plots

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"hash/crc32"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
	"gonum.org/v1/plot/vg/vgtex"

	"headlab/plots/internal/pdfcanvas"
	"headlab/web/link"
)

// Command is the command line that regenerates a figure from its link
// (plots/cmd/figures, run from a checkout); every file a figure is written
// to names it beside the link.
const Command = "go run ./plots/cmd/figures"

// Format is a figure file format.
type Format string

// The formats Render writes, and CSV, the data behind a figure (WriteCSV).
const (
	SVG Format = "svg"
	PDF Format = "pdf"
	PNG Format = "png"
	// TeX is PGF code (gonum's vgtex) for \input in a LaTeX document
	// that loads pgf: the labels are set by the paper's LaTeX in its fonts.
	TeX Format = "tex"
	CSV Format = "csv"
)

// Formats lists the formats, in the order the page offers them.
var Formats = []Format{SVG, PDF, PNG, TeX, CSV}

// MIME returns the format's media type.
func (f Format) MIME() string {
	switch f {
	case SVG:
		return "image/svg+xml"
	case PDF:
		return "application/pdf"
	case PNG:
		return "image/png"
	case TeX:
		return "application/x-tex"
	case CSV:
		return "text/csv"
	}
	return "application/octet-stream"
}

// Size is a width preset (see Presets) or a width in inches such as
// "4.5in".
type Size string

// The historical presets, one column (3.25 in) and the full text width
// (6.75 in) of a two-column paper, ICML's; the names links and scripts
// already use.
const (
	OneColumn Size = "one"
	TwoColumn Size = "two"
)

// Venue is a LaTeX class or style file and the widths it sets, in TeX
// points (1/72.27 in) as \the\columnwidth and \the\textwidth print them.
type Venue struct {
	// Name names the venue in the presets' descriptions.
	Name string
	// Class and Options are the \documentclass that sets the widths, for a
	// class Debian ships (texlive-publishers), which TestVenueWidths
	// compiles; empty for a style file Debian does not ship.
	Class, Options string
	// Source is the file and version the widths were read from.
	Source string
	// Column and Text are \columnwidth and \textwidth in TeX points.
	Column, Text float64
}

// TwoColumns reports whether the venue sets two columns.
func (v Venue) TwoColumns() bool { return v.Column < v.Text }

// Venues returns the venues the presets are measured from, the one table
// of their widths. The classes Debian ships were read with pdflatex (TeX
// Live 2022) from \the\columnwidth and \the\textwidth in the body of an
// article; the style files from their own \setlength lines.
func Venues() []Venue {
	return []Venue{
		{Name: "ACM acmart", Class: "acmart", Options: "sigconf", Source: "acmart.cls 2022/10/24 v1.88, sigconf", Column: 241.14749, Text: 506.295},
		{Name: "IEEEtran", Class: "IEEEtran", Options: "conference", Source: "IEEEtran.cls 2015/08/26 V1.8b, conference", Column: 252, Text: 516},
		// icml2024.sty (2023/11/23 v2.0): \textwidth 6.75in, \columnsep
		// 0.25in, two columns; it checks \textwidth=487.8225pt itself.
		{Name: "ICML", Source: "icml2024.sty 2023/11/23 v2.0", Column: 234.8775, Text: 487.8225},
		// neurips_2024.sty (2024/03/31): geometry textwidth=5.5in, one
		// column; iclr2024_conference.sty: \textwidth 5.5 true in.
		{Name: "NeurIPS and ICLR", Source: "neurips_2024.sty 2024/03/31, iclr2024_conference.sty", Column: 397.48499, Text: 397.48499},
		{Name: "Springer LNCS", Class: "llncs", Source: "llncs.cls 2022/09/05 v2.22", Column: 347.12354, Text: 347.12354},
	}
}

// Part is the width of a venue a preset takes.
type Part string

// The parts: a column, the text width (a figure* in two columns), and for
// single-column venues a half width, 0.49\textwidth, for two figures side
// by side.
const (
	PartColumn Part = "column"
	PartText   Part = "text width"
	PartHalf   Part = "half width"
)

// HalfShare is a half width's share of the text width.
const HalfShare = 0.49

// Preset is a named figure width: a part of a venue's text.
type Preset struct {
	Name  Size
	Venue Venue
	Part  Part
	// Doc describes the preset, the venue and its width.
	Doc string
	// Points is the width in TeX points (1/72.27 in), the venue's own.
	Points float64
}

// Width returns the preset's width for the figure: TeX points converted to
// PostScript points (1/72 in, vg's unit), rounded down to 1/100 pt, the
// precision a PDF's MediaBox is written to, so that a figure placed at its
// natural size is never wider than the column.
func (p Preset) Width() vg.Length {
	bp := p.Points * 72 / 72.27
	return vg.Length(math.Floor(bp*100+1e-6) / 100)
}

// Presets returns the width presets: a column and the text width of the
// venues of Venues; for single-column venues a half width for two figures
// side by side; and the historical one and two, ICML's column and text.
func Presets() []Preset {
	vs := map[string]Venue{}
	for _, v := range Venues() {
		vs[v.Name] = v
	}
	icml := vs["ICML"]
	out := []Preset{
		{Name: OneColumn, Venue: icml, Part: PartColumn, Doc: "one column, 3.25 in (as icml)"},
		{Name: TwoColumn, Venue: icml, Part: PartText, Doc: "two columns, 6.75 in (as icml-wide)"},
	}
	for _, p := range []struct {
		name  Size
		venue string
		part  Part
	}{
		{"acm", "ACM acmart", PartColumn}, {"acm-wide", "ACM acmart", PartText},
		{"ieee", "IEEEtran", PartColumn}, {"ieee-wide", "IEEEtran", PartText},
		{"icml", "ICML", PartColumn}, {"icml-wide", "ICML", PartText},
		{"neurips", "NeurIPS and ICLR", PartText}, {"neurips-half", "NeurIPS and ICLR", PartHalf},
		{"lncs", "Springer LNCS", PartText}, {"lncs-half", "Springer LNCS", PartHalf},
	} {
		out = append(out, Preset{Name: p.name, Venue: vs[p.venue], Part: p.part})
	}
	for i, p := range out {
		switch p.Part {
		case PartColumn:
			out[i].Points = p.Venue.Column
		case PartText:
			out[i].Points = p.Venue.Text
		case PartHalf:
			out[i].Points = HalfShare * p.Venue.Text
		}
		if p.Doc == "" {
			out[i].Doc = fmt.Sprintf("%s, %s: %.2f in (%s pt)", p.Venue.Name, p.Part, out[i].Points/72.27, strconv.FormatFloat(math.Round(out[i].Points*100)/100, 'f', -1, 64))
		}
	}
	return out
}

// Limits of a width in inches.
const (
	MinWidth = 1.5
	MaxWidth = 10
)

// Width returns the width of the preset or of "N in"; 0 for an unknown
// preset or a width outside MinWidth…MaxWidth inches.
func (s Size) Width() vg.Length {
	for _, p := range Presets() {
		if p.Name == s {
			return p.Width()
		}
	}
	if v, ok := strings.CutSuffix(string(s), "in"); ok {
		w, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err == nil && w >= MinWidth && w <= MaxWidth {
			return vg.Length(w) * vg.Inch
		}
	}
	return 0
}

// Typeface is a figure's typeface: the closed set of the link's font key.
type Typeface = link.Typeface

// The typefaces: Liberation Serif (metric-compatible with Times, as the
// NeurIPS, ICML and ICLR styles set) and Latin Modern (LaTeX's Computer
// Modern, as arXiv preprints, theory venues and theses mostly are).
const (
	Serif       = link.Serif
	LatinModern = link.LatinModern
)

// Options are a figure's file options: not part of the link (but Font,
// whose default the link's font key gives), arguments of ForLink and
// Render.
type Options struct {
	// Format is svg, pdf, png or tex (default svg); csv for WriteCSV.
	Format Format
	// DPI is the resolution of a PNG in dots per inch (default 300; the page
	// offers 150, 300 and 600). 50…1200. Ignored for the other formats.
	DPI int
	// Size is the width preset or a width in inches (default one column,
	// 3.25 in).
	Size Size
	// FontSize is the base text size in points (default 8). 5…14.
	FontSize float64
	// Font is the typeface; empty: the link's font key (ForLink), else
	// serif.
	Font Typeface
}

// DefaultOptions returns SVG, one column, 8 pt text in the link's
// typeface (Liberation Serif unless it says font=lm), 300 dpi for PNG.
func DefaultOptions() Options {
	return Options{Format: SVG, DPI: 300, Size: OneColumn, FontSize: 8}
}

// Limits of Options.DPI.
const (
	MinDPI = 50
	MaxDPI = 1200
)

// Validate reports whether the options are usable, naming the bad one.
func (o Options) Validate() error {
	if !slices.Contains(Formats, o.Format) {
		return fmt.Errorf("plots: format %q is not svg, pdf, png, tex or csv", o.Format)
	}
	if o.Size.Width() == 0 {
		var names []string
		for _, p := range Presets() {
			names = append(names, string(p.Name))
		}
		return fmt.Errorf("plots: size %q is not a preset (%s) nor a width of %g–%g in such as 4.5in", o.Size, strings.Join(names, ", "), float64(MinWidth), float64(MaxWidth))
	}
	if o.Format == PNG && (o.DPI < MinDPI || o.DPI > MaxDPI) {
		return fmt.Errorf("plots: %d dpi outside %d…%d", o.DPI, MinDPI, MaxDPI)
	}
	return o.style().validate()
}

func (o Options) style() Style {
	st := Style{FontSize: o.FontSize, Columns: 1, Font: o.Font}
	if st.Font == "" {
		st.Font = Serif
	}
	if o.Size.Width() >= 5*vg.Inch {
		st.Columns = 2
	}
	if o.Format == TeX {
		// The paper's LaTeX sets the labels: lay them out with Latin
		// Modern's widths, close to Computer Modern's, which are wider than
		// Times's, so that a paper in either has room.
		st.Font = LatinModern
		st.tex = true
	}
	return st
}

// Figure is a built figure: one or more panels in a grid, each with its
// legend in a strip above it, the data they show, and the link they were
// made from.
type Figure struct {
	// Name is a short file stem, such as "attention-weights".
	Name string
	// Title describes the figure in words, in the label markup (see
	// markup); files carry it as plain Unicode (Plain): SVG <title>, PDF
	// Title, PNG iTXt Title, TeX comment.
	Title string
	// Panels holds the panels row by row; every row has the same length.
	Panels [][]Panel
	// Aspect is the height of a panel's plot over its width (default
	// 0.62); MaxPanelHeight caps it (default 2.3 in).
	Aspect         float64
	MaxPanelHeight vg.Length
	// Square keeps a one-panel figure's data area square at every width
	// (a scatter of recovered against true values, whose diagonal must
	// stay at 45°): the panel is narrowed and centred.
	Square bool
	// Link is the share link the figure was made from, written into the
	// file; empty when it was built from data alone.
	Link string
	// Replay names the run log a replayed run's figure was computed from,
	// "NAME (SHA-256 HASH)", written into the file beside the link (which
	// carries the run too when its log is small enough); empty otherwise.
	Replay string
	// Data holds the numbers drawn, one table per panel.
	Data []*Table
	// Style is the style the panels were built in.
	Style Style
}

// Panel is one plot of a figure and its legend, drawn above it so that it
// never covers data.
type Panel struct {
	Plot   *plot.Plot
	Legend []LegendEntry
}

// single returns a figure of one panel.
func single(name, title string, p *plot.Plot, st Style) Figure {
	return Figure{Name: name, Title: title, Panels: [][]Panel{{{Plot: p}}}, Data: []*Table{{Name: name}}, Style: st}
}

// legend appends a legend entry to the figure's first panel.
func (f *Figure) legend(label string, thumbs ...plot.Thumbnailer) {
	f.Panels[0][0].Legend = append(f.Panels[0][0].Legend, LegendEntry{Label: label, Thumbs: thumbs})
}

// data is the first panel's table.
func (f *Figure) data() *Table { return f.Data[0] }

// Grid combines figures into one, laid out in rows of cols panels.
func Grid(name, title string, cols int, figs ...Figure) (Figure, error) {
	if cols < 1 || len(figs) == 0 || len(figs)%cols != 0 {
		return Figure{}, fmt.Errorf("plots: %d figures do not fill rows of %d", len(figs), cols)
	}
	g := Figure{Name: name, Title: title, Style: figs[0].Style, Aspect: figs[0].Aspect}
	var row []Panel
	for _, f := range figs {
		if len(f.Panels) != 1 || len(f.Panels[0]) != 1 {
			return Figure{}, fmt.Errorf("plots: figure %s is already a grid", f.Name)
		}
		row = append(row, f.Panels[0][0])
		if len(row) == cols {
			g.Panels = append(g.Panels, row)
			row = nil
		}
		g.Data = append(g.Data, f.Data...)
		if f.Link != "" {
			g.Link = f.Link
		}
	}
	return g, nil
}

// dims returns the grid's rows and columns.
func (f Figure) dims() (rows, cols int) {
	rows = len(f.Panels)
	if rows > 0 {
		cols = len(f.Panels[0])
	}
	return rows, cols
}

// plotHeight is the height of a panel's plot at width w.
func (f Figure) plotHeight(w vg.Length) vg.Length {
	_, cols := f.dims()
	aspect := f.Aspect
	if aspect <= 0 {
		aspect = 0.62
	}
	maxH := f.MaxPanelHeight
	if maxH <= 0 {
		maxH = 2.3 * vg.Inch
	}
	return vg.Length(math.Min(float64(f.tileWidth(w, cols))*aspect, float64(maxH)))
}

func (f Figure) gap() vg.Length { return vg.Points(f.Style.FontSize * 1.2) }

func (f Figure) tileWidth(w vg.Length, cols int) vg.Length {
	return (w - 2*pad - vg.Length(cols-1)*f.gap()) / vg.Length(cols)
}

// rowLegend is the height of the legend strips of row j at width w.
func (f Figure) rowLegend(j int, w vg.Length) vg.Length {
	_, cols := f.dims()
	var h vg.Length
	for _, p := range f.Panels[j] {
		h = max(h, legendHeight(p.Legend, f.Style, f.tileWidth(w, cols)))
	}
	return h
}

const pad = vg.Length(1.5) // points around the figure

// Size returns the figure's width and height for a width preset.
func (f Figure) Size(size Size) (w, h vg.Length) {
	w = size.Width()
	rows, cols := f.dims()
	if rows == 0 || cols == 0 {
		return w, 0
	}
	h = 2 * pad
	for j := range rows {
		h += f.plotHeight(w) + f.rowLegend(j, w)
	}
	h += vg.Length(rows-1) * f.gap()
	return w, vg.Length(math.Ceil(float64(h))) // whole points, so sizes print exactly
}

// Render writes the figure in the options' format and width. The share link
// goes into the file: an SVG <metadata> element, the PDF's Subject and
// Keywords, a PNG iTXt chunk (with a pHYs chunk giving the DPI), a comment
// at the top of the TeX.
func Render(f Figure, o Options) ([]byte, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if rows, cols := f.dims(); rows == 0 || cols == 0 {
		return nil, fmt.Errorf("plots: figure %q has no panels", f.Name)
	}
	for i, row := range f.Panels {
		if len(row) != len(f.Panels[0]) {
			return nil, fmt.Errorf("plots: figure %q: panel row %d has %d panels, row 0 has %d", f.Name, i, len(row), len(f.Panels[0]))
		}
	}
	w, h := f.Size(o.Size)
	var buf bytes.Buffer
	var err error
	switch o.Format {
	case SVG:
		c := &outlineSVG{Canvas: vgsvg.New(w, h)}
		if err = drawFigure(c, f); err == nil {
			err = c.err
		}
		if err == nil {
			_, err = c.WriteTo(&buf)
		}
		if err == nil {
			return svgMeta(buf.Bytes(), f)
		}
	case PDF:
		c := pdfcanvas.New(w, h)
		c.SetInfo(pdfcanvas.Info{Title: Plain(f.Title), Subject: "headlab figure " + f.Link + f.replayNote(), Keywords: "headlab " + f.Link, Creator: "headlab plots"})
		if err = drawFigure(c, f); err == nil {
			_, err = c.WriteTo(&buf)
		}
	case TeX:
		c := &texCanvas{Canvas: vgtex.New(w, h)}
		buf.Write(texHeader(f))
		if err = drawFigure(c, f); err == nil {
			_, err = c.WriteTo(&buf)
		}
	case CSV:
		return nil, fmt.Errorf("plots: CSV is the figure's data: see WriteCSV")
	case PNG:
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(o.DPI), vgimg.UseBackgroundColor(color.White))
		if err = drawFigure(c, f); err == nil {
			_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(&buf)
		}
		if err == nil {
			return pngMeta(buf.Bytes(), f, o.DPI)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("plots: rendering %s as %s: %w", f.Name, o.Format, err)
	}
	return buf.Bytes(), nil
}

// drawFigure draws the panels row by row, each legend above its plot, the
// plots of a row aligned by plot.Align; a panic of gonum/plot (it panics on
// some impossible layouts) becomes an error.
func drawFigure(c vg.CanvasSizer, f Figure) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing failed: %v", r)
		}
	}()
	dc := draw.Crop(draw.New(c), pad, -pad, pad, -pad)
	w, _ := c.Size()
	rows, cols := f.dims()
	tw := f.tileWidth(w, cols)
	top := dc.Max.Y
	for j := range rows {
		lh := f.rowLegend(j, w)
		ph := f.plotHeight(w)
		row := dc
		row.Max.Y = top - lh
		row.Min.Y = row.Max.Y - ph
		plots := make([]*plot.Plot, cols)
		for i, p := range f.Panels[j] {
			plots[i] = p.Plot
			strip := dc
			strip.Min.X = dc.Min.X + vg.Length(i)*(tw+f.gap())
			strip.Max.X = strip.Min.X + tw
			strip.Max.Y = top
			strip.Min.Y = top - lh
			drawLegend(strip, p.Legend, f.Style)
		}
		if f.Square && cols == 1 && plots[0] != nil {
			da := plots[0].DataCanvas(row)
			if dw, dh := da.Max.X-da.Min.X, da.Max.Y-da.Min.Y; dw > dh {
				row.Min.X += (dw - dh) / 2
				row.Max.X -= (dw - dh) / 2
			}
		}
		cs := plot.Align([][]*plot.Plot{plots}, draw.Tiles{Rows: 1, Cols: cols, PadX: f.gap()}, row)
		for i, p := range plots {
			if p != nil {
				p.Draw(cs[0][i])
			}
		}
		top = row.Min.Y - f.gap()
	}
	return nil
}

// svgMeta writes the title and the link into an SVG just after its <svg>
// start tag.
func svgMeta(b []byte, f Figure) ([]byte, error) {
	const tag = `xmlns:xlink="http://www.w3.org/1999/xlink">` + "\n"
	i := bytes.Index(b, []byte(tag))
	if i < 0 {
		return nil, fmt.Errorf("plots: unexpected SVG header from vgsvg")
	}
	i += len(tag)
	var m strings.Builder
	m.WriteString("<title>")
	xml.EscapeText(&m, []byte(Plain(f.Title)))
	m.WriteString("</title>\n<desc>")
	xml.EscapeText(&m, []byte("headlab figure; regenerate with: "+Command+" -link '"+f.Link+"'"+f.replayNote()))
	m.WriteString("</desc>\n<metadata><headlab:link xmlns:headlab=\"https://headlab.invalid/ns\">")
	xml.EscapeText(&m, []byte(f.Link))
	m.WriteString("</headlab:link></metadata>\n")
	out := make([]byte, 0, len(b)+m.Len())
	out = append(out, b[:i]...)
	out = append(out, m.String()...)
	return append(out, b[i:]...), nil
}

// replayNote is what a replayed run's figure says of its run log.
func (f Figure) replayNote() string {
	if f.Replay == "" {
		return ""
	}
	return "; a replay of the run log " + f.Replay + " (open the log to regenerate it)"
}

// pngMeta inserts pHYs (the resolution) and iTXt (title, link: UTF-8, so
// ε and subscripts survive) chunks after a PNG's IHDR chunk.
func pngMeta(b []byte, f Figure, dpi int) ([]byte, error) {
	const ihdrEnd = 8 + 4 + 4 + 13 + 4
	if len(b) < ihdrEnd || string(b[12:16]) != "IHDR" {
		return nil, fmt.Errorf("plots: unexpected PNG from vgimg")
	}
	var out bytes.Buffer
	out.Write(b[:ihdrEnd])
	ppm := uint32(math.Round(float64(dpi) / 0.0254))
	phys := make([]byte, 9)
	binary.BigEndian.PutUint32(phys[0:], ppm)
	binary.BigEndian.PutUint32(phys[4:], ppm)
	phys[8] = 1 // metre
	writeChunk(&out, "pHYs", phys)
	writeChunk(&out, "iTXt", itxt("Title", Plain(f.Title)))
	writeChunk(&out, "tEXt", []byte("Software\x00headlab plots"))
	if f.Replay != "" {
		writeChunk(&out, "iTXt", itxt("Comment", "replay of the run log "+f.Replay))
	}
	if f.Link != "" {
		writeChunk(&out, "iTXt", itxt("Source", f.Link))
	}
	out.Write(b[ihdrEnd:])
	return out.Bytes(), nil
}

func writeChunk(w io.Writer, typ string, data []byte) {
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(len(data)))
	copy(hdr[4:], typ)
	crc := crc32.NewIEEE()
	crc.Write(hdr[4:])
	crc.Write(data)
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc.Sum32())
	w.Write(hdr[:])
	w.Write(data)
	w.Write(sum[:])
}

// itxt is the data of an uncompressed iTXt chunk: keyword, NUL, no
// compression (0, 0), no language tag, no translated keyword, UTF-8 text.
func itxt(key, value string) []byte {
	b := append([]byte(key), 0, 0, 0, 0, 0)
	return append(b, value...)
}
