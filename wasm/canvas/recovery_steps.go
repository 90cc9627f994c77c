//go:build js && wasm

package main

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/numerics/replay"
	"headlab/wasm/scene"
)

// drawSteps draws the step view as its layout (scene.RecoverySteps,
// computed by layoutSteps) places it.
func (r *recoveryRenderer) drawSteps(screen *ebiten.Image, sc *scene.Recovery, th scene.Theme) {
	l := &r.steps
	r.put(screen, l.Head, th.Text)
	r.putAll(screen, l.What, muted(th))
	r.drawCounter(screen, l.Counter, th)
	r.drawStrip(screen, l.Strip, th)
	v, has := sc.View()
	r.drawPlot(screen, sc, v, has, l.Plot, th)
	if l.Table != (scene.Rect{}) {
		r.drawTable(screen, l.Poles, l.Table, th)
	}
}

// drawCounter draws a step view's count of queries: its lines over its
// bar.
func (r *recoveryRenderer) drawCounter(screen *ebiten.Image, c scene.Counter, th scene.Theme) {
	r.put(screen, c.Line, th.Text)
	r.put(screen, c.Longest, muted(th))
	r.drawBar(screen, c.Bar, th)
}

// drawBar draws a counter's bar: its title, the track filled so far, and
// each mark as a tick across the bar with its label.
func (r *recoveryRenderer) drawBar(screen *ebiten.Image, b scene.Bar, th scene.Theme) {
	u, mc := r.u, muted(th)
	r.put(screen, b.Title, mc)
	t := b.Track
	r.flat.Rect(t.X, t.Y, t.W, t.H, th.Grid)
	r.flat.Rect(t.X, t.Y, b.Fill, t.H, accent(th))
	for _, m := range b.Marks {
		r.smooth.Line(m.X, t.Y-3*u, m.X, t.Y+t.H+3*u, 2*u, th.Text)
		r.put(screen, m.Label, mc)
	}
}

// drawStrip draws the current query as a strip of token glyphs (n copies
// of a, then z, with the oracle's answer), or what comes before the first
// query.
func (r *recoveryRenderer) drawStrip(screen *ebiten.Image, s scene.Strip, th scene.Theme) {
	mc := muted(th)
	r.putAll(screen, s.Progress, mc)
	if len(s.Progress) > 0 {
		r.progressBar(s.ProgressBar, s.Fraction, th)
	}
	r.putAll(screen, s.Notes, mc)
	r.put(screen, s.Query, mc)
	tokCol := mix(th.Background, th.Token, 0.75)
	for i, g := range s.Tokens {
		if i < len(s.Tokens)-1 {
			r.smooth.Rect(g.X, g.Y, g.W, g.H, tokCol)
		} else {
			r.smooth.Disc(g.X+g.W/2, g.Y+g.H/2, g.W/2, th.Query)
		}
	}
	r.putAll(screen, s.Letters, th.Background)
	r.put(screen, s.Answer, th.Text)
	r.putAll(screen, s.Desc, mc)
}

// drawPlot draws the samples (n, F(n)) taken so far and, once every sample
// of the RF is in, the fitted rational function over negative and positive
// n with its poles −ρ_h as vertical asymptotes in the colour of the head
// each is matched to.
func (r *recoveryRenderer) drawPlot(screen *ebiten.Image, sc *scene.Recovery, v replay.StepView, has bool, plot scene.Rect, th scene.Theme) {
	u := r.u
	mc := muted(th)
	if !has {
		r.smooth.StrokeRect(plot.X, plot.Y, plot.W, plot.H, u, th.Grid)
		msg := "The samples (n, F(n)) of each rational function appear here, one per step, and its fit with the poles −ρ_h once all are in."
		if sc.Computing() {
			msg = fmt.Sprintf("Computing %d queries and their fits…", sc.Steps())
		}
		yy := plot.Y + plot.H/2 - r.text.LineHeight()
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
	r.clipFlat.Rect(x0, plot.Y, xz-x0, plot.H, mix(th.Background, th.Grid, 0.45))
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
	const negLabel = "n < 0: no queries here; the poles −ρ lie here"
	r.under.put(dst, &r.text, negLabel, plot.X+6*u, plot.Y+4*u, mc)

	if v.Fitted {
		fit := rf.Fit
		// The constant C = lim F, dotted.
		if finite(fit.C) {
			_, py := ax.ToScreen(0, fit.C)
			r.clipSmooth.Dashed(plot.X, py, plot.X+plot.W, py, 3*u, u, mc)
			r.under.put(dst, &r.text, "C", plot.X+plot.W-r.text.Width("C")-4*u, py-r.text.LineHeight(), mc)
		}
		// Asymptotes at −ρ_h, coloured by head, each named in the upper
		// half and valued in the lower, in the first row where its label
		// clears the others (a label no row has room for is left out:
		// the pole table lists every pole).
		lh := r.text.LineHeight()
		names, values := scene.LabelRows{Gap: 6 * u}, scene.LabelRows{Gap: 6 * u}
		nameY := func(row int) (float64, bool) {
			y := plot.Y + 6*u + lh*float64(1+row)
			return y, y+lh <= plot.Y+plot.H/2
		}
		valueY := func(row int) (float64, bool) {
			y := plot.Y + plot.H - lh*float64(1+row) - 4*u
			return y, y >= plot.Y+plot.H/2
		}
		// put draws text beside the asymptote at px, in the first of rows
		// with room; rowY places a row in its half of the plot.
		put := func(rows *scene.LabelRows, text string, px float64, c color.RGBA, rowY func(int) (float64, bool)) {
			w := r.text.Width(text)
			x, ok := besideLine(px, w, 6*u, plot.X, plot.X+plot.W)
			if !ok {
				return
			}
			if y, ok := rowY(rows.Put(x, w)); ok {
				r.under.put(dst, &r.text, text, x, y, c)
			}
		}
		for _, b := range polesLeftToRight(ax, fit.Poles) {
			rho := fit.Poles[b]
			c, name := headStyle(th, scene.PoleHead(rf, b), "unmatched")
			px, _ := ax.ToScreen(-rho, 0)
			r.clipSmooth.Dashed(px, plot.Y, px, plot.Y+plot.H, 7*u, 2.5*u, c)
			put(&names, name, px, c, nameY)
			put(&values, "−ρ = "+scene.FormatNum(-rho), px, c, valueY)
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
				r.clipSmooth.Line(px0, py0, px, py, 3*u, accent(th))
			}
			px0, py0, n0, ok0 = px, py, n, ok
		}
	} else {
		need := len(rf.N) - v.Taken
		msg := fmt.Sprintf("fit once all %d samples are in: %d more", len(rf.N), need)
		mx, my := plot.X+plot.W-r.text.Width(msg)-8*u, plot.Y+4*u
		if mx < plot.X+6*u+r.text.Width(negLabel)+12*u {
			my += r.text.LineHeight() // below the n < 0 label, which it would overlap
		}
		r.under.put(dst, &r.text, msg, mx, my, mc)
	}
	// The samples taken so far; the current one ringed.
	for i := 0; i < v.Taken; i++ {
		px, py := ax.ToScreen(rf.N[i], rf.F[i])
		if i == v.Current {
			r.clipSmooth.Disc(px, py, 8*u, th.Query)
			r.clipSmooth.Ring(px, py, 13*u, 2*u, th.Query)
			continue
		}
		r.clipSmooth.Disc(px, py, 6*u, th.Text)
		r.clipSmooth.Ring(px, py, 6*u, 1.5*u, th.Background)
	}
}

// polesLeftToRight returns the indices of poles in the order their
// asymptotes stand on the plot, left to right.
func polesLeftToRight(ax scene.RFAxes, poles []float64) []int {
	idx := make([]int, len(poles))
	xs := make([]float64, len(poles))
	for b, rho := range poles {
		idx[b] = b
		xs[b], _ = ax.ToScreen(-rho, 0)
	}
	sort.SliceStable(idx, func(i, j int) bool { return xs[idx[i]] < xs[idx[j]] })
	return idx
}

// besideLine returns where a label of width w beside the vertical line
// at x starts: right of it, or left where it would leave lo…hi on the
// right; false where it fits on neither side.
func besideLine(x, w, gap, lo, hi float64) (float64, bool) {
	left := x + gap
	if left+w > hi {
		left = x - gap - w
	}
	return left, left >= lo && left+w <= hi
}

// headStyle returns the colour and the name of head h (counted from 0)
// as the step view labels a pole: muted and none when h < 0, a pole
// matched to no head.
func headStyle(th scene.Theme, h int, none string) (color.RGBA, string) {
	if h < 0 {
		return muted(th), scene.HeadName(h, none)
	}
	return th.HeadColor(h), scene.HeadName(h, none)
}

// plotFrame draws what lies under a plot's frame (the shapes gathered in
// the clip batches: its shading and grid), the frame itself, and the name
// of the horizontal axis under its right end.
func (r *recoveryRenderer) plotFrame(screen *ebiten.Image, plot scene.Rect, xName string, th scene.Theme) {
	u := r.u
	r.clipTo(plot)
	r.flat.StrokeRect(plot.X, plot.Y, plot.W, plot.H, u, th.Axis)
	r.lab.put(screen, &r.text, xName, plot.X+plot.W-r.text.Width(xName), plot.Y+plot.H+4*u+r.text.LineHeight(), muted(th))
}

// progressBar draws a thin bar, its track rc filled to fraction f.
func (r *recoveryRenderer) progressBar(rc scene.Rect, f float64, th scene.Theme) {
	r.flat.Rect(rc.X, rc.Y, rc.W, rc.H, th.Grid)
	r.flat.Rect(rc.X, rc.Y, rc.W*math.Max(0, math.Min(1, f)), rc.H, accent(th))
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

// drawTable draws the pole table's lines (scene.PoleTable) in rc, cut at
// its edges.
func (r *recoveryRenderer) drawTable(screen *ebiten.Image, t scene.PoleTable, rc scene.Rect, th scene.Theme) {
	mc := muted(th)
	dst := clip(screen, rc, 0)
	defer r.clipTo(rc)
	r.putAll(dst, t.Intro, mc)
	for _, row := range t.Rows {
		if row.Sub {
			r.put(dst, row.Label, mc)
			continue
		}
		c, _ := headStyle(th, row.Head, "—")
		r.clipFlat.Rect(row.Swatch.X, row.Swatch.Y, row.Swatch.W, row.Swatch.H, c)
		r.put(dst, row.Label, th.Text)
	}
	r.put(dst, t.Foot, mc)
}
