package scene

import (
	"fmt"
	"math"
	"strings"

	"headlab/numerics/recovery"
	"headlab/numerics/replay"
)

// RecoverySteps is the layout of the Recovery scene's step view, computed
// when the scene, its run, its progress or the canvas changes: the header
// (the step and the rational function), the query counter, the strip of
// the current query, and the plot of F(n) with its pole table. The canvas
// only draws it.
type RecoverySteps struct {
	Frame   StepFrame
	Head    Label   // the step, in the title type
	What    []Label // the rational function's name and kind (none before the first query)
	Counter Counter
	Strip   Strip
	Plot    Rect
	Table   Rect      // the pole table's rectangle (zero when left out)
	Poles   PoleTable // its lines
}

// Counter is the step view's count of queries: a line with the queries
// made and one with the longest query, over a bar.
type Counter struct {
	Line, Longest Label
	Bar           Bar
}

// Bar is a counter's bar: its title (if any), the track, the width filled,
// and its marks, each a tick across the bar with its label under it.
type Bar struct {
	Title Label
	Track Rect
	Fill  float64
	Marks []BarMark
}

// BarMark is a mark on a bar: the tick's column and its label.
type BarMark struct {
	X     float64
	Label Label
}

// Strip is the step view's strip of the current query: n copies of a,
// then z, with the oracle's answer and a line that says what it is. Before
// the first query it holds a note instead, under the run's progress while
// the run is computed.
type Strip struct {
	Progress []Label // the run's progress, over ProgressBar
	// ProgressBar is the track of the progress bar and Fraction how far
	// it is filled.
	ProgressBar Rect
	Fraction    float64
	Notes       []Label // what comes before the first query
	Query       Label   // "query k:"
	Tokens      []Rect  // the glyphs: the copies of a, then z (a disc)
	Letters     []Label // a and z written in the glyphs, when they are large enough
	Answer      Label   // F(n), in the title type
	Desc        []Label
	Bottom      float64 // the y under the strip
}

// PoleTable is the lines of the step view's pole table: for a measurement
// what each pole measures, for a link why each pole belongs to its head.
type PoleTable struct {
	Intro []Label // muted
	Rows  []PoleRow
	Foot  Label // muted; "" for none
}

// PoleRow is a line of the pole table: a pole's head (−1 for none) with a
// swatch in its colour, or (Sub) the muted line that explains it.
type PoleRow struct {
	Head   int
	Sub    bool
	Swatch Rect
	Label  Label
}

// stepHeader places a step view's header: the step (or that the run is
// computed) in the title type at the frame's top left and what beside it, vertically centred on the title's
// line, or (below, on a phone) under it, wrapped. It returns the y under
// it.
func stepHeader(f StepFrame, m Measure, step, steps int, computing bool, what string, below bool) (h Label, w []Label, y float64) {
	head := fmt.Sprintf("Step %d of %d", step, steps)
	if computing {
		head = "Computing the run…"
	}
	x, y := f.Pad, f.Pad
	h = Label{Text: head, X: x, Y: y, Title: true}
	hx := x + m.TitleWidth(head) + 16*f.U
	if what != "" {
		if !below {
			return h, []Label{{Text: what, X: hx, Y: y + (m.Title-m.Text)/2}}, y + m.Title + 6*f.U
		}
		// Under the title, wrapped to the frame's width if it must be.
		y += m.Title
		w = []Label{{Text: what, X: x, Y: y + (m.Title-m.Text)/2}}
		if m.TextWidth(what) > f.W() {
			w, _ = m.Paragraph(what, false, x, y+(m.Title-m.Text)/2, f.W())
			y += float64(len(w)-1) * m.Text * 1.1
		}
	}
	return h, w, y + m.Title + 6*f.U
}

// StepsLayout lays out the step view on a canvas of full's size.
func (r *Recovery) StepsLayout(full Rect, m Measure) RecoverySteps {
	u := m.U
	f := NewStepFrame(full, u, StepsSide)
	l := RecoverySteps{Frame: f}
	x, w := f.Pad, f.W()
	v, has := r.View()
	what := ""
	if has {
		what = v.RF.Name() + "  ·  " + v.RF.Kind.String()
	}
	var y float64
	l.Head, l.What, y = stepHeader(f, m, r.Step(), r.Steps(), r.Computing(), what, f.Narrow)
	l.Counter, y = r.counter(m, x, y, w)
	l.Strip = r.strip(m, v, has, x, y+10*u, w)
	l.Plot, l.Table, l.Poles = r.plotAndTable(f, l.Strip.Bottom+8*u, m, v, has)
	return l
}

// counter lays out the running count of queries against the paper's
// 4Hd²−2H+1, economy mode's count (and frugal's in frugal mode) and the
// information bound H(d²+d), with
// the longest query against 2H+1, from (x, y); it returns the y under it.
func (r *Recovery) counter(m Measure, x, y, w float64) (Counter, float64) {
	u := m.U
	var c Counter
	H := r.Heads()
	bound, info := r.Bound(), r.Information()
	econ := recovery.EconomyQueries(H, r.State.D)
	frugal := recovery.FrugalQueries(H, r.State.D)
	steps, q := r.Steps(), r.Step()
	line := fmt.Sprintf("queries %d of %d", q, steps)
	c.Line = Label{Text: line, X: x, Y: y}
	lx := x + m.TextWidth(line) + 18*u
	longest := fmt.Sprintf("longest query %d of 2H+1 = %d tokens", r.MaxLength(), 2*H+1)
	if lx+m.TextWidth(longest) > x+w {
		y += m.Text
		lx = x
	}
	c.Longest = Label{Text: longest, X: lx, Y: y}
	y += m.Text + 4*u

	top := float64(max(bound, steps, econ)) * 1.02
	bh := 12 * u
	c.Bar = Bar{Track: Rect{X: x, Y: y, W: w, H: bh}, Fill: w * float64(q) / top}
	marks := []struct {
		n    int
		name string
	}{{info, fmt.Sprintf("information H(d²+d) = %d", info)}, {econ, fmt.Sprintf("economy %d", econ)}, {bound, fmt.Sprintf("paper 4Hd²−2H+1 = %d", bound)}}
	if r.Options.Mode == recovery.Frugal {
		marks = append(marks[:1:1], append([]struct {
			n    int
			name string
		}{{frugal, fmt.Sprintf("frugal %d", frugal)}}, marks[1:]...)...)
	}
	// Each label goes into the first row under the bar where it clears
	// the labels already there; the counter ends below the last row used.
	ty := y + bh + 3*u
	rows := LabelRows{Gap: 8 * u}
	for _, mk := range marks {
		mx := x + w*float64(mk.n)/top
		tw := m.TextWidth(mk.name)
		tx := math.Min(math.Max(x, mx-tw/2), x+w-tw)
		row := rows.Put(tx, tw)
		c.Bar.Marks = append(c.Bar.Marks, BarMark{X: mx, Label: Label{Text: mk.name, X: tx, Y: ty + float64(row)*m.Text}})
	}
	return c, ty + float64(max(1, rows.Len()))*m.Text
}

// strip lays out the current query as a strip of token glyphs from
// (x, y): n copies of a, then z, with the oracle's answer; before the
// first query, a note (under the run's progress while computing).
func (r *Recovery) strip(m Measure, v replay.StepView, has bool, x, y, w float64) Strip {
	u := m.U
	var s Strip
	g := 34 * u
	if !has {
		if r.Computing() {
			line, frac := r.ProgressLine()
			s.Progress, y = m.Paragraph(line, false, x, y+8*u, w)
			s.ProgressBar, s.Fraction = ProgressTrack(x, y, w, u), frac
			s.Notes, y = m.Paragraph("Running the whole schedule once; then every step is instant.", false, x, y+14*u, w)
			s.Bottom = y + 8*u
			return s
		}
		msg := "No query yet. Each query is n copies of a token a followed by a query token z; press → for the first."
		s.Notes, y = m.Paragraph(msg, false, x, y+8*u, w)
		s.Bottom = y + 8*u
		return s
	}
	tokens := v.N + 1
	label := fmt.Sprintf("query %d:", r.Step())
	lw := m.TextWidth(label) + 10*u
	ans := fmt.Sprintf("F(%d) = %s", v.N, FormatNum(v.RF.F[v.Current]))
	switch {
	case v.RF.Kind == recovery.Constant:
		ans = "F(0) = C = " + FormatNum(r.Result.Const)
	case r.Options.Biases:
		// The run keeps every answer less C (the plot's too).
		ans = fmt.Sprintf("F(%d) − C = %s", v.N, FormatNum(v.RF.F[v.Current]))
	}
	aw := m.TitleWidth(ans) + 16*u
	avail := w - lw - aw
	gap := 6 * u
	if float64(tokens)*(g+gap) > avail {
		g = math.Max(10*u, avail/float64(tokens)-gap)
		if g < 20*u {
			gap = 3 * u
		}
	}
	// The row is as high as the glyphs, or as the answer's line when
	// they are smaller (many tokens on a phone); the glyphs centred in it.
	row := math.Max(g, m.Title)
	y0 := y
	y += (row - g) / 2
	// The label is centred on glyphs of the full size, or on the row
	// when the answer's line makes it.
	qh := 34 * u
	if row > g {
		qh = row
	}
	s.Query = Label{Text: label, X: x, Y: y0 + (qh-m.Text)/2}
	gx := x + lw
	letter := func(c string) {
		if g >= 18*u {
			s.Letters = append(s.Letters, Label{Text: c, X: gx + (g-m.TextWidth(c))/2, Y: y + (g-m.Text)/2})
		}
	}
	for i := 0; i < v.N; i++ {
		s.Tokens = append(s.Tokens, Rect{X: gx, Y: y, W: g, H: g})
		letter("a")
		gx += g + gap
	}
	s.Tokens = append(s.Tokens, Rect{X: gx, Y: y, W: g, H: g})
	if v.RF.Kind == recovery.Constant {
		letter("0")
	} else {
		letter("z")
	}
	gx += g + 14*u
	s.Answer = Label{Text: ans, X: gx, Y: y + (g-m.Title)/2, Title: true}
	y = y0 + row + 4*u
	desc := fmt.Sprintf("%d copies of a, then z (%d tokens)", v.N, tokens)
	if v.N == 1 {
		desc = "1 copy of a, then z (2 tokens)"
	}
	if v.N == 0 {
		desc = "z alone (1 token)"
	}
	switch {
	case v.RF.Kind == recovery.Constant:
		desc = "the zero token alone (1 token): F(0) = C"
	case r.biasRF(v.RF):
		desc += ", z = −z_1"
	}
	desc += fmt.Sprintf(" · sample %d of %d of %s", v.Taken, len(v.RF.N), v.RF.Name())
	s.Desc, s.Bottom = m.Paragraph(desc, false, x+lw, y, w-lw)
	return s
}

// plotAndTable places the plot of F(n) and its pole table below y: the
// table beside the plot on a wide canvas, under it once the RF is fitted
// (as high as its lines), or left out when the plot would be shorter than
// 80 CSS pixels. The plot keeps 26 CSS pixels under it for its axis
// labels.
func (r *Recovery) plotAndTable(f StepFrame, y float64, m Measure, v replay.StepView, has bool) (plot, table Rect, poles PoleTable) {
	u := m.U
	tableH := 0.0
	if f.Side == 0 && has && v.Fitted {
		// The table goes under the axis's labels and name, 10u + 2 lines
		// under the plot where the plot keeps 26u: room for its lines
		// (measured from the top) and that overhang, and at least the
		// room of its rows and four and a half lines, which a laptop's
		// canvas has always kept.
		link := 0.0
		if v.RF.Kind == recovery.Link {
			link = 1
		}
		_, lines := r.poleTable(m, v, Rect{X: f.Pad, W: f.W()})
		tableH = math.Max(lines+10*u+2*m.Text-26*u, float64(len(v.RF.P))*m.Text*(1+link)+m.Text*4.6)
	}
	plot = f.Plot(y, true, 26*u, tableH)
	if plot.H < 80*u {
		plot.H = math.Max(40*u, f.Full.H-y-f.Pad-26*u)
		tableH = 0
	}
	switch {
	case f.Side > 0:
		table = f.Beside(plot, plot.H+26*u)
	case tableH > 0:
		// Under the plot's axis labels.
		table = Rect{X: f.Pad, Y: plot.Y + plot.H + 10*u + 2*m.Text, W: f.W(), H: tableH}
		table.H = math.Min(table.H, f.Full.H-table.Y)
		if table.H <= 0 {
			table = Rect{}
		}
	}
	if table == (Rect{}) || !has {
		return plot, table, PoleTable{}
	}
	poles, _ = r.poleTable(m, v, table)
	return plot, table, poles
}

// poleTable lays out the pole table of the step's RF in rc, and returns
// its lines with the y under them: for a measurement, what each pole
// measures; for a link, why each pole belongs to its head (its p and r are
// the sums of the measurements it links).
func (r *Recovery) poleTable(m Measure, v replay.StepView, rc Rect) (PoleTable, float64) {
	u := m.U
	var t PoleTable
	x, y := rc.X, rc.Y
	lh := m.Text * 1.08
	rf := v.RF
	if !v.Fitted {
		known := "C = V·a is not known yet: 2H+1 samples, n = 0…2H."
		switch {
		case rf.Kind == recovery.Constant:
			known = "F(0), the zero token alone: every score is 0 and every value v_h·0 is 0, so the answer is the layer's constant C, beyond the paper's model (a layer with biases). It is no rational function; C is taken off every answer, earlier ones too, and the plots show F − C."
		case r.biasRF(rf) && rf.KnownC:
			known = fmt.Sprintf("%s: the query token is −z_1, so that beside M_%d1 the poles give the query biases c_h. C = V·a is known from earlier functions.", rf.Name(), rf.I+1)
		case r.frugalRF(rf):
			known = fmt.Sprintf("Frugal: C = V·a, F(0) and the values r_h = c·v_h·u_%d are known from the functions on z_1, so only the H poles are unknown: H+1 samples, n = 1…H+1 (more only where they leave the poles undecided, and a link where they place a head only roughly; from H = 5 in extended precision 2H−2 at once, and the real roots of one polynomial).", rf.I+1)
		case r.Options.Mode != recovery.Paper && rf.Kind == recovery.Link && rf.J > 0 && len(rf.UIndex) == 2:
			known = fmt.Sprintf("A fallback link: M_%d%d could not be labelled, or placed a head only roughly (two nearly equal poles, say), so this RF ties it to M_%d%d, which is resolved. C = V·a is known from earlier functions: 2H samples, n = 1…2H.", rf.I+1, rf.J+1, rf.UIndex[1]+1, rf.J+1)
		case rf.KnownC:
			known = "C = V·a is known from earlier functions: 2H samples, n = 1…2H."
		}
		if rc.W > 200*u {
			t.Intro, y = m.Paragraph(known, false, x, y, rc.W)
		}
		return t, y - rc.Y
	}
	row := func(head int, sub bool, s string) {
		pr := PoleRow{Head: head, Sub: sub, Label: Label{Text: s, X: x + 16*u, Y: y}}
		if !sub {
			pr.Swatch = Rect{X: x, Y: y + lh*0.25, W: 10 * u, H: 10 * u}
		}
		t.Rows = append(t.Rows, pr)
		y += lh
	}
	if rf.Kind == recovery.Measurement {
		intro := fmt.Sprintf("%s = RF(z_%d, u_%d): each pole measures p = c·u_%d·W_h z_%d and r = c·v_h·u_%d.",
			rf.Name(), rf.J+1, rf.I+1, rf.I+1, rf.J+1, rf.I+1)
		if r.Options.Biases {
			intro = fmt.Sprintf("%s = RF(z_%d, u_%d): each pole measures p = c·u_%d·(W_h z_%d + c_h) and r = c·v_h·u_%d.",
				rf.Name(), rf.J+1, rf.I+1, rf.I+1, rf.J+1, rf.I+1)
		}
		switch {
		case r.biasRF(rf):
			intro = fmt.Sprintf("%s, on the query token −z_1: each pole measures p = c·u_%d·(c_h − W_h z_1) and r = c·v_h·u_%d; with M_%d1's p = c·u_%d·(W_h z_1 + c_h) it gives c·u_%d·c_h, half their sum.",
				rf.Name(), rf.I+1, rf.I+1, rf.I+1, rf.I+1, rf.I+1)
		case r.frugalRF(rf):
			intro = fmt.Sprintf("%s = RF(z_%d, u_%d), frugal: each head's r = c·v_h·u_%d was known from the functions on z_1; its %d samples gave the poles p = c·u_%d·W_h z_%d.",
				rf.Name(), rf.J+1, rf.I+1, rf.I+1, len(rf.N), rf.I+1, rf.J+1)
		}
		t.Intro, y = m.Paragraph(intro, false, x, y, rc.W)
		y += 4 * u
		for b := range rf.P {
			h := PoleHead(rf, b)
			rv := math.NaN()
			if b < len(rf.R) {
				rv = rf.R[b]
			}
			row(h, false, fmt.Sprintf("%s   p = %s   r = %s", HeadName(h, "—"), FormatNum(rf.P[b]), FormatNum(rv)))
		}
		foot := fmt.Sprintf("fit condition number %s", FormatSci(rf.Fit.Cond))
		if r.frugalRF(rf) && len(rf.N) <= r.Heads()+1 {
			foot = fmt.Sprintf("poles from H+1 = %d samples and the known values", len(rf.N))
		}
		t.Foot = Label{Text: foot, X: x, Y: y + 4*u}
		return t, y + 4*u + m.Text - rc.Y
	}
	t.Intro, y = m.Paragraph("Link: each pole's p is the sum of the linked measurements' p of one head, and its r their r — that pairs the poles.", false, x, y, rc.W)
	y += 4 * u
	for _, lr := range r.LinkRows(v.Index) {
		row(lr.Head, false, fmt.Sprintf("%s   p = %s   r = %s", HeadName(lr.Head, "—"), FormatNum(lr.P), FormatNum(lr.R)))
		parts := make([]string, len(lr.Terms))
		names := make([]string, len(lr.Terms))
		for i, tm := range lr.Terms {
			parts[i], names[i] = FormatNum(tm.P), tm.Name
		}
		row(lr.Head, true, fmt.Sprintf("= p(%s) = %s", strings.Join(names, ")+p("), strings.Join(parts, " + ")))
	}
	return t, y - rc.Y
}

// ProgressLine says how far the computation of the run has got, as the
// canvas writes it over its progress bar, with the fraction done.
func (r *Recovery) ProgressLine() (string, float64) {
	p := r.RunProgress()
	return fmt.Sprintf("Computing the run… %s (%d%%)", ProgressText(p), int(100*p.Fraction)), p.Fraction
}

// ProgressTrack is the track of a thin progress bar under y, from x and w
// wide (u is one CSS pixel).
func ProgressTrack(x, y, w, u float64) Rect { return Rect{X: x, Y: y + 2*u, W: w, H: 6 * u} }

// PoleHead returns the head pole b of rf is matched to, −1 for none.
func PoleHead(rf *recovery.RF, b int) int {
	if b < len(rf.Heads) {
		return rf.Heads[b]
	}
	return -1
}

// HeadName is how the step view names head h (counted from 0): "head
// h+1", or none when h < 0 (a pole matched to no head).
func HeadName(h int, none string) string {
	if h < 0 {
		return none
	}
	return fmt.Sprintf("head %d", h+1)
}

// frugalRF reports whether rf is a measurement frugal mode solved from
// its known values r_h (a measurement off column one, not on −z_1).
func (r *Recovery) frugalRF(rf *recovery.RF) bool {
	return r.Options.Mode == recovery.Frugal && rf.Kind == recovery.Measurement && rf.J > 0 && !r.biasRF(rf)
}

// biasRF reports whether rf is a measurement of the bias column, on the
// query token −z_1 (Options.Biases).
func (r *Recovery) biasRF(rf *recovery.RF) bool {
	return rf.Kind == recovery.Measurement && rf.J == r.State.D
}
