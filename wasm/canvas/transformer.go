//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/numerics/experiment"
	"headlab/numerics/transformer"
	"headlab/plots/palette"
	"headlab/wasm/scene"
	"headlab/web/link"
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
	// The step view's layout (layoutTSteps) and what it was computed for.
	tsteps    scene.TransformerSteps
	tstepsFor layoutKey
	hoverMark int
}

func (r *transformerRenderer) reset(a *app) {
	r.recoveryRenderer.reset(a)
	r.tsteps, r.tstepsFor, r.hoverMark = scene.TransformerSteps{}, layoutKey{}, -1
}

func (r *transformerRenderer) rebuild(a *app, th scene.Theme) {
	r.recoveryRenderer.rebuild(a, th)
	r.layoutTSteps(a)
}

// layoutTSteps computes the step view's layout when the scene, its run,
// its progress, the canvas or the type changed since the last time (from
// rebuild, and from pointer while the run is computed); Draw only reads
// it.
func (r *transformerRenderer) layoutTSteps(a *app) {
	sc, ok := a.scene.(*scene.Transformer)
	if !ok || r.u == 0 || sc.State.View == link.Result {
		return
	}
	key := layoutKey{sc: sc, run: sc.Run, w: a.view.Width, h: a.view.Height, ty: r.ty}
	if sc.Computing() {
		key.progress = fmt.Sprint(sc.Progress())
	}
	if key == r.tstepsFor {
		return
	}
	r.tstepsFor = key
	r.tsteps = sc.StepsLayout(scene.Rect{W: a.view.Width, H: a.view.Height}, r.measure())
	a.redraw = true
}

// pointer hovers the marks on the line, for their tooltip.
func (r *transformerRenderer) pointer(a *app, p pointerState) scene.Scene {
	r.layoutTSteps(a)
	r.hoverX, r.hoverY = p.x, p.y
	now := -1
	if sc, ok := a.scene.(*scene.Transformer); ok && sc.State.View != link.Result {
		now = r.tsteps.HitMark(sc.Marks(), p.x, p.y, 6*r.u)
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
	defer r.flush(screen)
	if sc.State.View == link.Result {
		r.drawTResult(screen, sc, full, th)
		return
	}
	r.drawTSteps(screen, sc, th)
}

// unitColor is unit k's colour.
func unitColor(th scene.Theme, k int) (c [4]uint8) {
	col := th.HeadColor(palette.UnitHead(k))
	return [4]uint8{col.R, col.G, col.B, col.A}
}

// drawTSteps draws the step view as its layout (scene.TransformerSteps,
// computed by layoutTSteps) places it.
func (r *transformerRenderer) drawTSteps(screen *ebiten.Image, sc *scene.Transformer, th scene.Theme) {
	l := &r.tsteps
	mc := muted(th)
	r.put(screen, l.Head, th.Text)
	r.putAll(screen, l.What, mc)
	if len(l.NoRun.Lines) > 0 {
		r.drawNoRun(screen, l.NoRun, th)
		return
	}
	r.putAll(screen, l.Counter.Line, th.Text)
	r.drawBar(screen, l.Counter.Heads, th)
	r.drawBar(screen, l.Counter.Units, th)
	r.putAll(screen, l.Missing, th.Query)
	if l.PhaseA != nil {
		r.putAll(screen, l.Residual, mc)
		r.drawStrip(screen, l.Strip, th)
		r.drawPlot(screen, l.PhaseA, l.View, l.HasView, l.Plot, th)
		return
	}
	if l.Line {
		r.drawLine(screen, sc, l, th)
		r.drawUnitList(screen, l.Units, th)
	}
}

// drawNoRun draws why there is no run to show yet (scene.NoRun): the
// network's error, or the run's progress over its bar.
func (r *transformerRenderer) drawNoRun(screen *ebiten.Image, n scene.NoRun, th scene.Theme) {
	if n.Failed {
		r.putAll(screen, n.Lines, th.Query)
		return
	}
	r.putAll(screen, n.Lines, muted(th))
	r.progressBar(n.Bar, n.Fraction, th)
}

// drawLine draws phase B: F on the single tokens of the line against
// θ = atan t, the pieces found so far, and the marks.
func (r *transformerRenderer) drawLine(screen *ebiten.Image, sc *scene.Transformer, l *scene.TransformerSteps, th scene.Theme) {
	u := r.u
	mc := muted(th)
	plot, ax, marks := l.Plot, l.Axes, sc.Marks()
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
	r.clipSmooth.Polyline(pts, 1.5*u, mix(th.Background, mc, 0.55))

	// Each piece over the stretch between its neighbouring kinks.
	for _, sp := range sc.Spans() {
		p, a, b := sp.Piece, sp.A, sp.B
		var seg [][2]float64
		for px := ax.X(a); px <= ax.X(b)+0.01; px += 2 * u {
			t := ax.T(math.Min(px, ax.X(b)))
			seg = append(seg, [2]float64{px, ax.Y(sc.PieceF(p, t))})
		}
		if len(seg) > 1 {
			r.clipSmooth.Polyline(seg, 3*u, accent(th))
		}
	}
	// The marks: local solves as diamonds on the axis, side and hyperplane
	// queries as small dots on the curve, kinks as vertical lines.
	base := plot.Y + plot.H - 10*u
	cur, _ := sc.Current()
	nk := 0 // kinks drawn, to stagger their labels
	for _, m := range marks {
		px := ax.X(m.T)
		last := m.Step == sc.Step()
		switch m.Kind {
		case transformer.KinkFound:
			c := th.Text
			if m.Unit >= 0 {
				k := unitColor(th, m.Unit)
				c.R, c.G, c.B, c.A = k[0], k[1], k[2], k[3]
			}
			r.clipSmooth.Dashed(px, plot.Y, px, plot.Y+plot.H, 6*u, 2.5*u, c)
			if m.Unit >= 0 {
				lbl := fmt.Sprintf("unit %d", m.Unit+1)
				lx := px + 4*u
				if lx+r.text.Width(lbl) > plot.X+plot.W {
					lx = px - 4*u - r.text.Width(lbl)
				}
				r.under.put(dst, &r.text, lbl, lx, plot.Y+6*u+r.text.LineHeight()*float64(1+nk%4), c)
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
			r.clipSmooth.Line(px-s, base, px, base-s, 2*u, c)
			r.clipSmooth.Line(px, base-s, px+s, base, 2*u, c)
			r.clipSmooth.Line(px+s, base, px, base+s, 2*u, c)
			r.clipSmooth.Line(px, base+s, px-s, base, 2*u, c)
		default:
			c := th.Text
			if !m.OK {
				c = th.Query
			}
			py := ax.Y(sc.TrueF(m.T))
			r.clipSmooth.Disc(px, py, 3.5*u, c)
			if last {
				r.clipSmooth.Ring(px, py, 9*u, 2*u, th.Query)
			}
		}
	}
	if cur.Kind == transformer.SelfCheck {
		r.under.put(dst, &r.text, "self-check: a random sequence against the assembled network", plot.X+6*u, plot.Y+plot.H-r.text.LineHeight()-24*u, th.Query)
	}
	r.clipTo(plot)
	r.putAll(screen, l.Legend, mc)
	if r.hoverMark >= 0 && r.hoverMark < len(marks) {
		m := marks[r.hoverMark]
		tip := fmt.Sprintf("step %d: %s at t = %s", m.Step, m.Kind, scene.FormatT(m.T))
		if !m.OK {
			tip += " (did not confirm)"
		}
		if m.Unit >= 0 {
			tip += fmt.Sprintf(", unit %d", m.Unit+1)
		}
		tw := r.text.Width(tip) + 12*u
		tx := math.Min(r.hoverX+14*u, plot.X+plot.W-tw)
		ty := r.hoverY + 18*u
		r.top.Rect(tx, ty, tw, r.text.LineHeight()+8*u, th.Background)
		r.top.StrokeRect(tx, ty, tw, r.text.LineHeight()+8*u, u, th.Axis)
		r.topLab.put(screen, &r.text, tip, tx+6*u, ty+4*u, th.Text)
	}
}

// drawUnitList draws the list of the units identified so far, in their
// colours.
func (r *transformerRenderer) drawUnitList(screen *ebiten.Image, l scene.UnitList, th scene.Theme) {
	r.put(screen, l.Title, th.Text)
	for _, row := range l.Rows {
		k := unitColor(th, row.Unit)
		c := th.Text
		c.R, c.G, c.B, c.A = k[0], k[1], k[2], k[3]
		r.flat.Rect(row.Swatch.X, row.Swatch.Y, row.Swatch.W, row.Swatch.H, c)
		r.put(screen, row.Label, th.Text)
	}
	r.putAll(screen, l.None, muted(th))
}

// drawTResult draws the recovered against the true network.
func (r *transformerRenderer) drawTResult(screen *ebiten.Image, sc *scene.Transformer, full scene.Rect, th scene.Theme) {
	u := r.u
	p := r.panel(screen, full, "Recovered against the true network, up to equivalence", th)
	pad, x, y, w := p.Pad, p.Pad, p.Top, p.W()
	mc := muted(th)
	if n, none := sc.NoRunLayout(r.measure(), x, y, w, ""); none {
		r.drawNoRun(screen, n, th)
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
	y += r.text.LineHeight() + 2*u
	pair, errs := sc.Pairing()
	for h := range sc.Odd {
		c := th.HeadColor(h)
		r.flat.Rect(x, y+3*u, 10*u, 10*u, c)
		s := fmt.Sprintf("head %d: relative error of (W_h, w_h) %s", h+1, "—")
		if h < len(pair) && h < len(errs) {
			s = fmt.Sprintf("head %d ↔ recovered head %d: relative error of (W_h, w_h) %s", h+1, pair[h]+1, scene.FormatSci(errs[h]))
		}
		r.lab.put(screen, &r.text, s, x+16*u, y, th.Text)
		y += r.text.LineHeight()
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
	y += r.text.LineHeight() + 2*u
	for _, row := range sc.UnitRows() {
		if y > full.H-pad-r.text.LineHeight() {
			break
		}
		c := th.Text
		if row.Found >= 0 {
			k := unitColor(th, row.Found)
			c.R, c.G, c.B, c.A = k[0], k[1], k[2], k[3]
		}
		r.flat.Rect(cols[0], y+3*u, 10*u, 10*u, c)
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
		y += r.text.LineHeight()
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
