//go:build js && wasm

package main

import (
	"fmt"
	"image/color"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/wasm/labels"
	"headlab/wasm/scene"
	"headlab/wasm/shapes"
)

// atomsRenderer draws the Atom explosion scene: the header with both
// outputs, the d two-atom heads (left), the fused head's 2^d atoms as a
// hypercube, a grid or a histogram (right), and the explosion curve with
// memory and measured costs (bottom). For d ≤ 2 the query is dragged on a
// pad under the heads.
//
// Each panel collects its shapes and labels and draws them in a few calls
// (see flush): ebiten renders every anti-aliased draw call through an
// offscreen pass, which under software rendering cost a whole frame when
// the scene drew shape by shape.
type atomsRenderer struct {
	layout   scene.AtomsLayout
	hover    int
	dragging bool
	big      labels.Cache // larger type for the header and titles

	// cache holds everything but the costs panel, drawn again only when
	// its key changes: a frame is then one image and a few labels, which
	// matters while a job runs (every frame is marked changed).
	cache    *ebiten.Image
	cacheKey atomsCacheKey

	// What the panels draw, in the order flush draws it.
	flat, smooth shapes.Batch // crisp shapes, then anti-aliased ones over them
	under, over  texts        // labels under the anti-aliased shapes, and on top
}

// atomsCacheKey is what the cached drawing depends on.
type atomsCacheKey struct {
	sc       *scene.Atoms
	w, h     int
	dark     bool
	hover    int
	dragging bool
}

func (r *atomsRenderer) reset(a *app) {
	r.hover, r.dragging = -1, false
}

func (r *atomsRenderer) layoutFor(a *app, sc *scene.Atoms) scene.AtomsLayout {
	return scene.NewAtomsLayout(a.view.Width, a.view.Height, math.Max(1, a.gfx.dsf), sc.D)
}

// pointer drags the query on the pad and tracks the atom under the
// pointer; it asks for a redraw only when what is ringed changes.
func (r *atomsRenderer) pointer(a *app, p pointerState) scene.Scene {
	sc := a.scene.(*scene.Atoms)
	l := r.layoutFor(a, sc)
	var next scene.Scene
	dragging := r.dragging
	switch {
	case p.justPressed && l.Pad.W > 0 && l.Pad.Contains(p.x, p.y):
		r.dragging = true
		if n := sc.DragQuery(l, p.x, p.y); n != nil {
			next = n
		}
	case p.pressed && r.dragging:
		if n := sc.DragQuery(l, p.x, p.y); n != nil {
			next = n
		}
	case p.released:
		r.dragging = false
	}
	hover := sc.HitAtom(l, p.x, p.y, hitRadius*a.gfx.dsf)
	if hover != r.hover || r.dragging != dragging {
		a.redraw = true
	}
	r.hover = hover
	return next
}

func (r *atomsRenderer) rebuild(a *app, th scene.Theme) {
	sc := a.scene.(*scene.Atoms)
	r.layout = r.layoutFor(a, sc)
	r.big.SetSize(15 * math.Max(1, a.gfx.dsf))
}

func (r *atomsRenderer) draw(screen *ebiten.Image, a *app, th scene.Theme) {
	sc := a.scene.(*scene.Atoms)
	l := r.layout
	if l.Unit == 0 {
		return
	}
	// Each panel draws into a sub-image of its own rectangle, a pixel
	// larger: text that does not fit is cut at the panel's edge.
	w, h := screen.Bounds().Dx(), screen.Bounds().Dy()
	if r.cache == nil || r.cache.Bounds().Dx() != w || r.cache.Bounds().Dy() != h {
		if r.cache != nil {
			r.cache.Deallocate()
		}
		r.cache = ebiten.NewImage(w, h)
		r.cacheKey = atomsCacheKey{}
	}
	key := atomsCacheKey{sc: sc, w: w, h: h, dark: th.Dark, hover: r.hover, dragging: r.dragging}
	if key != r.cacheKey {
		r.cache.Clear()
		// The panels do not overlap, so one round of calls draws them all;
		// each label is cut at its own panel's edge.
		r.drawHeader(clip(r.cache, l.Header, 1), a, sc, l, th)
		r.drawHeads(clip(r.cache, l.Heads, 1), a, sc, l, th)
		r.drawFused(clip(r.cache, l.Fused, 1), a, sc, l, th)
		r.drawCurve(clip(r.cache, l.Curve, 1), a, sc, l, th)
		r.flush(r.cache)
		r.cacheKey = key
	}
	screen.DrawImage(r.cache, nil)
	r.drawCosts(clip(screen, l.Costs, 1), a, sc, l, th)
	r.flush(clip(screen, l.Costs, 1))
}

// flush draws what the panels collected onto dst in four calls or runs of
// calls: crisp shapes, the labels under, anti-aliased shapes (one
// offscreen pass for all of them), the labels on top. Within a panel that
// is the order its shapes had when each was drawn by itself.
func (r *atomsRenderer) flush(dst *ebiten.Image) {
	r.flat.Flush(dst, false)
	r.under.flush()
	r.smooth.Flush(dst, true)
	r.over.flush()
}

// ---- text helpers ----

// bigLabel adds a label in the larger type and returns its width.
func (r *atomsRenderer) bigLabel(t *texts, dst *ebiten.Image, s string, x, y float64, c color.RGBA) float64 {
	return t.put(dst, &r.big, s, x, y, c)
}

// labelW adds a small label and returns its width.
func labelW(t *texts, dst *ebiten.Image, a *app, s string, x, y float64, c color.RGBA) float64 {
	return t.put(dst, &a.gfx.labels, s, x, y, c)
}

func textWidth(a *app, s string) float64 {
	img := a.gfx.labels.Get(s, color.RGBA{0, 0, 0, 255})
	if img == nil {
		return 0
	}
	return float64(img.Bounds().Dx())
}

// panelBox adds a panel's frame, inside its rectangle.
func panelBox(b *shapes.Batch, rc scene.Rect, th scene.Theme, u float64) {
	b.StrokeRect(rc.X+u/2, rc.Y+u/2, rc.W-u, rc.H-u, u, th.Grid)
}

// sup writes n with superscript digits.
func sup(n int) string {
	digits := []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")
	var b strings.Builder
	for _, c := range fmt.Sprint(n) {
		b.WriteRune(digits[c-'0'])
	}
	return b.String()
}

func fmtNs(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
	return fmt.Sprintf("%.3g ns", ns)
}

func fmtCount(n *big.Int) string {
	if n.BitLen() < 40 {
		return scene.GroupDigits(n.String())
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return fmt.Sprintf("%.3g", f)
}

// ---- header: both outputs and their difference ----

func (r *atomsRenderer) drawHeader(dst *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	t := &r.over
	x, y := l.Header.X+4*u, l.Header.Y+2*u
	x += r.bigLabel(t, dst, fmt.Sprintf("W_%d(q) = Σ σ(q_j)", sc.D), x, y, th.Text) + 14*u
	diff := "difference: " + sc.DifferenceWords()
	if sc.Built {
		diff = fmt.Sprintf("|fused − split| = %.2g, %s", sc.Difference(), sc.DifferenceWords())
	}
	if x+textWidth(a, diff) > l.Header.X+l.Header.W-2*u {
		diff = sc.DifferenceWords() // a phone's header: the words alone
	}
	labelW(t, dst, a, diff, x, y+3*u, muted(th))
	split := fmt.Sprintf("split (%s terms): %.15f", sc.Terms, sc.Split)
	fused := "fused: not built (d > " + fmt.Sprint(scene.AtomsBuildLimit) + ")"
	if sc.Built {
		fused = fmt.Sprintf("fused (%s atoms): %.15f", fmtCount(sc.Count), sc.Fused)
	}
	x, y = l.Header.X+4*u, y+22*u
	w := labelW(t, dst, a, split, x, y, th.HeadColor(0))
	if l.Header.H > 50*u {
		labelW(t, dst, a, fused, x, y+16*u, th.HeadColor(5))
	} else {
		labelW(t, dst, a, fused, x+w+18*u, y, th.HeadColor(5))
	}
}

// ---- left: the d two-atom heads ----

// drawHeads draws the heads' rows and the pad: frames, bars and the pad's
// grid crisp; the labels beside the atoms under the atoms' circles, which
// go in one anti-aliased call with the pad's query.
func (r *atomsRenderer) drawHeads(dst *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	p := l.Heads
	panelBox(&r.flat, p, th, u)
	title := fmt.Sprintf("%d heads × 2 atoms = %s head-atom terms", sc.D, sc.Terms)
	if p.W < 300*u {
		title = fmt.Sprintf("%d heads × 2 atoms = %s terms", sc.D, sc.Terms)
	}
	labelW(&r.under, dst, a, title, p.X+8*u, p.Y+5*u, th.Text)
	right := p.X + p.W // the rows' right edge: the pad's left on phones
	if l.Narrow && l.Pad.W > 0 {
		right = l.Pad.X - 6*u
	}
	shown, cut := l.HeadRows(sc.D)
	rowH := l.HeadRowHeightFor(sc.D)
	y := p.Y + 26*u
	rad := math.Min(rowH*0.36, 13*u)
	// Every row's rings, then the circles over them.
	type circle struct {
		x, y, r float64
		c       color.RGBA
	}
	var circles []circle
	for j := 0; j < shown; j++ {
		col := th.HeadColor(j)
		cy := y + rowH/2
		x := p.X + 8*u
		labelW(&r.under, dst, a, fmt.Sprintf("h%d", j+1), x, cy-8*u, col)
		x += 30 * u
		s := sc.Sigma[j]
		// The two atoms, area ∝ weight: e_j (value 1) and 0 (value 0).
		for i, w := range []float64{s, 1 - s} {
			cx := x + rad + float64(i)*(2*rad+6*u)
			r.smooth.Ring(cx, cy, rad, u, th.Grid)
			c := col
			if i == 1 {
				c = th.Axis
			}
			if rr := rad * math.Sqrt(w); rr > 0.3*u {
				circles = append(circles, circle{cx, cy, rr, shapes.WithAlpha(c, 0.9)})
			}
		}
		x += 4*rad + 14*u
		// The head's softmax over its two atoms as one bar.
		tw := 118 * u
		if l.Narrow {
			tw = 128 * u
		}
		bw := right - x - tw - 8*u
		if bw > 20*u {
			bh := math.Min(12*u, rowH*0.35)
			r.flat.Rect(x, cy-bh/2, bw, bh, th.Grid)
			r.flat.Rect(x, cy-bh/2, bw*s, bh, col)
			x += bw + 8*u
		}
		txt := fmt.Sprintf("q=%.2f  σ=%.4f", sc.Q[j], s)
		if right-x < 118*u {
			txt = fmt.Sprintf("σ=%.4f", s)
		}
		labelW(&r.under, dst, a, txt, x, cy-8*u, th.Text)
		y += rowH
	}
	for _, c := range circles {
		r.smooth.Disc(c.x, c.y, c.r, c.c)
	}
	if cut {
		labelW(&r.under, dst, a, fmt.Sprintf("… and %d more heads", sc.D-shown), p.X+8*u, y+rowH/2-8*u, muted(th))
	}
	if l.Pad.W > 0 {
		r.drawPad(dst, a, sc, l, th)
	}
}

func (r *atomsRenderer) drawPad(dst *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	p := l.Pad
	r.flat.Rect(p.X, p.Y, p.W, p.H, shapes.WithAlpha(th.Grid, 0.35))
	for k := -scene.QRange; k <= scene.QRange; k += 2 {
		c, w := th.Grid, u
		if k == 0 {
			c, w = th.Axis, 1.5*u
		}
		x0, y0 := l.PadToScreen(float64(k), -scene.QRange)
		x1, y1 := l.PadToScreen(float64(k), scene.QRange)
		r.flat.Line(x0, y0, x1, y1, w, c)
		if sc.D == 2 {
			x0, y0 = l.PadToScreen(-scene.QRange, float64(k))
			x1, y1 = l.PadToScreen(scene.QRange, float64(k))
			r.flat.Line(x0, y0, x1, y1, w, c)
		}
	}
	if sc.D == 1 {
		x0, y0 := l.PadToScreen(-scene.QRange, 0)
		x1, y1 := l.PadToScreen(scene.QRange, 0)
		r.flat.Line(x0, y0, x1, y1, 1.5*u, th.Axis)
	}
	panelBox(&r.flat, p, th, u)
	q2 := 0.0
	if sc.D == 2 {
		q2 = sc.Q[1]
	}
	qx, qy := l.PadToScreen(sc.Q[0], q2)
	rad := 8 * u
	if r.dragging {
		r.smooth.Ring(qx, qy, rad+4*u, 2*u, th.Query)
	}
	r.smooth.Disc(qx, qy, rad, th.Query)
	r.smooth.Ring(qx, qy, rad, 1.5*u, th.Background)
	axes := "drag the query: q₁ → (−6…6)"
	if sc.D == 2 {
		axes = "drag the query: q₁ →, q₂ ↑ (−6…6)"
	}
	if l.Narrow {
		labelW(&r.over, dst, a, "drag q", p.X, p.Y+p.H+3*u, muted(th))
	} else {
		labelW(&r.over, dst, a, axes, p.X, p.Y-17*u, muted(th))
	}
}

// ---- right: the fused head ----

func setName(s []int) string {
	if len(s) == 0 {
		return "{ }"
	}
	parts := make([]string, len(s))
	for i, j := range s {
		parts[i] = fmt.Sprint(j)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func (r *atomsRenderer) drawFused(dst *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	p := l.Fused
	panelBox(&r.flat, p, th, u)
	title := fmt.Sprintf("one fused head: 2%s = %s atoms (1_S, 0, |S|), keys on {0,1}%s", sup(sc.D), fmtCount(sc.Count), sup(sc.D))
	if p.W < 420*u {
		title = fmt.Sprintf("fused: 2%s = %s atoms, keys on {0,1}%s", sup(sc.D), fmtCount(sc.Count), sup(sc.D))
	}
	labelW(&r.under, dst, a, title, p.X+8*u, p.Y+5*u, th.Text)
	atoms, hist := l.FusedArea(sc.D)
	if sc.Weights != nil {
		if sc.D <= scene.AtomsCubeLimit {
			r.drawCube(dst, a, sc, l, th)
		} else {
			r.drawGrid(dst, a, sc, l, th)
		}
		r.drawHover(dst, a, sc, atoms, th, u)
	}
	r.drawHistogram(dst, a, sc, hist, th, u)
}

// drawCube draws the hypercube: its edges by head colour, then every
// atom's ring, every atom's disc and the ring of the atom pointed at, all
// anti-aliased over the labels.
func (r *atomsRenderer) drawCube(dst *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	pts, size := sc.AtomPoints(l)
	d := sc.D
	// The edges of one head's colour together, the colours in the order
	// first met: parallel edges never overlap, and where two colours
	// cross, the later colour lies on top.
	edges := scene.CubeEdges(sc.Keys, d)
	var order []int
	for _, e := range edges {
		if !slices.Contains(order, e[2]) {
			order = append(order, e[2])
		}
	}
	for _, h := range order {
		for _, e := range edges {
			if e[2] == h {
				p0, p1 := pts[e[0]], pts[e[1]]
				r.smooth.Line(p0[0], p0[1], p1[0], p1[1], 2*u, shapes.WithAlpha(th.HeadColor(e[2]), 0.55))
			}
		}
	}
	wmax := 0.0
	for _, w := range sc.Weights {
		wmax = math.Max(wmax, w)
	}
	for _, pt := range pts {
		r.smooth.Ring(pt[0], pt[1], size, u, shapes.WithAlpha(th.Axis, 0.6))
	}
	for i, pt := range pts {
		rr := size * math.Sqrt(sc.Weights[i]/wmax)
		r.smooth.Disc(pt[0], pt[1], math.Max(rr, 1.5*u), shapes.WithAlpha(th.Query, 0.9))
	}
	if i := r.hover; i >= 0 && i < len(pts) {
		r.smooth.Ring(pts[i][0], pts[i][1], size+4*u, 2*u, th.Text)
	}
	for i, pt := range pts {
		// Labels where they fit: sets up to d = 3, bits for the tesseract
		// on a large panel; the hover line names any atom.
		lab := setName(sc.AtomSet(i))
		if d == 4 {
			lab = ""
			if area, _ := l.FusedArea(d); math.Min(area.W, area.H) >= 330*u {
				lab = sc.AtomBits(i)
			}
		}
		labelW(&r.under, dst, a, lab, pt[0]+size*0.75+2*u, pt[1]+size*0.45, muted(th))
		if d <= 2 {
			labelW(&r.under, dst, a, fmt.Sprintf("%.3f", sc.Weights[i]), pt[0]+size*0.75+2*u, pt[1]+size*0.45+14*u, th.Text)
		}
	}
}

func (r *atomsRenderer) drawGrid(dst *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	d := sc.D
	area, _ := l.FusedArea(d)
	g, cell := scene.GridRect(d, area, u)
	pts, _ := sc.AtomPoints(l)
	wmax := 0.0
	for _, w := range sc.Weights {
		wmax = math.Max(wmax, w)
	}
	gap := math.Min(1*u, cell/6)
	for i, pt := range pts {
		f := sc.Weights[i] / wmax
		x, y := pt[0]-cell/2+gap/2, pt[1]-cell/2+gap/2
		r.flat.Rect(x, y, cell-gap, cell-gap, shapes.WithAlpha(th.Grid, 0.6))
		r.flat.Rect(x, y, cell-gap, cell-gap, shapes.WithAlpha(th.Query, 0.08+0.92*math.Sqrt(f)))
		if i == r.hover {
			r.flat.StrokeRect(x, y, cell-gap, cell-gap, 2*u, th.Text)
		}
	}
	// Row and column bit labels where they fit.
	rows, cols, rb := scene.GridShape(d)
	bits := func(v, n int) string {
		s := ""
		for k := n - 1; k >= 0; k-- {
			s += fmt.Sprint(v >> k & 1)
		}
		return s
	}
	if cell >= 13*u {
		for rr := 0; rr < rows; rr++ {
			s := bits(rr, rb)
			labelW(&r.under, dst, a, s, g.X-textWidth(a, s)-3*u, g.Y+(float64(rr)+0.5)*cell-8*u, muted(th))
		}
	}
	cw := textWidth(a, bits(0, d-rb))
	if cell >= cw+2*u {
		for c := 0; c < cols; c++ {
			labelW(&r.under, dst, a, bits(c, d-rb), g.X+(float64(c)+0.5)*cell-cw/2, g.Y-16*u, muted(th))
		}
	}
	labelW(&r.under, dst, a, fmt.Sprintf("rows: bits 1–%d, columns: bits %d–%d; shade = weight", rb, rb+1, d), area.X+8*u, area.Y+area.H-14*u, muted(th))
}

func (r *atomsRenderer) drawHover(dst *ebiten.Image, a *app, sc *scene.Atoms, area scene.Rect, th scene.Theme, u float64) {
	i := r.hover
	if i < 0 || i >= len(sc.Weights) {
		labelW(&r.over, dst, a, "size of each atom = its attention weight; point at one", area.X+8*u, area.Y+2*u, muted(th))
		return
	}
	s := sc.AtomSet(i)
	labelW(&r.over, dst, a, fmt.Sprintf("atom S = %s: key %s, value |S| = %d, weight %.6f", setName(s), sc.AtomBits(i), len(s), sc.Weights[i]), area.X+8*u, area.Y+2*u, th.Text)
}

func (r *atomsRenderer) drawHistogram(dst *ebiten.Image, a *app, sc *scene.Atoms, hr scene.Rect, th scene.Theme, u float64) {
	if hr.H < 30*u {
		return
	}
	t := &r.over
	y := hr.Y + 2*u
	if !sc.Built {
		for _, line := range wrapChars(sc.Refused, int(hr.W/(6.6*u))) {
			labelW(t, dst, a, line, hr.X+8*u, y, th.Query)
			y += 15 * u
		}
		y += 4 * u
	}
	title := "attention mass by |S| (Poisson-binomial); its mean E|S| is the output"
	if hr.W < 420*u {
		title = "mass by |S| (Poisson-binomial); mean = output"
	}
	labelW(t, dst, a, title, hr.X+8*u, y, th.Text)
	plot := scene.Rect{X: hr.X + 12*u, Y: y + 34*u, W: hr.W - 24*u, H: hr.Y + hr.H - y - 54*u}
	if plot.H < 10*u {
		return
	}
	d := sc.D
	mmax := 0.0
	for _, m := range sc.Mass {
		mmax = math.Max(mmax, m)
	}
	bw := plot.W / float64(d+1)
	base := plot.Y + plot.H
	r.flat.Line(plot.X, base, plot.X+plot.W, base, u, th.Axis)
	step := 1
	for float64(step)*bw < 22*u {
		step *= 2
	}
	if step > 1 && step%5 != 0 && d >= 20 {
		step = 5 * ((step + 4) / 5)
	}
	for s, m := range sc.Mass {
		h := plot.H * m / mmax
		x := plot.X + float64(s)*bw
		r.flat.Rect(x+bw*0.1, base-h, bw*0.8, h, shapes.WithAlpha(th.Query, 0.85))
		if s%step == 0 {
			lab := fmt.Sprint(s)
			labelW(t, dst, a, lab, x+bw/2-textWidth(a, lab)/2, base+2*u, muted(th))
		}
	}
	mx := plot.X + (sc.Split+0.5)*bw
	r.flat.Line(mx, plot.Y-4*u, mx, base, 1.5*u, th.Text)
	lab := fmt.Sprintf("E|S| = %.3f", sc.Split)
	lx := mx + 4*u
	if lx+textWidth(a, lab) > plot.X+plot.W {
		lx = mx - 4*u - textWidth(a, lab)
	}
	labelW(t, dst, a, lab, lx, plot.Y-6*u, th.Text)
}

// ---- bottom: the explosion curve ----

// drawCurve draws the explosion curve: the grid, the dashed build limit
// and the current d crisp, under the curves and the current d's points.
// (Each was drawn by itself over the curves before; they cross the curves
// only under the points, and the build limit where the fused curve meets
// it at d = 20.)
func (r *atomsRenderer) drawCurve(dst *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	p := l.Curve
	if p.H < 60*u {
		return
	}
	panelBox(&r.flat, p, th, u)
	ax := scene.NewCurveAxes(p, u)
	pl := ax.Plot
	// Beyond the build limit: counts only.
	xl, _ := ax.Point(scene.AtomsBuildLimit, 0)
	r.flat.Rect(xl, pl.Y, pl.X+pl.W-xl, pl.H, shapes.WithAlpha(th.Grid, 0.45))
	labelW(&r.under, dst, a, "counts only (not built)", xl+6*u, pl.Y+2*u, muted(th))
	// Grid and ticks.
	step := 3 // decades between labelled ticks, fewer on a short panel
	for step < 18 && pl.H*float64(step)/scene.CurveDecades < 15*u {
		step += 3
	}
	for e := 0; e <= scene.CurveDecades; e += step {
		x0, y0 := ax.Point(1, float64(e))
		x1, _ := ax.Point(scene.AtomsMaxWidth, float64(e))
		r.flat.Line(x0, y0, x1, y0, u, th.Grid)
		lab := "1"
		if e > 0 {
			lab = "10" + sup(e)
		}
		labelW(&r.under, dst, a, lab, x0-textWidth(a, lab)-4*u, y0-8*u, muted(th))
	}
	for _, dd := range []int{1, 10, 20, 30, 40, 50, 60} {
		x, y := ax.Point(float64(dd), 0)
		r.flat.Line(x, y, x, y+4*u, u, th.Axis)
		lab := fmt.Sprint(dd)
		labelW(&r.under, dst, a, lab, x-textWidth(a, lab)/2, y+5*u, muted(th))
	}
	x0, y0 := ax.Point(1, 0)
	x1, _ := ax.Point(scene.AtomsMaxWidth, 0)
	r.flat.Line(x0, y0, x1, y0, u, th.Axis)
	labelW(&r.under, dst, a, "d", x1+4*u, y0-8*u, muted(th))
	// The two curves.
	terms, fused := th.HeadColor(0), th.HeadColor(5)
	var tp, fp [][2]float64
	for dd := 1; dd <= scene.AtomsMaxWidth; dd++ {
		x, y := ax.Point(float64(dd), math.Log10(float64(2*dd)))
		tp = append(tp, [2]float64{x, y})
		x, y = ax.Point(float64(dd), float64(dd)*math.Log10(2))
		fp = append(fp, [2]float64{x, y})
	}
	r.smooth.Polyline(tp, 2.5*u, terms)
	r.smooth.Polyline(fp, 2.5*u, fused)
	// The build limit as a dashed level.
	_, yl := ax.Point(1, scene.AtomsBuildLimit*math.Log10(2))
	for x := pl.X; x < pl.X+pl.W; x += 10 * u {
		r.flat.Line(x, yl, math.Min(x+5*u, pl.X+pl.W), yl, u, th.Axis)
	}
	labelW(&r.under, dst, a, fmt.Sprintf("build limit 2%s", sup(scene.AtomsBuildLimit)), pl.X+4*u, yl-15*u, muted(th))
	// The current d.
	d := float64(sc.D)
	xd, _ := ax.Point(d, 0)
	r.flat.Line(xd, pl.Y, xd, pl.Y+pl.H, 1.5*u, th.Text)
	_, yt := ax.Point(d, math.Log10(2*d))
	_, yf := ax.Point(d, d*math.Log10(2))
	r.smooth.Disc(xd, yt, 5*u, terms)
	r.smooth.Disc(xd, yf, 5*u, fused)
	lt := fmt.Sprintf("2d = %d", 2*sc.D)
	lf := fmt.Sprintf("2%s = %s", sup(sc.D), fmtCount(sc.Count))
	lx := xd + 8*u
	if lx+math.Max(textWidth(a, lf), textWidth(a, lt)) > pl.X+pl.W {
		lx = xd - 8*u - math.Max(textWidth(a, lf), textWidth(a, lt))
	}
	t := &r.over
	labelW(t, dst, a, lt, lx, yt-2*u, terms)
	labelW(t, dst, a, lf, lx, yf-16*u, fused)
	// Title and legend.
	tx := p.X + 8*u
	wide := p.W >= 460*u
	if wide {
		tx += labelW(t, dst, a, "the atom explosion: ", tx, p.Y+5*u, th.Text)
	}
	r.flat.Line(tx, p.Y+13*u, tx+16*u, p.Y+13*u, 2.5*u, terms)
	tx += 20 * u
	if wide {
		tx += labelW(t, dst, a, "head-atom terms 2d   ", tx, p.Y+5*u, th.Text)
	} else {
		tx += labelW(t, dst, a, "terms 2d  ", tx, p.Y+5*u, th.Text)
	}
	r.flat.Line(tx, p.Y+13*u, tx+16*u, p.Y+13*u, 2.5*u, fused)
	tx += 20 * u
	if wide {
		labelW(t, dst, a, "fused atoms 2^d (log scale)", tx, p.Y+5*u, th.Text)
	} else {
		labelW(t, dst, a, "atoms 2^d (log)", tx, p.Y+5*u, th.Text)
	}
}

// ---- beside the curve: memory and measured cost ----

func (r *atomsRenderer) drawCosts(dst *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	p := l.Costs
	if p.H < 40*u {
		return
	}
	panelBox(&r.flat, p, th, u)
	f := sc.Facts()
	x, y := p.X+8*u, p.Y+5*u
	line := func(s string, c color.RGBA) {
		if y+14*u > p.Y+p.H {
			return
		}
		labelW(&r.over, dst, a, s, x, y, c)
		y += 16 * u
	}
	line("KV cache, float64 keys + values:", th.Text)
	line(fmt.Sprintf("  split, %s atoms: %s", sc.Terms, scene.FormatBytes(scene.KVBytes(sc.D, sc.Terms))), th.HeadColor(0))
	line(fmt.Sprintf("  fused, %s atoms: %s", fmtCount(sc.Count), scene.FormatBytes(scene.KVBytes(sc.D, sc.Count))), th.HeadColor(5))
	y += 6 * u
	line("Per query, measured here:", th.Text)
	split, _ := f["splitNs"].(float64)
	fusedNs, _ := f["fusedNs"].(float64)
	switch {
	case f["timed"] != true:
		line("  measuring…", muted(th))
	default:
		line(fmt.Sprintf("  split: %s", fmtNs(split)), th.HeadColor(0))
		if fusedNs > 0 {
			line(fmt.Sprintf("  fused: %s (%.3g×)", fmtNs(fusedNs), fusedNs/split), th.HeadColor(5))
		} else {
			line("  fused: not built", muted(th))
		}
	}
	y += 6 * u
	if fit, ok := f["fit"].(map[string]any); ok && fit["available"] == true {
		if fit["complete"] == true {
			line("Fewer atoms: done (panel)", muted(th))
		} else {
			pr, _ := f["fitProgress"].(float64)
			line(fmt.Sprintf("Fewer atoms (experiment) %.0f%%", 100*pr), muted(th))
			bw := p.W - 16*u
			if y+8*u <= p.Y+p.H {
				r.flat.Rect(x, y, bw, 6*u, th.Grid)
				r.flat.Rect(x, y, bw*pr, 6*u, th.HeadColor(2))
			}
		}
	}
}
