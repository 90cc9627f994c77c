package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"codeberg.org/go-fonts/latin-modern/lmroman10italic"
	"codeberg.org/go-fonts/latin-modern/lmroman10regular"
	stdfont "golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"headlab/plots/palette"
)

// Style is the house style of every figure: Liberation Serif at LaTeX's
// footnote/small sizes, thin lines, the Okabe–Ito palette with a distinct
// dash and marker per series so that figures read in greyscale, no grid, no
// frame, legends outside the data.
type Style struct {
	// FontSize is the size of axis labels and legend text in points
	// (default 8, LaTeX's \footnotesize in a 10 pt paper; tick labels are
	// one point smaller). 5…14.
	FontSize float64
	// Columns is 1 for a figure narrower than 5 in (a column) and 2 for a
	// wider one (the text width); builders that draw several panels lay
	// them out accordingly.
	Columns int
	// Font is the typeface (default Liberation Serif).
	Font Typeface
	// tex is set for a figure the paper's LaTeX typesets (Format TeX).
	tex bool
}

// DefaultStyle returns the paper-ready default: 8 pt Liberation Serif, one
// column.
func DefaultStyle() Style { return Style{FontSize: 8, Columns: 1, Font: Serif} }

// Limits of Style.FontSize in points.
const (
	MinFontSize = 5
	MaxFontSize = 14
)

// The smallest text and the thinnest line any figure draws, in points, at
// any preset: the minimums journals state (5–6 pt, 0.5 pt). Tick labels,
// legends and scripts are smaller than FontSize but never below
// MinTextSize.
const (
	MinTextSize  = 5
	MinLineWidth = 0.5
)

func (st Style) validate() error {
	if !(st.FontSize >= MinFontSize && st.FontSize <= MaxFontSize) {
		return fmt.Errorf("plots: font size %v pt outside %d…%d", st.FontSize, MinFontSize, MaxFontSize)
	}
	if st.Columns != 1 && st.Columns != 2 {
		return fmt.Errorf("plots: %d columns; a figure spans 1 or 2", st.Columns)
	}
	if st.Font != "" && st.Font != Serif && st.Font != LatinModern {
		return fmt.Errorf("plots: font %q is not serif (Liberation Serif) or lm (Latin Modern)", st.Font)
	}
	return nil
}

// Palette is the Okabe–Ito colour-blind-safe palette in the order heads
// are coloured (package palette), so head h has the same colour on the
// canvas and in a figure.
var Palette = palette.Heads()

// seriesColors is the order for line series (not heads): dark and light
// alternate so neighbours differ in grey too; yellow is left out (it
// vanishes on white).
var seriesColors = [...]color.RGBA{Palette[0], Palette[5], Palette[2], Palette[7], Palette[3], Palette[1], Palette[4]}

// dashes are the dash patterns of line series, in points.
var dashes = [...][]vg.Length{
	nil,
	{3.2, 1.6},
	{0.9, 1.3},
	{3.2, 1.3, 0.9, 1.3},
	{5.5, 1.8},
	{1.8, 1.8},
	{3.2, 1.3, 0.9, 1.3, 0.9, 1.3},
}

// glyphs are the marker shapes of series.
var glyphs = [...]draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{},
	draw.RingGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.SquareGlyph{},
}

// Line widths in points, none under MinLineWidth.
const (
	dataWidth  = 0.75
	axisWidth  = 0.5
	guideWidth = 0.5
	edgeWidth  = 0.5 // bar outlines
)

var (
	black = color.RGBA{A: 0xff}
	grey  = color.RGBA{0x77, 0x77, 0x77, 0xff}
	light = color.RGBA{0xbb, 0xbb, 0xbb, 0xff}
)

// handler is the text handler of every label.
func (st Style) handler() text.Handler {
	m := markup{fonts: fontCache}
	if st.tex {
		m.widen = texWiden
	}
	return m
}

// texWiden widens the room labels get in a TeX figure: LaTeX sets small
// text in Computer Modern's optical sizes (cmr7 for 7 pt), wider than Latin
// Modern 10 scaled down, which the layout measures.
const texWiden = 1.12

// fontCache holds the typefaces: gonum's Liberation fonts and Latin Modern
// Roman (regular and italic, the faces the labels use).
var fontCache = font.NewCache(append(liberation.Collection(), latinModern()...))

func latinModern() font.Collection {
	var coll font.Collection
	for _, f := range []struct {
		style stdfont.Style
		ttf   []byte
	}{{stdfont.StyleNormal, lmroman10regular.TTF}, {stdfont.StyleItalic, lmroman10italic.TTF}} {
		face, err := opentype.Parse(f.ttf)
		if err != nil {
			panic(fmt.Sprintf("plots: Latin Modern does not parse: %v", err)) // embedded data: a build error
		}
		coll = append(coll, font.Face{Font: font.Font{Typeface: "LatinModern", Variant: "Serif", Style: f.style}, Face: face})
	}
	return coll
}

// font returns the style's typeface at size points, never below
// MinTextSize.
func (st Style) font(size float64) font.Font {
	f := font.Font{Typeface: "Liberation", Variant: "Serif", Size: vg.Points(max(size, MinTextSize))}
	if st.Font == LatinModern {
		f.Typeface = "LatinModern"
	}
	return f
}

func (st Style) textStyle(size float64) text.Style {
	return text.Style{Color: black, Font: st.font(size), Handler: st.handler(), XAlign: draw.XLeft, YAlign: draw.YBottom}
}

// newPlot returns an empty plot in the house style with the given axis
// labels.
func (st Style) newPlot(xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.TextHandler = st.handler()
	p.BackgroundColor = color.White
	p.Title.TextStyle = st.textStyle(st.FontSize)
	p.Title.TextStyle.XAlign = draw.XCenter
	p.Title.TextStyle.YAlign = draw.YTop
	p.Title.Padding = vg.Points(st.FontSize * 0.4)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle = st.textStyle(st.FontSize)
		a.Label.TextStyle.XAlign = draw.XCenter
		a.Label.Padding = vg.Points(st.FontSize * 0.25)
		a.LineStyle = draw.LineStyle{Color: black, Width: vg.Points(axisWidth)}
		a.Tick.LineStyle = a.LineStyle
		a.Tick.Length = vg.Points(st.FontSize * 0.3)
		a.Tick.Label = st.textStyle(st.FontSize - 1)
		a.Padding = vg.Points(st.FontSize * 0.25)
	}
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Tick.Label.XAlign = draw.XCenter
	p.X.Tick.Label.YAlign = draw.YTop
	p.Y.Tick.Label.XAlign = draw.XRight
	p.Y.Tick.Label.YAlign = draw.YCenter
	p.Y.Label.Position = draw.PosCenter
	p.X.Label.Position = draw.PosCenter
	p.Y.Label.TextStyle.YAlign = draw.YBottom
	p.X.Label.TextStyle.YAlign = draw.YBottom
	p.Legend = plot.NewLegend() // unused: legends are drawn outside (see legend.go)
	p.Legend.TextStyle = st.textStyle(st.FontSize - 1)
	return p
}

// lineStyle is series i's line.
func lineStyle(i int) draw.LineStyle {
	return draw.LineStyle{Color: seriesColors[i%len(seriesColors)], Width: vg.Points(dataWidth), Dashes: dashes[i%len(dashes)]}
}

// glyphStyle is series i's marker, radius r points.
func glyphStyle(i int, r float64) draw.GlyphStyle {
	return draw.GlyphStyle{Color: seriesColors[i%len(seriesColors)], Radius: vg.Points(r), Shape: glyphs[i%len(glyphs)]}
}

// series returns a line with markers for the points of series i, and a
// thumbnail list for the legend. Points with a non-finite coordinate are
// left out (they break the line there).
func series(i int, xys plotter.XYs, markers bool, st Style) ([]plot.Plotter, []plot.Thumbnailer, error) {
	var out []plot.Plotter
	var thumbs []plot.Thumbnailer
	for _, seg := range finiteSegments(xys) {
		if len(seg) > 1 {
			l, err := plotter.NewLine(seg)
			if err != nil {
				return nil, nil, fmt.Errorf("plots: %w", err)
			}
			l.LineStyle = lineStyle(i)
			out = append(out, l)
			if thumbs == nil {
				thumbs = append(thumbs, l)
			}
		}
		if markers {
			s, err := plotter.NewScatter(seg)
			if err != nil {
				return nil, nil, fmt.Errorf("plots: %w", err)
			}
			s.GlyphStyle = glyphStyle(i, st.FontSize*0.22)
			out = append(out, s)
			if len(thumbs) < 2 {
				thumbs = append(thumbs, s)
			}
		}
	}
	if thumbs == nil { // every point non-finite: still a legend entry
		l := &plotter.Line{LineStyle: lineStyle(i)}
		thumbs = append(thumbs, l)
	}
	return out, thumbs, nil
}

// finiteSegments splits xys at non-finite points.
func finiteSegments(xys plotter.XYs) []plotter.XYs {
	var segs []plotter.XYs
	var cur plotter.XYs
	for _, p := range xys {
		if finite(p.X) && finite(p.Y) {
			cur = append(cur, p)
			continue
		}
		if len(cur) > 0 {
			segs = append(segs, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		segs = append(segs, cur)
	}
	return segs
}

func finite(x float64) bool { return x-x == 0 }

// powTicks labels an axis that holds log10 of the data (see lg): ticks at
// the integers k labelled 10^{k}, every step-th labelled when the range is
// wide, and unlabelled minor ticks at log10(m·10^k), m = 2…9, when it is
// narrow. Plotting log10 of the data on a linear axis, rather than using
// plot.LogScale, keeps gonum's axis-label placement right (it centres the
// label at the linear midpoint of the range, far off on a log scale).
type powTicks struct{}

func (powTicks) Ticks(min, max float64) []plot.Tick {
	if !finite(min) || !finite(max) || !(max >= min) {
		return nil
	}
	lo, hi := int(math.Ceil(min-1e-9)), int(math.Floor(max+1e-9))
	span := hi - lo
	step := 1
	for span/step > 6 {
		step++
	}
	var ticks []plot.Tick
	for k := lo - 1; k <= hi; k++ {
		if k >= lo {
			t := plot.Tick{Value: float64(k)}
			if (k-lo)%step == 0 {
				t.Label = pow10Label(k)
			}
			ticks = append(ticks, t)
		}
		if span <= 4 {
			for m := 2; m <= 9; m++ {
				v := float64(k) + math.Log10(float64(m))
				if v >= min && v <= max {
					ticks = append(ticks, plot.Tick{Value: v})
				}
			}
		}
	}
	return ticks
}

// lg returns log10 of the positive coordinates of xys (x, y or both), NaN
// for the others, for an axis labelled by powTicks.
func lg(xys plotter.XYs, x, y bool) plotter.XYs {
	out := make(plotter.XYs, len(xys))
	for i, p := range xys {
		if x {
			p.X = log10(p.X)
		}
		if y {
			p.Y = log10(p.Y)
		}
		out[i] = p
	}
	return out
}

func log10(v float64) float64 {
	if !(v > 0) {
		return math.NaN()
	}
	return math.Log10(v)
}

func pow10Label(k int) string {
	switch k {
	case 0:
		return "1"
	case 1:
		return "10"
	}
	return "10^{" + minus(strconv.Itoa(k)) + "}"
}

// num formats x with prec significant digits and a typeset minus sign.
func num(x float64, prec int) string {
	return minus(strconv.FormatFloat(x, 'g', prec, 64))
}

// minus writes a minus sign as U+2212, as typesetting does.
func minus(s string) string {
	if len(s) > 0 && s[0] == '-' {
		return "−" + s[1:]
	}
	return s
}

// intTicks labels an axis with integers, at most about n labels.
type intTicks struct{ n int }

func (t intTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := math.Ceil(min), math.Floor(max)
	if !(hi >= lo) || !finite(lo) || !finite(hi) {
		return nil
	}
	n := max1(t.n, 2)
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		step = s
		if (hi-lo)/s <= float64(n) {
			break
		}
	}
	var ticks []plot.Tick
	start := math.Ceil(lo/step) * step
	for v := start; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: minus(strconv.Itoa(int(v)))})
	}
	return ticks
}

func max1(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// numTicks labels a linear axis at multiples of 1, 2 or 5 × 10^k, about
// five labels, with a typeset minus sign and no trailing zeros.
type numTicks struct{}

func (numTicks) Ticks(min, max float64) []plot.Tick {
	if !finite(min) || !finite(max) || !(max > min) {
		return nil
	}
	raw := (max - min) / 5
	e := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * e
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*e >= raw {
			step = m * e
			break
		}
	}
	prec := max1(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if step/math.Pow(10, math.Floor(math.Log10(step)+1e-9)) == 2.5 {
		prec++
	}
	var ticks []plot.Tick
	for k := math.Ceil(min/step - 1e-9); k*step <= max+1e-9*step; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: minus(strconv.FormatFloat(v, 'f', prec, 64))})
		// One unlabelled tick halfway, for reading values.
		if h := v + step/2; h <= max {
			ticks = append(ticks, plot.Tick{Value: h})
		}
	}
	return ticks
}

// powAxis labels a with powers of ten; its data must be log10 values.
func powAxis(a *plot.Axis) {
	a.Tick.Marker = powTicks{}
}
