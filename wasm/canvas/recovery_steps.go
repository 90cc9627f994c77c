//go:build js && wasm

package main

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/numerics/recovery"
	"headlab/numerics/replay"
	"headlab/wasm/scene"
)

func (r *recoveryRenderer) drawSteps(screen *ebiten.Image, a *app, sc *scene.Recovery, full scene.Rect, th scene.Theme) {
	u := r.u
	f := scene.NewStepFrame(full, u, scene.StepsSide)
	narrow := f.Narrow
	x, y, w := f.Pad, f.Pad, f.W()
	mc := muted(th)

	// Header: the step and the rational function.
	step, steps := sc.Step(), sc.Steps()
	head := fmt.Sprintf("Step %d of %d", step, steps)
	if sc.Computing() {
		head = "Computing the run…"
	}
	hx := x + r.lab.put(screen, &r.title, head, x, y, th.Text) + 16*u
	v, has := sc.View()
	if has {
		what := v.RF.Name() + "  ·  " + v.RF.Kind.String()
		if narrow {
			y += lineHeight(&r.title)
			hx = x
		}
		r.lab.put(screen, &r.text, what, hx, y+(lineHeight(&r.title)-lineHeight(&r.text))/2, mc)
	}
	y += lineHeight(&r.title) + 6*u

	y = r.drawCounter(screen, sc, x, y, w, th)
	y += 10 * u
	y = r.drawStrip(screen, sc, v, has, x, y, w, th)
	y += 8 * u

	// The plot and, beside or under it, the pole table.
	plot, table := sc.StepsLayout(f, y, r.ty)
	r.drawPlot(screen, sc, v, has, plot, th)
	if table != (scene.Rect{}) {
		r.drawTable(screen, sc, v, has, table, th)
	}
}

// drawCounter draws the running count of queries against the paper's
// 4Hd²−2H+1, economy mode's count and the information bound H(d²+d), with
// the longest query against 2H+1, and returns the y below it.
func (r *recoveryRenderer) drawCounter(screen *ebiten.Image, sc *scene.Recovery, x, y, w float64, th scene.Theme) float64 {
	u := r.u
	mc := muted(th)
	H := sc.Heads()
	bound, info := sc.Bound(), sc.Information()
	econ := recovery.EconomyQueries(H, sc.State.D)
	steps := sc.Steps()
	q := sc.Step()
	line := fmt.Sprintf("queries %d of %d", q, steps)
	lx := x + r.lab.put(screen, &r.text, line, x, y, th.Text) + 18*u
	longest := fmt.Sprintf("longest query %d of 2H+1 = %d tokens", sc.MaxLength(), 2*H+1)
	if lx+widthOf(&r.text, longest) > x+w {
		y += lineHeight(&r.text)
		lx = x
	}
	r.lab.put(screen, &r.text, longest, lx, y, mc)
	y += lineHeight(&r.text) + 4*u

	// The bar.
	top := float64(max(bound, steps, econ)) * 1.02
	bh := 12 * u
	r.flat.rect(x, y, w, bh, th.Grid)
	fill := w * float64(q) / top
	r.flat.rect(x, y, fill, bh, accent(th))
	marks := []struct {
		n    int
		name string
	}{{info, fmt.Sprintf("information H(d²+d) = %d", info)}, {econ, fmt.Sprintf("economy %d", econ)}, {bound, fmt.Sprintf("paper 4Hd²−2H+1 = %d", bound)}}
	ty := y + bh + 3*u
	lastEnd := math.Inf(-1)
	row := 0.0
	for _, m := range marks {
		mx := x + w*float64(m.n)/top
		r.smooth.line(mx, y-3*u, mx, y+bh+3*u, 2*u, th.Text)
		tw := widthOf(&r.text, m.name)
		tx := math.Min(math.Max(x, mx-tw/2), x+w-tw)
		rowY := ty
		if tx < lastEnd+8*u {
			row++
			rowY = ty + row*lineHeight(&r.text)
		} else {
			row = 0
		}
		r.lab.put(screen, &r.text, m.name, tx, rowY, mc)
		lastEnd = tx + tw
	}
	return ty + (row+1)*lineHeight(&r.text)
}

// drawRunProgress draws how far the computation of the run has got, a
// line of text over a bar, and returns the y below them.
func (r *recoveryRenderer) drawRunProgress(screen *ebiten.Image, sc *scene.Recovery, x, y, w float64, th scene.Theme) float64 {
	u := r.u
	p := sc.RunProgress()
	line := fmt.Sprintf("Computing the run… %s (%d%%)", scene.ProgressText(p), int(100*p.Fraction))
	y = r.paragraph(screen, &r.text, line, x, y, w, muted(th))
	r.progressBar(x, y, w, p.Fraction, th)
	return y + 14*u
}

// drawStrip draws the current query as a strip of token glyphs: n copies
// of a, then z, with the oracle's answer.
func (r *recoveryRenderer) drawStrip(screen *ebiten.Image, sc *scene.Recovery, v replay.StepView, has bool, x, y, w float64, th scene.Theme) float64 {
	u := r.u
	mc := muted(th)
	g := 34 * u
	if !has {
		if sc.Computing() {
			y = r.drawRunProgress(screen, sc, x, y+8*u, w, th)
			return r.paragraph(screen, &r.text, "Running the whole schedule once; then every step is instant.", x, y, w, mc) + 8*u
		}
		msg := "No query yet. Each query is n copies of a token a followed by a query token z; press → for the first."
		return r.paragraph(screen, &r.text, msg, x, y+8*u, w, mc) + 8*u
	}
	tokens := v.N + 1
	label := fmt.Sprintf("query %d:", sc.Step())
	lw := r.lab.put(screen, &r.text, label, x, y+(g-lineHeight(&r.text))/2, mc) + 10*u
	ans := fmt.Sprintf("F(%d) = %s", v.N, scene.FormatNum(v.RF.F[v.Current]))
	aw := widthOf(&r.title, ans) + 16*u
	avail := w - lw - aw
	gap := 6 * u
	if float64(tokens)*(g+gap) > avail {
		g = math.Max(10*u, avail/float64(tokens)-gap)
		if g < 20*u {
			gap = 3 * u
		}
	}
	gx := x + lw
	tokCol := mix(th.Background, th.Token, 0.75)
	for i := 0; i < v.N; i++ {
		r.smooth.rect(gx, y, g, g, tokCol)
		if g >= 18*u {
			tw := widthOf(&r.text, "a")
			r.lab.put(screen, &r.text, "a", gx+(g-tw)/2, y+(g-lineHeight(&r.text))/2, th.Background)
		}
		gx += g + gap
	}
	r.smooth.disc(gx+g/2, y+g/2, g/2, th.Query)
	if g >= 18*u {
		tw := widthOf(&r.text, "z")
		r.lab.put(screen, &r.text, "z", gx+(g-tw)/2, y+(g-lineHeight(&r.text))/2, th.Background)
	}
	gx += g + 14*u
	r.lab.put(screen, &r.title, ans, gx, y+(g-lineHeight(&r.title))/2, th.Text)
	y += g + 4*u
	desc := fmt.Sprintf("%d copies of a, then z (%d tokens)", v.N, tokens)
	if v.N == 1 {
		desc = "1 copy of a, then z (2 tokens)"
	}
	if v.N == 0 {
		desc = "z alone (1 token)"
	}
	desc += fmt.Sprintf(" · sample %d of %d of %s", v.Taken, len(v.RF.N), v.RF.Name())
	return r.paragraph(screen, &r.text, desc, x+lw, y, w-lw, mc)
}

// drawPlot draws the samples (n, F(n)) taken so far and, once every sample
// of the RF is in, the fitted rational function over negative and positive
// n with its poles −ρ_h as vertical asymptotes in the colour of the head
// each is matched to.
func (r *recoveryRenderer) drawPlot(screen *ebiten.Image, sc *scene.Recovery, v replay.StepView, has bool, plot scene.Rect, th scene.Theme) {
	u := r.u
	mc := muted(th)
	if !has {
		r.smooth.strokeRect(plot.X, plot.Y, plot.W, plot.H, u, th.Grid)
		msg := "The samples (n, F(n)) of each rational function appear here, one per step, and its fit with the poles −ρ_h once all are in."
		if sc.Computing() {
			msg = fmt.Sprintf("Computing %d queries and their fits…", sc.Steps())
		}
		yy := plot.Y + plot.H/2 - lineHeight(&r.text)
		r.paragraph(screen, &r.text, msg, plot.X+24*u, yy, plot.W-48*u, mc)
		return
	}
	rf := v.RF
	ax := sc.PlotRange(v.Index, plot)
	dst := clip(screen, plot, 0)
	defer r.clipTo(plot)
	// n < 0 holds no query: shade it, the poles live there.
	x0, _ := ax.ToScreen(ax.X0, 0)
	xz, _ := ax.ToScreen(0, 0)
	r.clipFlat.rect(x0, plot.Y, xz-x0, plot.H, mix(th.Background, th.Grid, 0.45))
	// Grid and axes.
	var xs, ys []tick
	for _, n := range ax.NTicks() {
		px, _ := ax.ToScreen(n, 0)
		xs = append(xs, tick{px, n == 0, scene.FormatTick(n)})
	}
	for _, yv := range ax.YTicks(5) {
		_, py := ax.ToScreen(0, yv)
		ys = append(ys, tick{py, yv == 0, scene.FormatTick(yv)})
	}
	r.grid(screen, plot, xs, ys, th)
	axisName := "n (copies of a)"
	if ax.Log {
		axisName += ", scale sign(n)·log(1+|n|)"
	}
	r.plotFrame(screen, plot, axisName, th) // the shading and the grid under the frame
	r.under.put(dst, &r.text, "n < 0: no queries here; the poles −ρ lie here", plot.X+6*u, plot.Y+4*u, mc)

	if v.Fitted {
		fit := rf.Fit
		// The constant C = lim F, dotted.
		if finite(fit.C) {
			_, py := ax.ToScreen(0, fit.C)
			r.clipSmooth.dashed(plot.X, py, plot.X+plot.W, py, 3*u, u, mc)
			r.under.put(dst, &r.text, "C", plot.X+plot.W-widthOf(&r.text, "C")-4*u, py-lineHeight(&r.text), mc)
		}
		// Asymptotes at −ρ_h, coloured by head.
		for b, rho := range fit.Poles {
			c, name := headStyle(th, poleHead(rf, b), "unmatched")
			px, _ := ax.ToScreen(-rho, 0)
			r.clipSmooth.dashed(px, plot.Y, px, plot.Y+plot.H, 7*u, 2.5*u, c)
			ly := plot.Y + 6*u + lineHeight(&r.text)*float64(2+b%3)
			lbl := name
			if px+6*u+widthOf(&r.text, lbl) > plot.X+plot.W {
				r.under.put(dst, &r.text, lbl, px-6*u-widthOf(&r.text, lbl), ly, c)
			} else {
				r.under.put(dst, &r.text, lbl, px+6*u, ly, c)
			}
			rl := "−ρ = " + scene.FormatNum(-rho)
			r.under.put(dst, &r.text, rl, px+6*u, plot.Y+plot.H-lineHeight(&r.text)*float64(1+b%3)-4*u, c)
		}
		// The curve, broken at the poles.
		span := ax.Y1 - ax.Y0
		var px0, py0, n0 float64
		ok0 := false
		for px := plot.X; px <= plot.X+plot.W; px += 1.5 * u {
			n := ax.ToN(px)
			y := fit.Eval(n)
			_, py := ax.ToScreen(n, y)
			ok := finite(y) && y > ax.Y0-3*span && y < ax.Y1+3*span
			if ok && ok0 && !poleBetween(fit.Poles, n0, n) {
				r.clipSmooth.line(px0, py0, px, py, 3*u, accent(th))
			}
			px0, py0, n0, ok0 = px, py, n, ok
		}
	} else {
		need := len(rf.N) - v.Taken
		msg := fmt.Sprintf("fit once all %d samples are in: %d more", len(rf.N), need)
		r.under.put(dst, &r.text, msg, plot.X+plot.W-widthOf(&r.text, msg)-8*u, plot.Y+4*u, mc)
	}
	// The samples taken so far; the current one ringed.
	for i := 0; i < v.Taken; i++ {
		px, py := ax.ToScreen(rf.N[i], rf.F[i])
		if i == v.Current {
			r.clipSmooth.disc(px, py, 8*u, th.Query)
			r.clipSmooth.ring(px, py, 13*u, 2*u, th.Query)
			continue
		}
		r.clipSmooth.disc(px, py, 6*u, th.Text)
		r.clipSmooth.ring(px, py, 6*u, 1.5*u, th.Background)
	}
}

// recPoleHead returns the head pole b of rf is matched to, −1 for none.
func poleHead(rf *recovery.RF, b int) int {
	if b < len(rf.Heads) {
		return rf.Heads[b]
	}
	return -1
}

// recHeadStyle returns the colour and the name of head h (counted from 0)
// as the step view labels a pole: muted and none when h < 0, a pole
// matched to no head.
func headStyle(th scene.Theme, h int, none string) (color.RGBA, string) {
	if h < 0 {
		return muted(th), none
	}
	return th.HeadColor(h), fmt.Sprintf("head %d", h+1)
}

// plotFrame draws what lies under a plot's frame (the shapes gathered in
// the clip batches: its shading and grid), the frame itself, and the name
// of the horizontal axis under its right end.
func (r *recoveryRenderer) plotFrame(screen *ebiten.Image, plot scene.Rect, xName string, th scene.Theme) {
	u := r.u
	r.clipTo(plot)
	r.flat.strokeRect(plot.X, plot.Y, plot.W, plot.H, u, th.Axis)
	r.lab.put(screen, &r.text, xName, plot.X+plot.W-widthOf(&r.text, xName), plot.Y+plot.H+4*u+lineHeight(&r.text), muted(th))
}

// progressBar draws a thin bar, filled to fraction f, under y.
func (r *recoveryRenderer) progressBar(x, y, w, f float64, th scene.Theme) {
	u := r.u
	r.flat.rect(x, y+2*u, w, 6*u, th.Grid)
	r.flat.rect(x, y+2*u, w*math.Max(0, math.Min(1, f)), 6*u, accent(th))
}

// poleBetween reports whether a pole −ρ lies between n0 and n1.
func poleBetween(poles []float64, n0, n1 float64) bool {
	lo, hi := math.Min(n0, n1), math.Max(n0, n1)
	for _, rho := range poles {
		if -rho >= lo && -rho <= hi {
			return true
		}
	}
	return false
}

// drawTable explains the current RF's poles: for a measurement, what each
// pole measures; for a link, why each pole belongs to its head (its p and
// r are the sums of the measurements it links).
func (r *recoveryRenderer) drawTable(screen *ebiten.Image, sc *scene.Recovery, v replay.StepView, has bool, rc scene.Rect, th scene.Theme) {
	u := r.u
	mc := muted(th)
	dst := clip(screen, rc, 0)
	defer r.clipTo(rc)
	x, y := rc.X, rc.Y
	lh := lineHeight(&r.text) * 1.08
	if !has {
		return
	}
	rf := v.RF
	if !v.Fitted {
		known := "C = V·a is not known yet: 2H+1 samples, n = 0…2H."
		if rf.KnownC {
			known = "C = V·a is known from earlier functions: 2H samples, n = 1…2H."
		}
		if rc.W > 200*u {
			r.paragraph(dst, &r.text, known, x, y, rc.W, mc)
		}
		return
	}
	if rf.Kind == recovery.Measurement {
		y = r.paragraph(dst, &r.text, fmt.Sprintf("%s = RF(z_%d, u_%d): each pole measures p = c·u_%d·W_h z_%d and r = c·v_h·u_%d.",
			rf.Name(), rf.J+1, rf.I+1, rf.I+1, rf.J+1, rf.I+1), x, y, rc.W, mc) + 4*u
		for b := range rf.P {
			c, name := headStyle(th, poleHead(rf, b), "—")
			r.clipFlat.rect(x, y+lh*0.25, 10*u, 10*u, c)
			rv := math.NaN()
			if b < len(rf.R) {
				rv = rf.R[b]
			}
			r.lab.put(dst, &r.text, fmt.Sprintf("%s   p = %s   r = %s", name, scene.FormatNum(rf.P[b]), scene.FormatNum(rv)), x+16*u, y, th.Text)
			y += lh
		}
		r.lab.put(dst, &r.text, fmt.Sprintf("fit condition number %s", scene.FormatSci(rf.Fit.Cond)), x, y+4*u, mc)
		return
	}
	y = r.paragraph(dst, &r.text, "Link: each pole's p is the sum of the linked measurements' p of one head, and its r their r — that pairs the poles.", x, y, rc.W, mc) + 4*u
	for _, row := range sc.LinkRows(v.Index) {
		c, name := headStyle(th, row.Head, "—")
		r.clipFlat.rect(x, y+lh*0.25, 10*u, 10*u, c)
		r.lab.put(dst, &r.text, fmt.Sprintf("%s   p = %s   r = %s", name, scene.FormatNum(row.P), scene.FormatNum(row.R)), x+16*u, y, th.Text)
		y += lh
		var parts []string
		for _, t := range row.Terms {
			parts = append(parts, scene.FormatNum(t.P))
		}
		names := make([]string, len(row.Terms))
		for i, t := range row.Terms {
			names[i] = t.Name
		}
		r.lab.put(dst, &r.text, fmt.Sprintf("= p(%s) = %s", strings.Join(names, ")+p("), strings.Join(parts, " + ")), x+16*u, y, mc)
		y += lh
	}
}
