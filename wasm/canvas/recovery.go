//go:build js && wasm

package main

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"golang.org/x/image/font"

	"headlab/numerics/experiment"
	"headlab/numerics/recovery"
	"headlab/numerics/replay"
	"headlab/wasm/scene"
)

// recoveryRenderer draws the Recovery scene, one panel per view: the step
// view (counter, query strip, samples and fitted curve with its poles
// coloured by head, and the matching of link functions), the result
// (recovered against true heads as heat maps, values on hover), the noise
// sweep and the comparison of modes. The step and every control live in
// the link; the pointer only hovers.
//
// A view collects its shapes and labels and draws them in a few calls
// (see flush): ebiten renders every anti-aliased draw call through an
// offscreen pass, which under software rendering cost a whole frame when
// the view drew shape by shape.
type recoveryRenderer struct {
	title, text labels // larger type than the shared labels, for a lecture
	u           float64
	hoverX      float64
	hoverY      float64
	hovering    bool

	// The result view's heat maps as last drawn, and the cell (with the
	// pointer, which its tooltip follows) last drawn as hovered.
	heat      scene.HeatLayout
	heatShown bool
	hovered   recHover

	// What a view draws, in the order flush draws it. The clip batches
	// gather the shapes of a plot or a table, which are cut to its
	// rectangle when moved into flat and smooth.
	flat, smooth, top    batch
	clipFlat, clipSmooth batch
	under, lab, topLab   texts
}

// recHover is the heat-map cell under the pointer, if any, and where the
// pointer is on it.
type recHover struct {
	h, side, i, j int
	ok            bool
	x, y          float64
}

func (r *recoveryRenderer) reset(a *app) {
	r.hovering = false
	r.heatShown = false
	r.hovered = recHover{}
}

// pointer tracks the pointer for the result view's tooltip and asks for a
// redraw only when the cell under it, or the tooltip's place, changes.
func (r *recoveryRenderer) pointer(a *app, p pointerState) scene.Scene {
	r.hoverX, r.hoverY = p.x, p.y
	r.hovering = p.x > 0 && p.y > 0 && p.x < a.view.Width && p.y < a.view.Height
	var now recHover
	if r.heatShown && r.hovering {
		if h, side, i, j, ok := r.heat.Hit(p.x, p.y); ok {
			now = recHover{h, side, i, j, true, p.x, p.y}
		}
	}
	if now != r.hovered {
		r.hovered = now
		a.redraw = true
	}
	return nil
}

func (r *recoveryRenderer) rebuild(a *app, th scene.Theme) {
	r.u = math.Max(1, a.gfx.dsf)
	small := a.view.Width < 560*r.u
	tsize, xsize := 21.0, 15.0
	if small {
		tsize, xsize = 17, 13
	}
	r.title.setSize(tsize * r.u)
	r.text.setSize(xsize * r.u)
}

func (r *recoveryRenderer) draw(screen *ebiten.Image, a *app, th scene.Theme) {
	sc, ok := a.scene.(*scene.Recovery)
	if !ok || a.view.Width < 1 || r.u == 0 {
		return
	}
	full := scene.Rect{X: 0, Y: 0, W: a.view.Width, H: a.view.Height}
	r.heatShown = false
	defer r.flush(screen)
	switch sc.State.View {
	case "result":
		r.drawResult(screen, a, sc, full, th)
	case "sweep":
		r.drawSweep(screen, a, sc, full, th)
	case "modes":
		r.drawModes(screen, a, sc, full, th)
	default:
		r.drawSteps(screen, a, sc, full, th)
	}
}

// flush draws what the view collected: the crisp shapes; the labels that
// lie under curves and points (inside a plot); the anti-aliased shapes, in
// one call and so one offscreen pass; the other labels, over their shapes;
// then what lies over everything (a plot's frame over its points, the
// tooltip).
func (r *recoveryRenderer) flush(screen *ebiten.Image) {
	r.flat.flush(screen, false)
	r.under.flush()
	r.smooth.flush(screen, true)
	r.lab.flush()
	r.top.flush(screen, false)
	r.topLab.flush()
}

// clipTo moves the shapes gathered in the clip batches into flat and
// smooth, cut to rc as a sub-image of rc would cut them.
func (r *recoveryRenderer) clipTo(rc scene.Rect) {
	x0, y0 := math.Floor(rc.X), math.Floor(rc.Y)
	x1, y1 := math.Ceil(rc.X+rc.W), math.Ceil(rc.Y+rc.H)
	r.flat.appendClipped(&r.clipFlat, x0, y0, x1, y1)
	r.smooth.appendClipped(&r.clipSmooth, x0, y0, x1, y1)
}

// ---- text ----

func recMuted(th scene.Theme) color.RGBA {
	if th.Dark {
		return color.RGBA{0xa9, 0xb0, 0xbc, 0xff}
	}
	return color.RGBA{0x55, 0x5b, 0x66, 0xff}
}

func recAccent(th scene.Theme) color.RGBA {
	if th.Dark {
		return color.RGBA{0x6c, 0xb8, 0xff, 0xff}
	}
	return color.RGBA{0x00, 0x62, 0xa3, 0xff}
}

func recWidth(l *labels, s string) float64 {
	if l.face == nil {
		return 0
	}
	return float64(font.MeasureString(l.face, s).Ceil() + 2)
}

func recHeight(l *labels) float64 {
	if l.face == nil {
		return 0
	}
	m := l.face.Metrics()
	return float64((m.Ascent + m.Descent).Ceil() + 2)
}

// recWrap splits s into lines no wider than w.
func recWrap(l *labels, s string, w float64) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		try := word
		if line != "" {
			try = line + " " + word
		}
		if line != "" && recWidth(l, try) > w {
			lines = append(lines, line)
			line = word
			continue
		}
		line = try
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// paragraph adds wrapped text, to be drawn onto dst, and returns the y
// below it.
func (r *recoveryRenderer) paragraph(dst *ebiten.Image, l *labels, s string, x, y, w float64, c color.RGBA) float64 {
	lh := recHeight(l) * 1.1
	for _, line := range recWrap(l, s, w) {
		r.lab.put(dst, l, line, x, y, c)
		y += lh
	}
	return y
}

func recClip(screen *ebiten.Image, rc scene.Rect) *ebiten.Image {
	return screen.SubImage(image.Rect(int(rc.X), int(rc.Y), int(math.Ceil(rc.X+rc.W)), int(math.Ceil(rc.Y+rc.H)))).(*ebiten.Image)
}

func recMix(a, b color.RGBA, f float64) color.RGBA {
	f = math.Max(0, math.Min(1, f))
	m := func(x, y uint8) uint8 { return uint8(float64(x)*(1-f) + float64(y)*f + 0.5) }
	return color.RGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 0xff}
}

func recFmt(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case x == 0:
		return "0"
	case math.Abs(x) >= 1e4 || math.Abs(x) < 1e-3:
		return strings.Replace(fmt.Sprintf("%.3g", x), "-", "−", 1)
	}
	return strings.Replace(fmt.Sprintf("%.4f", x), "-", "−", 1)
}

// recTick formats an axis value: as short as it can be.
func recTick(x float64) string {
	s := strconv.FormatFloat(x, 'g', 4, 64)
	return strings.Replace(s, "-", "−", 1)
}

func recSci(x float64) string {
	if !(x >= 0) || math.IsInf(x, 0) {
		return "—"
	}
	if x == 0 {
		return "0"
	}
	return strings.Replace(fmt.Sprintf("%.1e", x), "e-", "e−", 1)
}

// ---- the step view ----

func (r *recoveryRenderer) drawSteps(screen *ebiten.Image, a *app, sc *scene.Recovery, full scene.Rect, th scene.Theme) {
	u := r.u
	pad := 16 * u
	narrow := full.W < 560*u
	if narrow {
		pad = 10 * u
	}
	x, y, w := pad, pad, full.W-2*pad
	muted := recMuted(th)

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
			y += recHeight(&r.title)
			hx = x
		}
		r.lab.put(screen, &r.text, what, hx, y+(recHeight(&r.title)-recHeight(&r.text))/2, muted)
	}
	y += recHeight(&r.title) + 6*u

	y = r.drawCounter(screen, sc, x, y, w, th)
	y += 10 * u
	y = r.drawStrip(screen, sc, v, has, x, y, w, th)
	y += 8 * u

	// The plot and, beside or under it, the pole table.
	side := 0.0
	if full.W >= 900*u {
		side = 320 * u
	}
	tableH := 0.0
	if side == 0 && has && v.Fitted {
		tableH = float64(len(v.RF.P))*recHeight(&r.text)*(1+float64(boolInt(v.RF.Kind == recovery.Link))) + recHeight(&r.text)*4.6
	}
	left := 58 * u
	if narrow {
		left = 46 * u
	}
	plot := scene.Rect{X: x + left, Y: y, W: w - left - side - boolF(side > 0)*16*u, H: full.H - y - pad - 26*u - tableH}
	if plot.H < 80*u {
		plot.H = math.Max(40*u, full.H-y-pad-26*u)
		tableH = 0
	}
	r.drawPlot(screen, sc, v, has, plot, th)
	if side > 0 {
		r.drawTable(screen, sc, v, has, scene.Rect{X: plot.X + plot.W + 16*u, Y: y, W: side, H: plot.H + 26*u}, th)
	} else if tableH > 0 {
		r.drawTable(screen, sc, v, has, scene.Rect{X: x, Y: plot.Y + plot.H + 10*u + 2*recHeight(&r.text), W: w, H: tableH}, th)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func boolF(b bool) float64 { return float64(boolInt(b)) }

// drawCounter draws the running count of queries against the paper's
// 4Hd²−2H+1, economy mode's count and the information bound H(d²+d), with
// the longest query against 2H+1, and returns the y below it.
func (r *recoveryRenderer) drawCounter(screen *ebiten.Image, sc *scene.Recovery, x, y, w float64, th scene.Theme) float64 {
	u := r.u
	muted := recMuted(th)
	H := sc.Heads()
	bound, info := sc.Bound(), sc.Information()
	econ := recovery.EconomyQueries(H, sc.State.D)
	steps := sc.Steps()
	q := sc.Step()
	line := fmt.Sprintf("queries %d of %d", q, steps)
	lx := x + r.lab.put(screen, &r.text, line, x, y, th.Text) + 18*u
	longest := fmt.Sprintf("longest query %d of 2H+1 = %d tokens", sc.MaxLength(), 2*H+1)
	if lx+recWidth(&r.text, longest) > x+w {
		y += recHeight(&r.text)
		lx = x
	}
	r.lab.put(screen, &r.text, longest, lx, y, muted)
	y += recHeight(&r.text) + 4*u

	// The bar.
	top := float64(max(bound, steps, econ)) * 1.02
	bh := 12 * u
	r.flat.rect(x, y, w, bh, th.Grid)
	fill := w * float64(q) / top
	r.flat.rect(x, y, fill, bh, recAccent(th))
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
		tw := recWidth(&r.text, m.name)
		tx := math.Min(math.Max(x, mx-tw/2), x+w-tw)
		rowY := ty
		if tx < lastEnd+8*u {
			row++
			rowY = ty + row*recHeight(&r.text)
		} else {
			row = 0
		}
		r.lab.put(screen, &r.text, m.name, tx, rowY, muted)
		lastEnd = tx + tw
	}
	return ty + (row+1)*recHeight(&r.text)
}

// drawRunProgress draws how far the computation of the run has got, a
// line of text over a bar, and returns the y below them.
func (r *recoveryRenderer) drawRunProgress(screen *ebiten.Image, sc *scene.Recovery, x, y, w float64, th scene.Theme) float64 {
	u := r.u
	p := sc.RunProgress()
	line := fmt.Sprintf("Computing the run… %s (%d%%)", scene.ProgressText(p), int(100*p.Fraction))
	y = r.paragraph(screen, &r.text, line, x, y, w, recMuted(th))
	r.progressBar(x, y, w, p.Fraction, th)
	return y + 14*u
}

// drawStrip draws the current query as a strip of token glyphs: n copies
// of a, then z, with the oracle's answer.
func (r *recoveryRenderer) drawStrip(screen *ebiten.Image, sc *scene.Recovery, v replay.StepView, has bool, x, y, w float64, th scene.Theme) float64 {
	u := r.u
	muted := recMuted(th)
	g := 34 * u
	if !has {
		if sc.Computing() {
			y = r.drawRunProgress(screen, sc, x, y+8*u, w, th)
			return r.paragraph(screen, &r.text, "Running the whole schedule once; then every step is instant.", x, y, w, muted) + 8*u
		}
		msg := "No query yet. Each query is n copies of a token a followed by a query token z; press → for the first."
		return r.paragraph(screen, &r.text, msg, x, y+8*u, w, muted) + 8*u
	}
	tokens := v.N + 1
	label := fmt.Sprintf("query %d:", sc.Step())
	lw := r.lab.put(screen, &r.text, label, x, y+(g-recHeight(&r.text))/2, muted) + 10*u
	ans := fmt.Sprintf("F(%d) = %s", v.N, recFmt(v.RF.F[v.Current]))
	aw := recWidth(&r.title, ans) + 16*u
	avail := w - lw - aw
	gap := 6 * u
	if float64(tokens)*(g+gap) > avail {
		g = math.Max(10*u, avail/float64(tokens)-gap)
		if g < 20*u {
			gap = 3 * u
		}
	}
	gx := x + lw
	tokCol := recMix(th.Background, th.Token, 0.75)
	for i := 0; i < v.N; i++ {
		r.smooth.rect(gx, y, g, g, tokCol)
		if g >= 18*u {
			tw := recWidth(&r.text, "a")
			r.lab.put(screen, &r.text, "a", gx+(g-tw)/2, y+(g-recHeight(&r.text))/2, th.Background)
		}
		gx += g + gap
	}
	r.smooth.disc(gx+g/2, y+g/2, g/2, th.Query)
	if g >= 18*u {
		tw := recWidth(&r.text, "z")
		r.lab.put(screen, &r.text, "z", gx+(g-tw)/2, y+(g-recHeight(&r.text))/2, th.Background)
	}
	gx += g + 14*u
	r.lab.put(screen, &r.title, ans, gx, y+(g-recHeight(&r.title))/2, th.Text)
	y += g + 4*u
	desc := fmt.Sprintf("%d copies of a, then z (%d tokens)", v.N, tokens)
	if v.N == 1 {
		desc = "1 copy of a, then z (2 tokens)"
	}
	if v.N == 0 {
		desc = "z alone (1 token)"
	}
	desc += fmt.Sprintf(" · sample %d of %d of %s", v.Taken, len(v.RF.N), v.RF.Name())
	return r.paragraph(screen, &r.text, desc, x+lw, y, w-lw, muted)
}

// drawPlot draws the samples (n, F(n)) taken so far and, once every sample
// of the RF is in, the fitted rational function over negative and positive
// n with its poles −ρ_h as vertical asymptotes in the colour of the head
// each is matched to.
func (r *recoveryRenderer) drawPlot(screen *ebiten.Image, sc *scene.Recovery, v replay.StepView, has bool, plot scene.Rect, th scene.Theme) {
	u := r.u
	muted := recMuted(th)
	if !has {
		r.smooth.strokeRect(plot.X, plot.Y, plot.W, plot.H, u, th.Grid)
		msg := "The samples (n, F(n)) of each rational function appear here, one per step, and its fit with the poles −ρ_h once all are in."
		if sc.Computing() {
			msg = fmt.Sprintf("Computing %d queries and their fits…", sc.Steps())
		}
		yy := plot.Y + plot.H/2 - recHeight(&r.text)
		r.paragraph(screen, &r.text, msg, plot.X+24*u, yy, plot.W-48*u, muted)
		return
	}
	rf := v.RF
	ax := sc.PlotRange(v.Index, plot)
	clip := recClip(screen, plot)
	defer r.clipTo(plot)
	// n < 0 holds no query: shade it, the poles live there.
	x0, _ := ax.ToScreen(ax.X0, 0)
	xz, _ := ax.ToScreen(0, 0)
	r.clipFlat.rect(x0, plot.Y, xz-x0, plot.H, recMix(th.Background, th.Grid, 0.45))
	// Grid and axes.
	for _, n := range ax.NTicks() {
		px, _ := ax.ToScreen(n, 0)
		c := th.Grid
		if n == 0 {
			c = th.Axis
		}
		r.clipFlat.line(px, plot.Y, px, plot.Y+plot.H, u, c)
		s := recTick(n)
		r.lab.put(screen, &r.text, s, px-recWidth(&r.text, s)/2, plot.Y+plot.H+4*u, muted)
	}
	for _, yv := range ax.YTicks(5) {
		_, py := ax.ToScreen(0, yv)
		c := th.Grid
		if yv == 0 {
			c = th.Axis
		}
		r.clipFlat.line(plot.X, py, plot.X+plot.W, py, u, c)
		s := recTick(yv)
		r.lab.put(screen, &r.text, s, plot.X-recWidth(&r.text, s)-4*u, py-recHeight(&r.text)/2, muted)
	}
	axisName := "n (copies of a)"
	if ax.Log {
		axisName += ", scale sign(n)·log(1+|n|)"
	}
	r.plotFrame(screen, plot, axisName, th) // the shading and the grid under the frame
	r.under.put(clip, &r.text, "n < 0: no queries here; the poles −ρ lie here", plot.X+6*u, plot.Y+4*u, muted)

	if v.Fitted {
		fit := rf.Fit
		// The constant C = lim F, dotted.
		if finite(fit.C) {
			_, py := ax.ToScreen(0, fit.C)
			r.clipSmooth.dashed(plot.X, py, plot.X+plot.W, py, 3*u, u, muted)
			r.under.put(clip, &r.text, "C", plot.X+plot.W-recWidth(&r.text, "C")-4*u, py-recHeight(&r.text), muted)
		}
		// Asymptotes at −ρ_h, coloured by head.
		for b, rho := range fit.Poles {
			c, name := recHeadStyle(th, recPoleHead(rf, b), "unmatched")
			px, _ := ax.ToScreen(-rho, 0)
			r.clipSmooth.dashed(px, plot.Y, px, plot.Y+plot.H, 7*u, 2.5*u, c)
			ly := plot.Y + 6*u + recHeight(&r.text)*float64(2+b%3)
			lbl := name
			if px+6*u+recWidth(&r.text, lbl) > plot.X+plot.W {
				r.under.put(clip, &r.text, lbl, px-6*u-recWidth(&r.text, lbl), ly, c)
			} else {
				r.under.put(clip, &r.text, lbl, px+6*u, ly, c)
			}
			rl := "−ρ = " + recFmt(-rho)
			r.under.put(clip, &r.text, rl, px+6*u, plot.Y+plot.H-recHeight(&r.text)*float64(1+b%3)-4*u, c)
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
				r.clipSmooth.line(px0, py0, px, py, 3*u, recAccent(th))
			}
			px0, py0, n0, ok0 = px, py, n, ok
		}
	} else {
		need := len(rf.N) - v.Taken
		msg := fmt.Sprintf("fit once all %d samples are in: %d more", len(rf.N), need)
		r.under.put(clip, &r.text, msg, plot.X+plot.W-recWidth(&r.text, msg)-8*u, plot.Y+4*u, muted)
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

func finite(x float64) bool { return x-x == 0 }

// recPoleHead returns the head pole b of rf is matched to, −1 for none.
func recPoleHead(rf *recovery.RF, b int) int {
	if b < len(rf.Heads) {
		return rf.Heads[b]
	}
	return -1
}

// recHeadStyle returns the colour and the name of head h (counted from 0)
// as the step view labels a pole: muted and none when h < 0, a pole
// matched to no head.
func recHeadStyle(th scene.Theme, h int, none string) (color.RGBA, string) {
	if h < 0 {
		return recMuted(th), none
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
	r.lab.put(screen, &r.text, xName, plot.X+plot.W-recWidth(&r.text, xName), plot.Y+plot.H+4*u+recHeight(&r.text), recMuted(th))
}

// progressBar draws a thin bar, filled to fraction f, under y.
func (r *recoveryRenderer) progressBar(x, y, w, f float64, th scene.Theme) {
	u := r.u
	r.flat.rect(x, y+2*u, w, 6*u, th.Grid)
	r.flat.rect(x, y+2*u, w*math.Max(0, math.Min(1, f)), 6*u, recAccent(th))
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
	muted := recMuted(th)
	clip := recClip(screen, rc)
	defer r.clipTo(rc)
	x, y := rc.X, rc.Y
	lh := recHeight(&r.text) * 1.08
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
			r.paragraph(clip, &r.text, known, x, y, rc.W, muted)
		}
		return
	}
	if rf.Kind == recovery.Measurement {
		y = r.paragraph(clip, &r.text, fmt.Sprintf("%s = RF(z_%d, u_%d): each pole measures p = c·u_%d·W_h z_%d and r = c·v_h·u_%d.",
			rf.Name(), rf.J+1, rf.I+1, rf.I+1, rf.J+1, rf.I+1), x, y, rc.W, muted) + 4*u
		for b := range rf.P {
			c, name := recHeadStyle(th, recPoleHead(rf, b), "—")
			r.clipFlat.rect(x, y+lh*0.25, 10*u, 10*u, c)
			rv := math.NaN()
			if b < len(rf.R) {
				rv = rf.R[b]
			}
			r.lab.put(clip, &r.text, fmt.Sprintf("%s   p = %s   r = %s", name, recFmt(rf.P[b]), recFmt(rv)), x+16*u, y, th.Text)
			y += lh
		}
		r.lab.put(clip, &r.text, fmt.Sprintf("fit condition number %s", recSci(rf.Fit.Cond)), x, y+4*u, muted)
		return
	}
	y = r.paragraph(clip, &r.text, "Link: each pole's p is the sum of the linked measurements' p of one head, and its r their r — that pairs the poles.", x, y, rc.W, muted) + 4*u
	for _, row := range sc.LinkRows(v.Index) {
		c, name := recHeadStyle(th, row.Head, "—")
		r.clipFlat.rect(x, y+lh*0.25, 10*u, 10*u, c)
		r.lab.put(clip, &r.text, fmt.Sprintf("%s   p = %s   r = %s", name, recFmt(row.P), recFmt(row.R)), x+16*u, y, th.Text)
		y += lh
		var parts []string
		for _, t := range row.Terms {
			parts = append(parts, recFmt(t.P))
		}
		names := make([]string, len(row.Terms))
		for i, t := range row.Terms {
			names[i] = t.Name
		}
		r.lab.put(clip, &r.text, fmt.Sprintf("= p(%s) = %s", strings.Join(names, ")+p("), strings.Join(parts, " + ")), x+16*u, y, muted)
		y += lh
	}
}

// ---- the result ----

// panel draws the title of the result, sweep or modes view inside the
// view's margin and returns the margin (the left edge of what follows),
// the y under the title and the width inside the margins.
func (r *recoveryRenderer) panel(screen *ebiten.Image, full scene.Rect, title string, th scene.Theme) (pad, y, w float64) {
	pad = 16 * r.u
	r.lab.put(screen, &r.title, title, pad, pad, th.Text)
	return pad, pad + recHeight(&r.title) + 4*r.u, full.W - 2*pad
}

func (r *recoveryRenderer) drawResult(screen *ebiten.Image, a *app, sc *scene.Recovery, full scene.Rect, th scene.Theme) {
	u := r.u
	pad, y, w := r.panel(screen, full, "Recovered against true canonical heads", th)
	x := pad
	muted := recMuted(th)
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
		r.paragraph(screen, &r.text, "Try another seed, a smaller H, less noise, or paper mode; the step view shows the function at fault.", x, y, w, muted)
		return
	}
	sum := fmt.Sprintf("%d queries (paper bound %d), longest %d tokens · largest relative error %s · self-check residual %s× the noise model · estimated error %s · largest RF condition number %s",
		res.Queries, sc.Bound(), res.MaxLength, recSci(sc.Error), recFmt(res.Residual), recSci(res.Estimate), recSci(res.Cond))
	y = r.paragraph(screen, &r.text, sum, x, y, w, muted) + 6*u
	pair, errs := sc.Pairing()
	if pair == nil {
		r.paragraph(screen, &r.text, fmt.Sprintf("The run found %d heads; the true layer has %d canonical heads.", len(res.Layer), len(sc.Canonical)), x, y, w, th.Query)
		return
	}
	// Column titles.
	d := sc.State.D
	area := scene.Rect{X: x, Y: y + recHeight(&r.text) + 4*u, W: w, H: full.H - y - recHeight(&r.text) - 2*pad - recHeight(&r.text)}
	l := scene.NewHeatLayout(area, d, len(sc.Canonical), u)
	if len(l.W) == 0 {
		return
	}
	r.heat, r.heatShown = l, true
	r.lab.put(screen, &r.text, "true (canonical)", l.W[0][0][0], y, th.Text)
	r.lab.put(screen, &r.text, "recovered", l.W[0][1][0], y, th.Text)
	ws, vs := scene.HeadScale(sc.Canonical)
	for h := range sc.Canonical {
		c := th.HeadColor(h)
		oy := l.W[h][0][1]
		r.flat.rect(x, oy+2*u, 12*u, 12*u, c)
		r.lab.put(screen, &r.text, fmt.Sprintf("head %d", h+1), x+16*u, oy, th.Text)
		r.lab.put(screen, &r.text, "W", x+16*u, oy+recHeight(&r.text), muted)
		r.lab.put(screen, &r.text, "v", x+16*u, l.VY(h), muted)
		for side := 0; side < 2; side++ {
			layer, hh := sc.Canonical, h
			if side == 1 {
				layer, hh = res.Layer, pair[h]
			}
			ox, oy := l.W[h][side][0], l.W[h][side][1]
			for i := 0; i <= d; i++ {
				for j := 0; j < d; j++ {
					val := scene.HeadValue(layer, hh, i, j)
					scale, cy := ws, oy+float64(i)*l.Cell
					if i == d {
						scale, cy = vs, l.VY(h)
					}
					r.flat.rect(ox+float64(j)*l.Cell, cy, l.Cell-math.Min(2*u, l.Cell/8), l.Cell-math.Min(2*u, l.Cell/8), heatColor(th, val, scale))
					if l.Cell >= 40*u {
						s := fmt.Sprintf("%.2f", val)
						r.lab.put(screen, &a.gfx.labels, s, ox+float64(j)*l.Cell+3*u, cy+3*u, th.Text)
					}
				}
			}
		}
		ex := l.W[h][1][0] + float64(d)*l.Cell + 14*u
		r.lab.put(screen, &r.text, "error", ex, oy, muted)
		r.lab.put(screen, &r.text, recSci(errs[h]), ex, oy+recHeight(&r.text), th.Text)
	}
	// The value under the pointer.
	if r.hovering {
		if h, side, i, j, ok := l.Hit(r.hoverX, r.hoverY); ok {
			cy := l.W[h][side][1] + float64(i)*l.Cell
			if i == d {
				cy = l.VY(h)
			}
			cx := l.W[h][side][0] + float64(j)*l.Cell
			r.top.strokeRect(cx, cy, l.Cell, l.Cell, 2*u, th.Text)
			tv := scene.HeadValue(sc.Canonical, h, i, j)
			rv := scene.HeadValue(res.Layer, pair[h], i, j)
			name := fmt.Sprintf("W[%d,%d]", i+1, j+1)
			if i == d {
				name = fmt.Sprintf("v[%d]", j+1)
			}
			tip := fmt.Sprintf("head %d %s: true %.10g, recovered %.10g, difference %.2g", h+1, name, tv, rv, rv-tv)
			tw := recWidth(&r.text, tip) + 12*u
			tx := math.Min(r.hoverX+14*u, full.W-tw-4*u)
			ty := math.Min(r.hoverY+18*u, full.H-recHeight(&r.text)-10*u)
			r.top.rect(tx, ty, tw, recHeight(&r.text)+8*u, th.Background)
			r.top.strokeRect(tx, ty, tw, recHeight(&r.text)+8*u, u, th.Axis)
			r.topLab.put(screen, &r.text, tip, tx+6*u, ty+4*u, th.Text)
		}
	}
	r.topLab.put(screen, &r.text, "Colour: red positive, blue negative, per matrix kind on one scale; hover a cell for its values.", x, full.H-pad-recHeight(&r.text), muted)
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
	return recMix(th.Background, c, 0.12+0.88*math.Min(1, f))
}

// ---- the noise sweep ----

func (r *recoveryRenderer) drawSweep(screen *ebiten.Image, a *app, sc *scene.Recovery, full scene.Rect, th scene.Theme) {
	u := r.u
	pad, y, w := r.panel(screen, full, "Noise sweep: parameter error against the oracle's accuracy ε", th)
	x := pad
	muted := recMuted(th)
	st := sc.Sweep()
	if st.Refused != "" {
		r.paragraph(screen, &r.text, st.Refused, x, y+8*u, w, th.Query)
		return
	}
	line := fmt.Sprintf("H = %d, d = %d, %s mode; %d seeds per ε, from seed %d.", max(sc.State.H, sc.State.H0), sc.State.D, sc.State.Mode, experiment.SweepSeeds, sc.State.Seed)
	switch {
	case sc.Computing():
		line = "Computing the run first… " + line
	case !st.Done:
		line = fmt.Sprintf("Computing… %d%%: %s. ", int(100*st.Progress), st.Doing) + line
	}
	y = r.paragraph(screen, &r.text, line, x, y, w, muted)
	r.progressBar(x, y, w, st.Progress, th)
	y += 16 * u
	// Statement of the largest H.
	var stmt string
	switch {
	case len(st.Heads) == 0:
		stmt = fmt.Sprintf("The largest H that float64 recovers at ε = %s is found after the sweep.", experiment.PowerText(experiment.SweepHeadNoise))
	default:
		tried := st.Tried()
		stmt = fmt.Sprintf("float64 recovers up to H = %d at ε = %s (d = %d; most of %d random layers within %s; H = %d…%d tried)",
			st.Largest, experiment.PowerText(experiment.SweepHeadNoise), sc.State.D, experiment.SweepHeadSeeds, recSci(experiment.RecoveredError), tried[0], tried[len(tried)-1])
		if st.LimitH > 0 {
			stmt += fmt.Sprintf("; H = %d is beyond the page's per-run limit", st.LimitH)
		}
		if !st.HeadsDone {
			stmt += "; still scanning"
		}
		stmt += "."
	}
	bottom := recHeight(&r.text)*3 + pad
	left := 64 * u
	plot := scene.Rect{X: x + left, Y: y, W: w - left - 8*u, H: full.H - y - bottom - 30*u}
	r.paragraph(screen, &r.title, stmt, x, full.H-bottom+6*u, w, th.Text)
	// Log–log axes: ε a decade beyond the sweep's range each side, error
	// 1e−17…1.
	ex0 := math.Floor(math.Log10(slices.Min(experiment.SweepNoise))) - 1
	ex1 := math.Ceil(math.Log10(slices.Max(experiment.SweepNoise))) + 1
	const ey0, ey1 = -17.0, 0.5
	tx := func(e float64) float64 { return plot.X + (math.Log10(e)-ex0)/(ex1-ex0)*plot.W }
	ty := func(e float64) float64 { return plot.Y + (ey1-math.Log10(e))/(ey1-ey0)*plot.H }
	clip := recClip(screen, plot)
	defer r.clipTo(plot)
	for k := int(ex0); k <= int(ex1); k++ {
		px := tx(math.Pow(10, float64(k)))
		r.clipFlat.line(px, plot.Y, px, plot.Y+plot.H, u, th.Grid)
		if slices.ContainsFunc(experiment.SweepNoise, func(e float64) bool { return math.Abs(math.Log10(e)-float64(k)) < 1e-6 }) { // the ε of the sweep
			s := strings.Replace(fmt.Sprintf("1e%d", k), "-", "−", 1)
			r.lab.put(screen, &r.text, s, px-recWidth(&r.text, s)/2, plot.Y+plot.H+4*u, muted)
		}
	}
	for k := int(ey0); k <= 0; k++ {
		py := ty(math.Pow(10, float64(k)))
		r.clipFlat.line(plot.X, py, plot.X+plot.W, py, u, th.Grid)
		if k%2 == 0 {
			s := strings.Replace(fmt.Sprintf("1e%d", k), "-", "−", 1)
			r.lab.put(screen, &r.text, s, plot.X-recWidth(&r.text, s)-4*u, py-recHeight(&r.text)/2, muted)
		}
	}
	r.plotFrame(screen, plot, "oracle accuracy ε (log)", th) // the grid under the frame
	r.under.put(clip, &r.text, "largest relative error of W_h, v_h (log)", plot.X+6*u, plot.Y+4*u, muted)
	// Slope-1 reference through the first median.
	for _, p := range st.Points {
		if finite(p.Median) && p.Median > 0 {
			k := p.Median / p.X
			e0, e1 := math.Pow(10, ex0), math.Pow(10, ex1)
			r.clipSmooth.dashed(tx(e0), ty(k*e0), tx(e1), ty(k*e1), 6*u, 2*u, muted)
			lx, ly := tx(e1/100), ty(k*e1/100)
			r.under.put(clip, &r.text, "slope 1", lx+6*u, ly+4*u, muted)
			break
		}
	}
	// Seeds as dots, failures as crosses along the top, medians joined.
	dot := recMix(th.Background, recAccent(th), 0.45)
	var mx0, my0 float64
	have := false
	for _, p := range st.Points {
		px := tx(p.X)
		fails := 0
		for k, e := range p.Errors {
			off := (float64(k) - float64(experiment.SweepSeeds-1)/2) * 3 * u
			if !finite(e) {
				cy := plot.Y + 14*u + recHeight(&r.text) + float64(fails)*7*u // under the axis name
				r.clipSmooth.line(px-4*u, cy-4*u, px+4*u, cy+4*u, 2*u, th.Query)
				r.clipSmooth.line(px-4*u, cy+4*u, px+4*u, cy-4*u, 2*u, th.Query)
				fails++
				continue
			}
			e = math.Max(e, 1e-17)
			r.clipSmooth.disc(px+off, ty(e), 3.5*u, dot)
		}
		if finite(p.Median) {
			py := ty(math.Max(p.Median, 1e-17))
			if have {
				r.clipSmooth.line(mx0, my0, px, py, 3*u, recAccent(th))
			}
			r.clipSmooth.disc(px, py, 6*u, recAccent(th))
			mx0, my0, have = px, py, true
		} else {
			have = false
		}
	}
	legend := "● median   · one seed   × run not resolved"
	r.topLab.put(screen, &r.text, legend, plot.X+plot.W-recWidth(&r.text, legend)-6*u, plot.Y+plot.H-recHeight(&r.text)-6*u, muted)
}

// ---- modes compared ----

func (r *recoveryRenderer) drawModes(screen *ebiten.Image, a *app, sc *scene.Recovery, full scene.Rect, th scene.Theme) {
	u := r.u
	H, d := sc.Heads(), sc.State.D
	pad, y, w := r.panel(screen, full, fmt.Sprintf("Queries: paper against economy against the information bound (H = %d)", H), th)
	x := pad
	y += 6 * u
	muted := recMuted(th)
	paper, econ, info := recovery.PaperQueries(H, d), recovery.EconomyQueries(H, d), recovery.InformationBound(H, d)
	rows := []struct {
		name string
		n    int
		c    color.RGBA
	}{
		{"information bound H(d²+d)", info, th.HeadColor(2)},
		{"economy 2H(d²+d−1)+1", econ, th.HeadColor(1)},
		{"paper 4Hd²−2H+1 (the seed)", paper, th.HeadColor(0)},
	}
	if !sc.Computing() && sc.Err == nil {
		rows = append(rows, struct {
			name string
			n    int
			c    color.RGBA
		}{fmt.Sprintf("this run (%s mode)", sc.State.Mode), sc.Steps(), th.Text})
	}
	r.lab.put(screen, &r.text, fmt.Sprintf("at d = %d", d), x, y, muted)
	y += recHeight(&r.text) + 4*u
	nameW := 0.0
	for _, row := range rows {
		nameW = math.Max(nameW, recWidth(&r.text, row.name))
	}
	nameW = math.Min(nameW, w*0.45)
	barW := w - nameW - 90*u
	top := float64(max(paper, sc.Steps()))
	bh := recHeight(&r.text)
	for _, row := range rows {
		r.lab.put(screen, &r.text, row.name, x, y, th.Text)
		bw := barW * float64(row.n) / top
		r.flat.rect(x+nameW+10*u, y+2*u, bw, bh-4*u, row.c)
		r.lab.put(screen, &r.text, fmt.Sprint(row.n), x+nameW+16*u+bw, y, th.Text)
		y += bh + 8*u
	}
	y += 10 * u
	// Over d, log y.
	r.lab.put(screen, &r.text, "over d = 1…16 (log scale)", x, y, muted)
	y += recHeight(&r.text) + 4*u
	left := 58 * u
	plot := scene.Rect{X: x + left, Y: y, W: w - left - 8*u, H: full.H - y - pad - 2*recHeight(&r.text)}
	if plot.H < 60*u {
		return
	}
	maxD := max(16, d)
	ymax := math.Log10(float64(recovery.PaperQueries(H, maxD)) * 1.5)
	ymin := 0.0
	px := func(w int) float64 { return plot.X + float64(w-1)/float64(maxD-1)*plot.W }
	py := func(n int) float64 { return plot.Y + (ymax-math.Log10(float64(n)))/(ymax-ymin)*plot.H }
	for k := 0; float64(k) <= ymax; k++ {
		yy := py(int(math.Pow(10, float64(k))))
		r.flat.line(plot.X, yy, plot.X+plot.W, yy, u, th.Grid)
		s := fmt.Sprint(int(math.Pow(10, float64(k))))
		r.lab.put(screen, &r.text, s, plot.X-recWidth(&r.text, s)-4*u, yy-bh/2, muted)
	}
	for w := 1; w <= maxD; w++ {
		if w == 1 || w%4 == 0 {
			s := fmt.Sprint(w)
			r.lab.put(screen, &r.text, s, px(w)-recWidth(&r.text, s)/2, plot.Y+plot.H+4*u, muted)
		}
	}
	cx := px(d)
	r.smooth.dashed(cx, plot.Y, cx, plot.Y+plot.H, 4*u, 1.5*u, th.Text)
	r.lab.put(screen, &r.text, fmt.Sprintf("d = %d", d), cx+4*u, plot.Y+2*u, th.Text)
	series := []struct {
		f func(int) int
		c color.RGBA
	}{
		{func(w int) int { return recovery.InformationBound(H, w) }, th.HeadColor(2)},
		{func(w int) int { return recovery.EconomyQueries(H, w) }, th.HeadColor(1)},
		{func(w int) int { return recovery.PaperQueries(H, w) }, th.HeadColor(0)},
	}
	for i, s := range series {
		for w := 1; w < maxD; w++ {
			r.smooth.line(px(w), py(s.f(w)), px(w+1), py(s.f(w+1)), 3*u, s.c)
		}
		for w := 1; w <= maxD; w++ {
			r.smooth.disc(px(w), py(s.f(w)), 3.5*u, s.c)
		}
		lbl := rows[i].name
		r.lab.put(screen, &r.text, lbl, px(maxD)-recWidth(&r.text, lbl), py(s.f(maxD))+6*u, s.c)
	}
	r.top.strokeRect(plot.X, plot.Y, plot.W, plot.H, u, th.Axis)
	r.lab.put(screen, &r.text, "token width d", plot.X+plot.W-recWidth(&r.text, "token width d"), plot.Y+plot.H+4*u+bh, muted)
}
