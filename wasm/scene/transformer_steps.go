package scene

import (
	"fmt"
	"math"

	"headlab/numerics/replay"
	"headlab/numerics/transformer"
)

// TransformerSteps is the layout of the Transformer's step view, computed
// when the scene, its run, its progress or the canvas changes: the header,
// why there is no run yet (NoRun) or the counters of both phases, then
// phase A as the Recovery scene's step view draws a query (its strip and
// the plot of the odd part's rational function) or phase B's plot of the
// line, its legend and the list of units. The canvas only draws it, and
// hit-tests the line's marks through it.
type TransformerSteps struct {
	Frame   StepFrame
	Head    Label
	What    []Label // what the step does, wrapped under Head on a phone
	NoRun   NoRun   // when its Lines are set, nothing else is
	Counter TransformerCounter

	// Phase A (and step 0): the phase's Recovery scene at the step, its
	// view, the residual's note, the strip and the plot; Missing says
	// that phase A made no value of the odd part.
	PhaseA   *Recovery
	View     replay.StepView
	HasView  bool
	Missing  []Label
	Residual []Label
	Strip    Strip

	// Plot is phase A's plot of the rational function or phase B's of the
	// line; in phase B Axes map the line into it (Line true), Legend goes
	// under it and the unit list in List.
	Plot   Rect
	Line   bool
	Axes   LineAxes
	Legend []Label
	List   Rect
	Units  UnitList
}

// NoRun is why a Transformer view has no run to show yet: the network
// could not be drawn (Failed), or the run is computed, its progress over
// a bar filled to Fraction.
type NoRun struct {
	Lines    []Label
	Failed   bool
	Bar      Rect
	Fraction float64
}

// TransformerCounter is the queries of both phases: a line with the
// counts, then a bar for the heads (against 2·the schedule's count) and
// one for the units (against the ideal (K+1)(Hd+1)).
type TransformerCounter struct {
	Line         []Label
	Heads, Units Bar
}

// UnitList is the list of the units identified so far: a title, a row per
// unit with a swatch in its colour, or a note while there is none.
type UnitList struct {
	Title Label
	Rows  []UnitRow
	None  []Label
}

// UnitRow is a unit in the list: the unit (from 0), its swatch and line.
type UnitRow struct {
	Unit   int
	Swatch Rect
	Label  Label
}

// NoRunLayout lays out why there is no run to show yet from (x, y), w
// wide, if there is none: the network's error, or the run's progress
// with more after the percentage. It reports whether there is none.
func (t *Transformer) NoRunLayout(m Measure, x, y, w float64, more string) (NoRun, bool) {
	var n NoRun
	switch {
	case t.NetErr != nil:
		n.Lines, _ = m.Paragraph(t.NetErr.Error(), false, x, y, w)
		n.Failed = true
	case t.Computing():
		n.Fraction = t.Progress()
		n.Lines, y = m.Paragraph(fmt.Sprintf("Computing the run in the compute worker… %d%%", int(100*n.Fraction))+more, false, x, y+8*m.U, w)
		n.Bar = ProgressTrack(x, y, w, m.U)
	default:
		return n, false
	}
	return n, true
}

// StepsLayout lays out the step view on a canvas of full's size.
func (t *Transformer) StepsLayout(full Rect, m Measure) TransformerSteps {
	u := m.U
	f := NewStepFrame(full, u, TransformerSide)
	l := TransformerSteps{Frame: f}
	x, w := f.Pad, f.W()
	cur, has := t.Current()
	what := "phase A: the heads from F(X) − F(−X) · phase B: the units along a line"
	if has {
		if replay.InHeads(cur) {
			what = "phase A · " + cur.Kind.String() + " of G(X) = F(X) − F(−X)"
		} else {
			what = "phase B · " + cur.Kind.String()
			if cur.Kind != transformer.SelfCheck {
				what += " at t = " + FormatT(cur.T)
			}
		}
	}
	var y float64
	l.Head, l.What, y = stepHeader(f, m, t.Step(), t.Steps(), t.Computing(), what, f.Narrow)
	var none bool
	if l.NoRun, none = t.NoRunLayout(m, x, y, w, ". Every step after that is instant; changing the set-up starts afresh."); none {
		return l
	}
	l.Counter, y = t.counter(m, x, y, w)
	y += 10 * u
	if !has || replay.InHeads(cur) {
		rec, ok := t.PhaseA()
		if !ok {
			msg := "Phase A made no value of the odd part."
			if err := t.Failed(); err != nil {
				msg += " " + err.Error()
			}
			l.Missing, _ = m.Paragraph(msg, false, x, y, w)
			return l
		}
		l.PhaseA = rec
		l.View, l.HasView = rec.View()
		if !l.HasView && has && cur.Kind == transformer.ResidualValue {
			l.Residual, y = m.Paragraph("The residual's share ω·x_N of the odd part, measured on copies of the zero token before recovery runs.", false, x, y, w)
		}
		l.Strip = rec.strip(m, l.View, l.HasView, x, y, w)
		l.Plot, _ = t.plotAndList(f, l.Strip.Bottom+8*u, m.Type, 0)
		return l
	}
	// The legend's lines, at the plot's width (which its height does not
	// change), then the plot with room for them.
	legend := "diamonds: local solves (Hd+1 two-token queries) · dots: side and hyperplane queries · dashed: kinks, coloured by unit"
	lines, _ := m.Paragraph(legend, false, 0, 0, f.Plot(y, true).W)
	l.Plot, l.List = t.plotAndList(f, y, m.Type, len(lines))
	l.Line, l.Axes = true, t.LineAxes(l.Plot)
	l.Legend, _ = m.Paragraph(legend, false, l.Plot.X, l.Plot.Y+l.Plot.H+4*u+2*m.Text, l.Plot.W)
	l.Units = t.unitList(m, l.List)
	return l
}

// HitMark returns the index in the scene's Marks of the mark of the line
// under (px, py) within r pixels (HitMark), or −1, also when the view
// shows no line.
func (l TransformerSteps) HitMark(marks []replay.Mark, px, py, r float64) int {
	if !l.Line {
		return -1
	}
	return HitMark(l.Axes, marks, px, py, r)
}

// counter lays out the queries of both phases against their yardsticks
// from (x, y), and returns the y under them.
func (t *Transformer) counter(m Measure, x, y, w float64) (TransformerCounter, float64) {
	u := m.U
	var c TransformerCounter
	n := t.Counts()
	res := t.Run.Result
	line := fmt.Sprintf("queries %d · units found %d of K = %d · longest query %d of 2H+1 = %d", n.Queries, n.Units, t.State.Units, res.MaxLength, 2*t.State.H+1)
	c.Line, y = m.Paragraph(line, false, x, y, w)
	y += 2 * u
	gap := 16 * u
	bw := (w - gap) / 2
	if w < 520*u {
		bw = w
	}
	bar := func(bx, by float64, name string, got, total, yard int, yardName string) (Bar, float64) {
		b := Bar{Title: Label{Text: fmt.Sprintf("%s %d of %d", name, got, total), X: bx, Y: by}}
		by += m.Text + 2*u
		top := float64(max(total, yard, 1)) * 1.05
		bh := 10 * u
		b.Track, b.Fill = Rect{X: bx, Y: by, W: bw, H: bh}, bw*float64(got)/top
		mx := bx + bw*float64(yard)/top
		tw := m.TextWidth(yardName)
		b.Marks = []BarMark{{X: mx, Label: Label{Text: yardName, X: math.Max(bx, math.Min(mx-tw/2, bx+bw-tw)), Y: by + bh + 3*u}}}
		return b, by + bh + 3*u + m.Text
	}
	var y1, y2 float64
	c.Heads, y1 = bar(x, y, "heads", n.Head, res.HeadQueries, t.HeadBound(), fmt.Sprintf("2·schedule = %d", t.HeadBound()))
	bx, by := x+bw+gap, y
	if bw == w {
		bx, by = x, y1+4*u
	}
	c.Units, y2 = bar(bx, by, "units", n.Unit, res.UnitQueries, t.IdealUnits(), fmt.Sprintf("ideal (K+1)(%dd+1) = %d", t.Blocks(), t.IdealUnits()))
	return c, math.Max(y1, y2)
}

// unitList lays out the units identified so far in rc, in the order their
// kinks were found, as many as fit.
func (t *Transformer) unitList(m Measure, rc Rect) UnitList {
	u := m.U
	l := UnitList{Title: Label{Text: "Units identified", X: rc.X, Y: rc.Y}}
	y := rc.Y + m.Text + 2*u
	res := t.Run.Result
	for _, mk := range t.Marks() {
		if mk.Kind != transformer.KinkFound || mk.Unit < 0 || mk.Unit >= len(res.Net.Units) {
			continue
		}
		if y+m.Text > rc.Y+rc.H+m.Text {
			break
		}
		sign := "+"
		if res.Net.Units[mk.Unit].Sign < 0 {
			sign = "−"
		}
		l.Rows = append(l.Rows, UnitRow{Unit: mk.Unit, Swatch: Rect{X: rc.X, Y: y + 3*u, W: 10 * u, H: 10 * u},
			Label: Label{Text: fmt.Sprintf("unit %d  %sReLU(η·φ)  at t = %s", mk.Unit+1, sign, FormatT(mk.T)), X: rc.X + 16*u, Y: y}})
		y += m.Text
	}
	if len(l.Rows) == 0 {
		l.None, _ = m.Paragraph("None yet: a unit is identified from the jump D = Λ_right − Λ_left at its kink once every kink is confirmed.", false, rc.X, y, rc.W)
	}
	return l
}
