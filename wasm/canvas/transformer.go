//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
	"headlab/numerics/replay"
	"headlab/numerics/transformer"
	"headlab/plots/palette"
	"headlab/wasm/scene"
)

// transformerRenderer draws the Transformer scene: in the step view the
// query counters of both phases, then phase A as the Recovery scene draws
// a query (its strip and its rational function, the odd part G standing in
// for F) or phase B as the line of single tokens with the true F, the
// pieces solved so far, each local solve, side query and hyperplane probe
// as a mark, and each kink in the colour of its unit once identified; in
// the result view the recovered against the true network. It draws with
// the Recovery renderer's batches and labels.
type transformerRenderer struct {
	recoveryRenderer
	axes      scene.LineAxes
	axesShown bool
	marks     []replay.Mark
	hoverMark int
}

func (r *transformerRenderer) reset(a *app) {
	r.recoveryRenderer.reset(a)
	r.axesShown, r.hoverMark = false, -1
}

// pointer hovers the marks on the line, for their tooltip.
func (r *transformerRenderer) pointer(a *app, p pointerState) scene.Scene {
	r.hoverX, r.hoverY = p.x, p.y
	now := -1
	if r.axesShown {
		now = scene.HitMark(r.axes, r.marks, p.x, p.y, 6*r.u)
	}
	if now != r.hoverMark {
		r.hoverMark = now
		a.redraw = true
	}
	return nil
}

func (r *transformerRenderer) draw(screen *ebiten.Image, a *app, th scene.Theme) {
	sc, ok := a.scene.(*scene.Transformer)
	if !ok || a.view.Width < 1 || r.u == 0 {
		return
	}
	full := scene.Rect{X: 0, Y: 0, W: a.view.Width, H: a.view.Height}
	r.axesShown = false
	defer r.flush(screen)
	if sc.State.View == "result" {
		r.drawTResult(screen, sc, full, th)
		return
	}
	r.drawTSteps(screen, sc, full, th)
}

// unitColor is unit k's colour.
func unitColor(th scene.Theme, k int) (c [4]uint8) {
	col := th.HeadColor(palette.UnitHead(k))
	return [4]uint8{col.R, col.G, col.B, col.A}
}

func (r *transformerRenderer) drawTSteps(screen *ebiten.Image, sc *scene.Transformer, full scene.Rect, th scene.Theme) {
	u := r.u
	f := scene.NewStepFrame(full, u, scene.TransformerSide)
	narrow := f.Narrow
	x, y, w := f.Pad, f.Pad, f.W()
	mc := muted(th)
	head := fmt.Sprintf("Step %d of %d", sc.Step(), sc.Steps())
	if sc.Computing() {
		head = "Computing the run…"
	}
	hx := x + r.lab.put(screen, &r.title, head, x, y, th.Text) + 16*u
	cur, has := sc.Current()
	what := "phase A: the heads from F(X) − F(−X) · phase B: the units along a line"
	if has {
		if replay.InHeads(cur) {
			what = "phase A · " + cur.Kind.String() + " of G(X) = F(X) − F(−X)"
		} else {
			what = "phase B · " + cur.Kind.String()
			if cur.Kind != transformer.SelfCheck {
				what += " at t = " + scene.FormatT(cur.T)
			}
		}
	}
	if narrow {
		y += lineHeight(&r.title)
		hx = x
	}
	r.lab.put(screen, &r.text, what, hx, y+(lineHeight(&r.title)-lineHeight(&r.text))/2, mc)
	y += lineHeight(&r.title) + 6*u

	if r.drawNoRun(screen, sc, x, y, w, th, ". Every step after that is instant; changing the set-up starts afresh.") {
		return
	}
	y = r.drawTCounter(screen, sc, x, y, w, th) + 10*u
	if !has || replay.InHeads(cur) {
		rec, ok := sc.PhaseA()
		if !ok {
			msg := "Phase A made no value of the odd part."
			if err := sc.Failed(); err != nil {
				msg += " " + err.Error()
			}
			r.paragraph(screen, &r.text, msg, x, y, w, th.Query)
			return
		}
		v, hasV := rec.View()
		if !hasV && has && cur.Kind == transformer.ResidualValue {
			y = r.paragraph(screen, &r.text, "The residual's share ω·x_N of the odd part, measured on copies of the zero token before recovery runs.", x, y, w, mc)
		}
		y = r.drawStrip(screen, rec, v, hasV, x, y, w, th) + 8*u
		plot, _ := sc.StepsLayout(f, y, r.ty)
		r.drawPlot(screen, rec, v, hasV, plot, th)
		return
	}
	plot, list := sc.StepsLayout(f, y, r.ty)
	r.drawLine(screen, sc, plot, th)
	r.drawUnitList(screen, sc, list, th)
}

// drawNoRun draws why there is no run to show yet, if there is none: the
// network could not be drawn, or the run is computed (its progress, with
// more after the percentage). It reports whether it drew.
func (r *transformerRenderer) drawNoRun(screen *ebiten.Image, sc *scene.Transformer, x, y, w float64, th scene.Theme, more string) bool {
	switch {
	case sc.NetErr != nil:
		r.paragraph(screen, &r.text, sc.NetErr.Error(), x, y, w, th.Query)
	case sc.Computing():
		f := sc.Progress()
		y = r.paragraph(screen, &r.text, fmt.Sprintf("Computing the run in the compute worker… %d%%", int(100*f))+more, x, y+8*r.u, w, muted(th))
		r.progressBar(x, y, w, f, th)
	default:
		return false
	}
	return true
}

// drawTCounter draws the queries of both phases against their yardsticks:
// 2·(the schedule's count) for the heads, the ideal (K+1)(Hd+1) for the
// units; it returns the y below.
func (r *transformerRenderer) drawTCounter(screen *ebiten.Image, sc *scene.Transformer, x, y, w float64, th scene.Theme) float64 {
	u := r.u
	mc := muted(th)
	c := sc.Counts()
	res := sc.Run.Result
	line := fmt.Sprintf("queries %d · units found %d of K = %d · longest query %d of 2H+1 = %d", c.Queries, c.Units, sc.State.Units, res.MaxLength, 2*sc.State.H+1)
	y = r.paragraph(screen, &r.text, line, x, y, w, th.Text) + 2*u
	gap := 16 * u
	bw := (w - gap) / 2
	if w < 520*u {
		bw = w
	}
	bar := func(bx, by float64, name string, got, total, yard int, yardName string) float64 {
		r.lab.put(screen, &r.text, fmt.Sprintf("%s %d of %d", name, got, total), bx, by, mc)
		by += lineHeight(&r.text) + 2*u
		top := float64(max(total, yard, 1)) * 1.05
		bh := 10 * u
		r.flat.rect(bx, by, bw, bh, th.Grid)
		r.flat.rect(bx, by, bw*float64(got)/top, bh, accent(th))
		mx := bx + bw*float64(yard)/top
		r.smooth.line(mx, by-3*u, mx, by+bh+3*u, 2*u, th.Text)
		tw := widthOf(&r.text, yardName)
		r.lab.put(screen, &r.text, yardName, math.Max(bx, math.Min(mx-tw/2, bx+bw-tw)), by+bh+3*u, mc)
		return by + bh + 3*u + lineHeight(&r.text)
	}
	y1 := bar(x, y, "heads", c.Head, res.HeadQueries, sc.HeadBound(), fmt.Sprintf("2·schedule = %d", sc.HeadBound()))
	bx, by := x+bw+gap, y
	if bw == w {
		bx, by = x, y1+4*u
	}
	y2 := bar(bx, by, "units", c.Unit, res.UnitQueries, sc.IdealUnits(), fmt.Sprintf("ideal (K+1)(%dd+1) = %d", sc.Blocks(), sc.IdealUnits()))
	return math.Max(y1, y2)
}

// drawLine draws phase B: F on the single tokens of the line against
// θ = atan t, the pieces found so far, and the marks.
func (r *transformerRenderer) drawLine(screen *ebiten.Image, sc *scene.Transformer, plot scene.Rect, th scene.Theme) {
	u := r.u
	mc := muted(th)
	ax := sc.LineAxes(plot)
	r.axes, r.axesShown = ax, true
	r.marks = sc.Marks()
	dst := clip(screen, plot, 0)
	var xs, ys []tick
	for _, t := range ax.TTicks() {
		xs = append(xs, tick{ax.X(t), t == 0, scene.FormatT(t)})
	}
	for _, yv := range ax.YTicks(5) {
		ys = append(ys, tick{ax.Y(yv), yv == 0, scene.FormatTick(yv)})
	}
	r.grid(screen, plot, xs, ys, th)
	r.plotFrame(screen, plot, "t on the line of single tokens p + t·q (axis θ = atan t)", th)
	r.under.put(dst, &r.text, "F on single tokens (the true network, grey); pieces Λ·φ solved so far", plot.X+6*u, plot.Y+4*u, mc)

	// The true F, thin and muted: what the learner does not see.
	var pts [][2]float64
	for px := plot.X; px <= plot.X+plot.W; px += 2 * u {
		t := ax.T(px)
		pts = append(pts, [2]float64{px, ax.Y(sc.TrueF(t))})
	}
	r.clipSmooth.polyline(pts, 1.5*u, mix(th.Background, mc, 0.55))

	// Each piece over the stretch between its neighbouring kinks.
	kinks := []float64{math.Inf(-1)}
	for _, m := range r.marks {
		if m.Kind == transformer.KinkFound {
			kinks = append(kinks, m.T)
		}
	}
	kinks = append(kinks, math.Inf(1))
	for _, p := range sc.Pieces() {
		a, b := math.Inf(-1), math.Inf(1)
		for _, k := range kinks {
			if k <= p.T && k > a {
				a = k
			}
			if k >= p.T && k < b {
				b = k
			}
		}
		if math.IsInf(p.T, -1) {
			b = kinks[min(1, len(kinks)-1)]
		}
		if math.IsInf(p.T, 1) {
			a = kinks[max(0, len(kinks)-2)]
		}
		var seg [][2]float64
		for px := ax.X(a); px <= ax.X(b)+0.01; px += 2 * u {
			t := ax.T(math.Min(px, ax.X(b)))
			seg = append(seg, [2]float64{px, ax.Y(sc.PieceF(p, t))})
		}
		if len(seg) > 1 {
			r.clipSmooth.polyline(seg, 3*u, accent(th))
		}
	}
	// The marks: local solves as diamonds on the axis, side and hyperplane
	// queries as small dots on the curve, kinks as vertical lines.
	base := plot.Y + plot.H - 10*u
	cur, _ := sc.Current()
	nk := 0 // kinks drawn, to stagger their labels
	for _, m := range r.marks {
		px := ax.X(m.T)
		last := m.Step == sc.Step()
		switch m.Kind {
		case transformer.KinkFound:
			c := th.Text
			if m.Unit >= 0 {
				k := unitColor(th, m.Unit)
				c.R, c.G, c.B, c.A = k[0], k[1], k[2], k[3]
			}
			r.clipSmooth.dashed(px, plot.Y, px, plot.Y+plot.H, 6*u, 2.5*u, c)
			if m.Unit >= 0 {
				lbl := fmt.Sprintf("unit %d", m.Unit+1)
				lx := px + 4*u
				if lx+widthOf(&r.text, lbl) > plot.X+plot.W {
					lx = px - 4*u - widthOf(&r.text, lbl)
				}
				r.under.put(dst, &r.text, lbl, lx, plot.Y+6*u+lineHeight(&r.text)*float64(1+nk%4), c)
			}
			nk++
		case transformer.Probe:
			c := accent(th)
			if !m.OK {
				c = th.Query
			}
			s := 6 * u
			if last {
				s = 9 * u
			}
			r.clipSmooth.line(px-s, base, px, base-s, 2*u, c)
			r.clipSmooth.line(px, base-s, px+s, base, 2*u, c)
			r.clipSmooth.line(px+s, base, px, base+s, 2*u, c)
			r.clipSmooth.line(px, base+s, px-s, base, 2*u, c)
		default:
			c := th.Text
			if !m.OK {
				c = th.Query
			}
			py := ax.Y(sc.TrueF(m.T))
			r.clipSmooth.disc(px, py, 3.5*u, c)
			if last {
				r.clipSmooth.ring(px, py, 9*u, 2*u, th.Query)
			}
		}
	}
	if cur.Kind == transformer.SelfCheck {
		r.under.put(dst, &r.text, "self-check: a random sequence against the assembled network", plot.X+6*u, plot.Y+plot.H-lineHeight(&r.text)-24*u, th.Query)
	}
	r.clipTo(plot)
	legend := "diamonds: local solves (Hd+1 two-token queries) · dots: side and hyperplane queries · dashed: kinks, coloured by unit"
	r.paragraph(screen, &r.text, legend, plot.X, plot.Y+plot.H+4*u+2*lineHeight(&r.text), plot.W, mc)
	if r.hoverMark >= 0 && r.hoverMark < len(r.marks) {
		m := r.marks[r.hoverMark]
		tip := fmt.Sprintf("step %d: %s at t = %s", m.Step, m.Kind, scene.FormatT(m.T))
		if !m.OK {
			tip += " (did not confirm)"
		}
		if m.Unit >= 0 {
			tip += fmt.Sprintf(", unit %d", m.Unit+1)
		}
		tw := widthOf(&r.text, tip) + 12*u
		tx := math.Min(r.hoverX+14*u, plot.X+plot.W-tw)
		ty := r.hoverY + 18*u
		r.top.rect(tx, ty, tw, lineHeight(&r.text)+8*u, th.Background)
		r.top.strokeRect(tx, ty, tw, lineHeight(&r.text)+8*u, u, th.Axis)
		r.topLab.put(screen, &r.text, tip, tx+6*u, ty+4*u, th.Text)
	}
}

// drawUnitList lists the units identified so far, in their colours.
func (r *transformerRenderer) drawUnitList(screen *ebiten.Image, sc *scene.Transformer, rc scene.Rect, th scene.Theme) {
	u := r.u
	mc := muted(th)
	y := rc.Y
	r.lab.put(screen, &r.text, "Units identified", rc.X, y, th.Text)
	y += lineHeight(&r.text) + 2*u
	res := sc.Run.Result
	n := 0
	for _, m := range sc.Marks() {
		if m.Kind != transformer.KinkFound || m.Unit < 0 || m.Unit >= len(res.Net.Units) {
			continue
		}
		if y+lineHeight(&r.text) > rc.Y+rc.H+lineHeight(&r.text) {
			break
		}
		un := res.Net.Units[m.Unit]
		k := unitColor(th, m.Unit)
		c := th.Text
		c.R, c.G, c.B, c.A = k[0], k[1], k[2], k[3]
		r.flat.rect(rc.X, y+3*u, 10*u, 10*u, c)
		sign := "+"
		if un.Sign < 0 {
			sign = "−"
		}
		r.lab.put(screen, &r.text, fmt.Sprintf("unit %d  %sReLU(η·φ)  at t = %s", m.Unit+1, sign, scene.FormatT(m.T)), rc.X+16*u, y, th.Text)
		y += lineHeight(&r.text)
		n++
	}
	if n == 0 {
		r.paragraph(screen, &r.text, "None yet: a unit is identified from the jump D = Λ_right − Λ_left at its kink once every kink is confirmed.", rc.X, y, rc.W, mc)
	}
}

// drawTResult draws the recovered against the true network.
func (r *transformerRenderer) drawTResult(screen *ebiten.Image, sc *scene.Transformer, full scene.Rect, th scene.Theme) {
	u := r.u
	p := r.panel(screen, full, "Recovered against the true network, up to equivalence", th)
	pad, x, y, w := p.Pad, p.Pad, p.Top, p.W()
	mc := muted(th)
	if r.drawNoRun(screen, sc, x, y, w, th, "") {
		return
	}
	res := sc.Run.Result
	if err := sc.Failed(); err != nil {
		name := transformer.FailedCondition(err)
		title := "The run stopped, and returns no network."
		if name != "" {
			title = fmt.Sprintf("Condition %s fails: %s. The run returns no network.", name, transformer.ConditionText(name))
		}
		y = r.paragraph(screen, &r.title, title, x, y+8*u, w, th.Query) + 8*u
		y = r.paragraph(screen, &r.text, "Why: "+err.Error()+".", x, y, w, th.Text) + 8*u
		r.paragraph(screen, &r.text, "Try another seed, fewer units or a higher precision (prec); the step view shows where it stopped.", x, y, w, mc)
		return
	}
	eq := "equivalent to the truth (transformer.Equivalent)"
	if sc.Run.Equivalent != "" {
		eq = "not equivalent: " + sc.Run.Equivalent
	}
	sum := fmt.Sprintf("%d queries: %d for the heads (2·schedule = %d), %d for the units (ideal (K+1)(Hd+1) = %d); longest %d tokens · %d bits (%.0f digits) · %s",
		res.Queries, res.HeadQueries, sc.HeadBound(), res.UnitQueries, sc.IdealUnits(), res.MaxLength, res.Precision, res.Digits, eq)
	y = r.paragraph(screen, &r.text, sum, x, y, w, mc) + 4*u
	agree := fmt.Sprintf("Largest |ΔF| on %d held-out sequences of 1…%d tokens: %s relative", experiment.AgreementSequences, experiment.AgreementLength, scene.FormatSci(sc.Run.Agreement))
	y = r.paragraph(screen, &r.title, agree, x, y, w, th.Text) + 8*u

	// Heads.
	r.lab.put(screen, &r.text, "Heads (phase A): canonical W_h and the odd part's values w_h", x, y, th.Text)
	y += lineHeight(&r.text) + 2*u
	pair, errs, err := attention.Pairing(res.Heads.Layer, sc.Odd)
	for h := range sc.Odd {
		c := th.HeadColor(h)
		r.flat.rect(x, y+3*u, 10*u, 10*u, c)
		s := fmt.Sprintf("head %d: relative error of (W_h, w_h) %s", h+1, "—")
		if err == nil && h < len(errs) {
			s = fmt.Sprintf("head %d ↔ recovered head %d: relative error of (W_h, w_h) %s", h+1, pair[h]+1, scene.FormatSci(errs[h]))
		}
		r.lab.put(screen, &r.text, s, x+16*u, y, th.Text)
		y += lineHeight(&r.text)
	}
	y += 8 * u

	// Units: the single-token direction c = Σ_h η_h, true and recovered.
	y = r.paragraph(screen, &r.text, "Units (phase B), by where their single-token hyperplane crosses the line: sign and c = Σ_h η_h = |a| Σ_h V_h b", x, y, w, th.Text) + 4*u
	cols := []float64{x, x + 70*u, x + 160*u, x + 230*u, x + 230*u + (w-300*u)/2, x + w - 70*u}
	if w < 700*u {
		cols = []float64{x, x + 56*u, x + 130*u, x + 170*u, x + 170*u + (w-230*u)/2, x + w - 60*u}
	}
	for i, hname := range []string{"unit", "t", "sign", "true c", "recovered c", "error"} {
		r.lab.put(screen, &r.text, hname, cols[i], y, mc)
	}
	y += lineHeight(&r.text) + 2*u
	for _, row := range sc.UnitRows() {
		if y > full.H-pad-lineHeight(&r.text) {
			break
		}
		c := th.Text
		if row.Found >= 0 {
			k := unitColor(th, row.Found)
			c.R, c.G, c.B, c.A = k[0], k[1], k[2], k[3]
		}
		r.flat.rect(cols[0], y+3*u, 10*u, 10*u, c)
		r.lab.put(screen, &r.text, fmt.Sprintf("%d", row.True+1), cols[0]+16*u, y, th.Text)
		r.lab.put(screen, &r.text, scene.FormatT(row.T), cols[1], y, th.Text)
		r.lab.put(screen, &r.text, signs(row.Sign[0])+" / "+signs(row.Sign[1]), cols[2], y, th.Text)
		r.lab.put(screen, &r.text, vecFmt(row.C[0]), cols[3], y, th.Text)
		rec := "none (dead or merged)"
		if row.Found >= 0 {
			rec = vecFmt(row.C[1])
		}
		r.lab.put(screen, &r.text, rec, cols[4], y, th.Text)
		r.lab.put(screen, &r.text, scene.FormatSci(row.Err), cols[5], y, th.Text)
		y += lineHeight(&r.text)
	}
}

func signs(s int) string {
	switch {
	case s > 0:
		return "+"
	case s < 0:
		return "−"
	}
	return "·"
}

func vecFmt(x []float64) string {
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = strings.Replace(fmt.Sprintf("%.3f", v), "-", "−", 1)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
