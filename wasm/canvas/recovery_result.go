//go:build js && wasm

package main

import (
	"fmt"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/numerics/recovery"
	"headlab/wasm/scene"
)

// resultView is the result view's layout: the run's summary and the heat
// maps under it (Recovery.ResultLayout), computed when the scene, its run
// or the canvas changes, and kept for the pointer's hit-testing.
type resultView struct {
	sc        *scene.Recovery
	run       *recovery.Result
	w, h      float64
	ty        scene.Type // the type it was laid out in
	summary   string
	heat      scene.HeatLayout
	heatShown bool    // the heat maps are drawn (the run has a pairing)
	titlesY   float64 // the y of the column titles, under the summary
}

// resultLayout returns the result view's layout, computing it when the
// scene, its run, the canvas or the type changed since the last time.
func (r *recoveryRenderer) resultLayout(a *app, sc *scene.Recovery) *resultView {
	rv := &r.result
	if rv.sc == sc && rv.run == sc.Result && rv.w == a.view.Width && rv.h == a.view.Height && rv.ty == r.ty {
		return rv
	}
	*rv = resultView{sc: sc, run: sc.Result, w: a.view.Width, h: a.view.Height, ty: r.ty}
	if sc.Computing() || sc.Err != nil {
		return rv
	}
	res := sc.Result
	if sc.Replay != nil {
		rv.summary = fmt.Sprintf("%d queries (paper bound %d), longest %d tokens · self-check residual %s× the noise model · estimated error %s · largest RF condition number %s",
			res.Queries, sc.Bound(), res.MaxLength, scene.FormatNum(res.Residual), scene.FormatSci(res.Estimate), scene.FormatSci(res.Cond))
		return rv
	}
	rv.summary = fmt.Sprintf("%d queries (paper bound %d), longest %d tokens · largest relative error %s · self-check residual %s× the noise model · estimated error %s · largest RF condition number %s",
		res.Queries, sc.Bound(), res.MaxLength, scene.FormatSci(sc.Error), scene.FormatNum(res.Residual), scene.FormatSci(res.Estimate), scene.FormatSci(res.Cond))
	if b := sc.BiasSummary(); b != "" {
		rv.summary += " · " + b
	}
	p := scene.NewPanel(scene.Rect{W: rv.w, H: rv.h}, r.ty)
	y, lh := p.Top, r.text.LineHeight()*1.1 // as paragraph draws it
	for range wrapWidth(&r.text, rv.summary, p.W()) {
		y += lh
	}
	rv.titlesY = y + 6*r.u
	if pair, _ := sc.Pairing(); pair != nil {
		rv.heat = sc.ResultLayout(p, rv.titlesY, r.measure())
		rv.heatShown = len(rv.heat.W) > 0
	}
	return rv
}

func (r *recoveryRenderer) drawResult(screen *ebiten.Image, a *app, sc *scene.Recovery, full scene.Rect, th scene.Theme) {
	u := r.u
	title := "Recovered against true canonical heads"
	if sc.Replay != nil {
		title = "Recovered heads of a replayed run"
	}
	p := r.panel(screen, full, title, th)
	pad, x, y, w := p.Pad, p.Pad, p.Top, p.W()
	mc := muted(th)
	if sc.Computing() {
		r.drawRunProgress(screen, sc, x, y, w, th)
		return
	}
	res := sc.Result
	if sc.Err != nil {
		where := "the global fit of all heads to every answer"
		if f := sc.Fault; f != nil && f.RF >= 0 {
			where = fmt.Sprintf("rational function %s (RF %d of the schedule, queries %d–%d)", f.Name, f.RF+1, f.First+1, f.Last+1)
		}
		reason := sc.Err.Error()
		if sc.Fault != nil {
			reason = sc.Fault.Reason
			if sc.Fault.Err != nil {
				reason += ": " + sc.Fault.Err.Error()
			}
		}
		y = r.paragraph(screen, &r.title, "This run could not be resolved in float64, so no numbers are shown.", x, y+8*u, w, th.Query) + 8*u
		y = r.paragraph(screen, &r.text, "Where: "+where+".", x, y, w, th.Text) + 4*u
		y = r.paragraph(screen, &r.text, "Why: "+reason+".", x, y, w, th.Text) + 8*u
		r.paragraph(screen, &r.text, "Try another seed, a smaller H, less noise, or paper mode; the step view shows the function at fault.", x, y, w, mc)
		return
	}
	rv := r.resultLayout(a, sc)
	y = r.paragraph(screen, &r.text, rv.summary, x, y, w, mc) + 6*u
	if sc.Replay != nil {
		r.drawReplayHeads(screen, sc, x, y, w, th)
		return
	}
	pair, errs := sc.Pairing()
	if pair == nil {
		r.paragraph(screen, &r.text, fmt.Sprintf("The run found %d heads; the true layer has %d canonical heads.", len(res.Layer), len(sc.Canonical)), x, y, w, th.Query)
		return
	}
	// Column titles.
	d := sc.State.D
	l := rv.heat
	if !rv.heatShown {
		return
	}
	r.put(screen, l.Titles[0], th.Text)
	r.put(screen, l.Titles[1], th.Text)
	ws, vs := scene.HeadScale(sc.Canonical)
	for h := range sc.Canonical {
		c := th.HeadColor(h)
		oy := l.W[h][0][1]
		r.flat.Rect(x, oy+2*u, 12*u, 12*u, c)
		r.lab.put(screen, &r.text, fmt.Sprintf("head %d", h+1), x+16*u, oy, th.Text)
		r.lab.put(screen, &r.text, "W", x+16*u, oy+r.text.LineHeight(), mc)
		r.lab.put(screen, &r.text, "v", x+16*u, l.VY(h), mc)
		for side := 0; side < 2; side++ {
			layer, hh := sc.Canonical, h
			if side == 1 {
				layer, hh = res.Layer, pair[h]
			}
			for i := 0; i <= d; i++ {
				for j := 0; j < d; j++ {
					val := scene.HeadValue(layer, hh, i, j)
					scale := ws
					if i == d {
						scale = vs
					}
					cell := l.CellRect(h, side, i, j)
					gap := math.Min(2*u, l.Cell/8)
					r.flat.Rect(cell.X, cell.Y, cell.W-gap, cell.H-gap, heatColor(th, val, scale))
					if l.Cell >= 40*u {
						s := fmt.Sprintf("%.2f", val)
						r.lab.put(screen, &a.gfx.labels, s, cell.X+3*u, cell.Y+3*u, th.Text)
					}
				}
			}
		}
		ex := l.W[h][1][0] + float64(d)*l.Cell + 14*u
		r.lab.put(screen, &r.text, "error", ex, oy, mc)
		r.lab.put(screen, &r.text, scene.FormatSci(errs[h]), ex, oy+r.text.LineHeight(), th.Text)
	}
	// The value under the pointer.
	if hv := r.hovered; hv.ok && r.hovering {
		h, side, i, j := hv.h, hv.side, hv.i, hv.j
		cell := l.CellRect(h, side, i, j)
		r.top.StrokeRect(cell.X, cell.Y, cell.W, cell.H, 2*u, th.Text)
		tv := scene.HeadValue(sc.Canonical, h, i, j)
		rv := scene.HeadValue(res.Layer, pair[h], i, j)
		name := fmt.Sprintf("W[%d,%d]", i+1, j+1)
		if i == d {
			name = fmt.Sprintf("v[%d]", j+1)
		}
		tip := fmt.Sprintf("head %d %s: true %.10g, recovered %.10g, difference %.2g", h+1, name, tv, rv, rv-tv)
		tw := r.text.Width(tip) + 12*u
		tx := math.Min(hv.x+14*u, full.W-tw-4*u)
		ty := math.Min(hv.y+18*u, full.H-r.text.LineHeight()-10*u)
		r.top.Rect(tx, ty, tw, r.text.LineHeight()+8*u, th.Background)
		r.top.StrokeRect(tx, ty, tw, r.text.LineHeight()+8*u, u, th.Axis)
		r.topLab.put(screen, &r.text, tip, tx+6*u, ty+4*u, th.Text)
	}
	r.topLab.put(screen, &r.text, "Colour: red positive, blue negative, per matrix kind on one scale; hover a cell for its values.", x, full.H-pad-r.text.LineHeight(), mc)
}

// drawRunProgress draws how far the computation of the run has got, a
// line of text over a bar, and returns the y below them.
func (r *recoveryRenderer) drawRunProgress(screen *ebiten.Image, sc *scene.Recovery, x, y, w float64, th scene.Theme) float64 {
	u := r.u
	line, frac := sc.ProgressLine()
	y = r.paragraph(screen, &r.text, line, x, y, w, muted(th))
	r.progressBar(scene.ProgressTrack(x, y, w, u), frac, th)
	return y + 14*u
}

func heatColor(th scene.Theme, x, scale float64) color.RGBA {
	if !(scale > 0) || !finite(x) {
		return th.Grid
	}
	f := x / scale
	c := th.Hot
	if f < 0 {
		c, f = th.Cold, -f
	}
	return mix(th.Background, c, 0.12+0.88*math.Min(1, f))
}

// drawReplayHeads draws the heads a replayed run recovered, as numbers:
// there is no true layer to compare them with.
func (r *recoveryRenderer) drawReplayHeads(screen *ebiten.Image, sc *scene.Recovery, x, y, w float64, th scene.Theme) {
	u := r.u
	rp, res := sc.Replay, sc.Result
	y = r.paragraph(screen, &r.text, fmt.Sprintf("A replay of the run log %s (SHA-256 %.16s…), recorded from the oracle %q: the answers are the log's, so there is no true layer to compare with.",
		rp.Name, rp.Hash, rp.Oracle), x, y, w, th.Query) + 6*u
	num := func(v []float64) string {
		s := ""
		for i, x := range v {
			if i > 0 {
				s += "  "
			}
			s += fmt.Sprintf("%.6g", x)
		}
		return s
	}
	for h, hd := range res.Layer {
		d, _ := hd.W.Dims()
		c := th.HeadColor(h)
		r.flat.Rect(x, y+2*u, 12*u, 12*u, c)
		y = r.paragraph(screen, &r.text, fmt.Sprintf("head %d", h+1), x+16*u, y, w-16*u, th.Text)
		for i := 0; i < d; i++ {
			y = r.paragraph(screen, &r.text, "W row "+fmt.Sprint(i+1)+":  "+num(hd.W.RawRowView(i)), x+16*u, y, w-16*u, th.Text)
		}
		y = r.paragraph(screen, &r.text, "v:  "+num(hd.V.RawVector().Data), x+16*u, y, w-16*u, th.Text)
		if h < len(res.QueryBias) {
			y = r.paragraph(screen, &r.text, "c:  "+num(res.QueryBias[h]), x+16*u, y, w-16*u, th.Text)
		}
		y += 6 * u
	}
	if res.QueryBias != nil {
		r.paragraph(screen, &r.text, fmt.Sprintf("C:  %.6g", res.Const), x, y, w, th.Text)
	}
}
