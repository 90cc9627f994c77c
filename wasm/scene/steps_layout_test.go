package scene

import (
	"fmt"
	"math"
	"strconv"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"

	"headlab/numerics/experiment"
	"headlab/numerics/transformer"
)

// measureFor measures with the canvas's fonts (Go Regular, as the
// renderer sizes them: 21 and 15 pixels per CSS pixel u, 17 and 13 on a
// canvas narrower than 560 CSS pixels), widths and line heights as the
// canvas's widthOf and lineHeight take them.
func measureFor(t *testing.T, w, u float64) Measure {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face := func(size float64) (func(string) float64, float64) {
		fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size * u, DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			t.Fatal(err)
		}
		mt := fc.Metrics()
		return func(s string) float64 { return float64(font.MeasureString(fc, s).Ceil() + 2) }, float64((mt.Ascent + mt.Descent).Ceil() + 2)
	}
	title, text := 21.0, 15.0
	if w < 560*u {
		title, text = 17, 13
	}
	m := Measure{Type: Type{U: u}}
	m.TitleWidth, m.Title = face(title)
	m.TextWidth, m.Text = face(text)
	return m
}

// box is an element of a layout with its name, for the messages.
type box struct {
	name string
	r    Rect
}

// labelBox is the rectangle a label covers.
func labelBox(m Measure, name string, l Label) box {
	return box{name + " " + strconv.Quote(l.Text), Rect{l.X, l.Y, m.Width(l.Title, l.Text), m.Line(l.Title)}}
}

// labelBoxes appends the boxes of the labels that have a text.
func labelBoxes(out []box, m Measure, name string, ls ...Label) []box {
	for _, l := range ls {
		if l.Text != "" {
			out = append(out, labelBox(m, name, l))
		}
	}
	return out
}

// barBoxes appends a bar's title, track and mark labels.
func barBoxes(out []box, m Measure, name string, b Bar) []box {
	out = labelBoxes(out, m, name+" title", b.Title)
	out = append(out, box{name + " track", b.Track})
	for _, mk := range b.Marks {
		out = labelBoxes(out, m, name+" mark", mk.Label)
	}
	return out
}

// stripBoxes appends a strip's elements.
func stripBoxes(out []box, m Measure, s Strip) []box {
	out = labelBoxes(out, m, "progress", s.Progress...)
	if len(s.Progress) > 0 {
		out = append(out, box{"progress bar", s.ProgressBar})
	}
	out = labelBoxes(out, m, "note", s.Notes...)
	out = labelBoxes(out, m, "strip", s.Query, s.Answer)
	for i, g := range s.Tokens {
		out = append(out, box{fmt.Sprintf("token %d", i), g})
	}
	return labelBoxes(out, m, "desc", s.Desc...)
}

// checkBoxes fails unless every box lies inside the canvas and no two
// overlap.
func checkBoxes(t *testing.T, name string, full Rect, bs []box) {
	t.Helper()
	for i, a := range bs {
		if !inside(a.r, full) {
			t.Fatalf("%s: %s at %+v is not inside the canvas %+v", name, a.name, a.r, full)
		}
		for _, b := range bs[:i] {
			if overlap(a.r, b.r) {
				t.Fatalf("%s: %s at %+v overlaps %s at %+v", name, a.name, a.r, b.name, b.r)
			}
		}
	}
}

// TestStepsLayout lays out the step view at every step of runs (H = 2,
// d = 2; H = 3, d = 2; frugal at H = 4, d = 3) on every canvas: the header, the
// counter, the strip, the plot and the pole table lie inside the canvas
// and do not overlap; the table is beside the plot on a wide canvas and
// under it (once the RF is fitted) on a narrow one, and every line of the
// table lies in the table's rectangle.
func TestStepsLayout(t *testing.T) {
	for _, frag := range []string{"#v=1&scene=recovery&H=2&d=2", "#v=1&scene=recovery&H=3&d=2", "#v=1&scene=recovery&H=2&d=2&bias=1&mode=frugal",
		// Four marks under the counter whose labels take three rows.
		"#v=1&scene=recovery&mode=frugal&H=4&d=3&seed=5&prec=192"} {
		r := recoveryAt(t, frag)
		for _, c := range append(canvases, struct {
			w, h float64
			ty   Type
		}{358, 506, Type{U: 1}}, struct {
			w, h float64
			ty   Type
		}{540, 720, Type{U: 1}}) { // a width where four marks' labels crowd under the counter
			full := Rect{W: c.w, H: c.h}
			m := measureFor(t, c.w, c.ty.U)
			for step := 0; step <= r.Steps(); step++ {
				r.State.Step = step
				l := r.StepsLayout(full, m)
				f := l.Frame
				name := fmt.Sprintf("%s %gx%g step %d", frag, c.w, c.h, step)
				if l.Plot.H < 40*m.U {
					t.Fatalf("%s: plot %+v", name, l.Plot)
				}
				bs := labelBoxes(labelBoxes(nil, m, "header", l.Head), m, "header", l.What...)
				bs = labelBoxes(bs, m, "counter", l.Counter.Line, l.Counter.Longest)
				bs = barBoxes(bs, m, "counter bar", l.Counter.Bar)
				bs = stripBoxes(bs, m, l.Strip)
				bs = append(bs, box{"plot", l.Plot})
				v, has := r.View()
				switch {
				case f.Side > 0:
					if l.Table.X < l.Plot.X+l.Plot.W {
						t.Fatalf("%s: table %+v beside plot %+v", name, l.Table, l.Plot)
					}
				case has && v.Fitted && l.Table != (Rect{}):
					if l.Table.Y < l.Plot.Y+l.Plot.H+2*m.Text {
						t.Fatalf("%s: table %+v under plot %+v", name, l.Table, l.Plot)
					}
				case l.Table != (Rect{}):
					t.Fatalf("%s: a table %+v under an RF not fitted", name, l.Table)
				}
				if l.Table != (Rect{}) {
					bs = append(bs, box{"table", l.Table})
					// Every line of the table in its rectangle (its last one
					// was cut at the canvas's edge on a phone).
					var lines []box
					lines = labelBoxes(lines, m, "table intro", l.Poles.Intro...)
					for _, row := range l.Poles.Rows {
						lines = labelBoxes(lines, m, "table row", row.Label)
					}
					lines = labelBoxes(lines, m, "table foot", l.Poles.Foot)
					for _, b := range lines {
						if b.r.Y < l.Table.Y || b.r.Y+b.r.H > l.Table.Y+l.Table.H+1e-9 {
							t.Fatalf("%s: %s at %+v out of the table %+v", name, b.name, b.r, l.Table)
						}
					}
					if has && v.Fitted && len(l.Poles.Rows) == 0 {
						t.Fatalf("%s: a fitted RF's table without rows", name)
					}
				}
				checkBoxes(t, name, full, bs)
			}
		}
	}
}

// TestTransformerStepsLayout lays out both phases of a run on every
// canvas: the header, the counters, phase A's strip and plot (the whole
// width) or phase B's plot, legend and unit list lie inside the canvas
// without overlapping; in phase B a point on the plot at a mark's column
// hits that mark (or a kink in the same column), none does in phase A.
func TestTransformerStepsLayout(t *testing.T) {
	lab := NewLocalLab(experiment.Run)
	const frag = "#v=1&scene=transformer&H=1&d=2&m=2&K=2&seed=3"
	end := transformerScene(t, lab, frag+"&step=100000")
	for _, c := range canvases {
		full := Rect{W: c.w, H: c.h}
		m := measureFor(t, c.w, c.ty.U)
		for _, k := range []int{0, 1, 5, end.Steps() / 2, end.Steps()} {
			sc := transformerScene(t, lab, frag+"&step="+strconv.Itoa(k))
			l := sc.StepsLayout(full, m)
			name := fmt.Sprintf("%gx%g step %d (%s)", c.w, c.h, k, sc.Phase())
			if len(l.NoRun.Lines) > 0 || len(l.Missing) > 0 {
				t.Fatalf("%s: no run %+v, phase A missing %+v", name, l.NoRun, l.Missing)
			}
			bs := labelBoxes(labelBoxes(nil, m, "header", l.Head), m, "header", l.What...)
			bs = labelBoxes(bs, m, "counter", l.Counter.Line...)
			bs = barBoxes(bs, m, "heads bar", l.Counter.Heads)
			bs = barBoxes(bs, m, "units bar", l.Counter.Units)
			bs = append(bs, box{"plot", l.Plot})
			marks := sc.Marks()
			if sc.Phase() != "units" {
				if l.PhaseA == nil || l.Line || l.List != (Rect{}) || l.Plot.W != l.Frame.W()-l.Frame.Left {
					t.Fatalf("%s: phase A plot %+v, list %+v, line %v", name, l.Plot, l.List, l.Line)
				}
				bs = labelBoxes(bs, m, "residual", l.Residual...)
				bs = stripBoxes(bs, m, l.Strip)
				checkBoxes(t, name, full, bs)
				if got := l.HitMark(marks, l.Plot.X+l.Plot.W/2, l.Plot.Y+l.Plot.H/2, 6*m.U); got != -1 {
					t.Fatalf("%s: a mark hit in phase A: %d", name, got)
				}
				continue
			}
			if !l.Line || l.Axes.Plot != l.Plot || l.PhaseA != nil {
				t.Fatalf("%s: phase B without its line: %+v", name, l.Axes)
			}
			bs = append(bs, box{"list", l.List})
			bs = labelBoxes(bs, m, "legend", l.Legend...)
			checkBoxes(t, name, full, bs)
			var lines []box
			lines = labelBoxes(lines, m, "list title", l.Units.Title)
			for _, row := range l.Units.Rows {
				lines = labelBoxes(lines, m, "unit", row.Label)
			}
			for _, b := range lines {
				if !inside(b.r, Rect{l.List.X, l.List.Y, full.W - l.List.X, full.H - l.List.Y}) {
					t.Fatalf("%s: %s at %+v out of the list %+v", name, b.name, b.r, l.List)
				}
			}
			r := 6 * m.U
			cy := l.Plot.Y + l.Plot.H/2
			for i, mk := range marks {
				x := l.Axes.X(mk.T)
				got := l.HitMark(marks, x, cy, r)
				if got < 0 || math.Abs(l.Axes.X(marks[got].T)-x) > r+1e-9 ||
					(mk.Kind == transformer.KinkFound && marks[got].Kind != transformer.KinkFound) {
					t.Fatalf("%s: mark %d (%v at t = %g) hit %d", name, i, mk.Kind, mk.T, got)
				}
			}
			if got := l.HitMark(marks, l.Plot.X+l.Plot.W/2, l.Plot.Y-2*r, r); got != -1 {
				t.Fatalf("%s: a mark hit above the plot: %d", name, got)
			}
		}
	}
}
