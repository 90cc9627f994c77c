//go:build js && wasm

package main

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"math/big"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"headlab/wasm/scene"
)

// atomsRenderer draws the Atom explosion scene: the header with both
// outputs, the d two-atom heads (left), the fused head's 2^d atoms as a
// hypercube, a grid or a histogram (right), and the explosion curve with
// memory and measured costs (bottom). For d ≤ 2 the query is dragged on a
// pad under the heads.
type atomsRenderer struct {
	layout   scene.AtomsLayout
	hover    int
	dragging bool
	big      labels // larger type for the header and titles

	// cache holds everything but the costs panel, drawn again only when
	// its key changes: a frame is then one image and a few labels, which
	// matters while a job runs (every frame is marked changed) and because
	// each anti-aliased shape costs an offscreen pass in ebiten.
	cache    *ebiten.Image
	cacheKey atomsCacheKey
	white    *ebiten.Image
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

func (r *atomsRenderer) pointer(a *app, p pointerState) scene.Scene {
	sc := a.scene.(*scene.Atoms)
	l := r.layoutFor(a, sc)
	var next scene.Scene
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
	r.hover = sc.HitAtom(l, p.x, p.y, hitRadius*a.gfx.dsf)
	return next
}

func (r *atomsRenderer) rebuild(a *app, th scene.Theme) {
	sc := a.scene.(*scene.Atoms)
	r.layout = r.layoutFor(a, sc)
	r.big.setSize(15 * math.Max(1, a.gfx.dsf))
}

func (r *atomsRenderer) draw(screen *ebiten.Image, a *app, th scene.Theme) {
	sc := a.scene.(*scene.Atoms)
	l := r.layout
	if l.Unit == 0 {
		return
	}
	// Each panel draws into a sub-image of its own rectangle: same
	// coordinates, but text that does not fit is cut at the panel's edge.
	clip := func(img *ebiten.Image, rc scene.Rect) *ebiten.Image {
		return img.SubImage(image.Rect(int(rc.X), int(rc.Y), int(math.Ceil(rc.X+rc.W))+1, int(math.Ceil(rc.Y+rc.H))+1)).(*ebiten.Image)
	}
	w, h := screen.Bounds().Dx(), screen.Bounds().Dy()
	if r.cache == nil || r.cache.Bounds().Dx() != w || r.cache.Bounds().Dy() != h {
		if r.cache != nil {
			r.cache.Deallocate()
		}
		r.cache = ebiten.NewImage(w, h)
		r.cacheKey = atomsCacheKey{}
	}
	if r.white == nil {
		r.white = ebiten.NewImage(3, 3)
		r.white.Fill(color.White)
	}
	key := atomsCacheKey{sc: sc, w: w, h: h, dark: th.Dark, hover: r.hover, dragging: r.dragging}
	if key != r.cacheKey {
		r.cache.Clear()
		r.drawHeader(clip(r.cache, l.Header), a, sc, l, th)
		r.drawHeads(clip(r.cache, l.Heads), a, sc, l, th)
		r.drawFused(clip(r.cache, l.Fused), a, sc, l, th)
		r.drawCurve(clip(r.cache, l.Curve), a, sc, l, th)
		r.cacheKey = key
	}
	screen.DrawImage(r.cache, nil)
	r.drawCosts(clip(screen, l.Costs), a, sc, l, th)
}

// shapes collects anti-aliased circles, rings and lines by colour and width
// and draws each group as one path: ebiten renders every anti-aliased
// draw call through its own offscreen pass, so a hypercube drawn shape by
// shape costs a hundred passes, and in groups a handful.
type shapes struct {
	keys  []shapeKey
	paths map[shapeKey]*vector.Path
}

type shapeKey struct {
	c     color.RGBA
	width float64 // 0 fills
}

func (b *shapes) path(c color.RGBA, width float64) *vector.Path {
	if b.paths == nil {
		b.paths = map[shapeKey]*vector.Path{}
	}
	k := shapeKey{c, width}
	p, ok := b.paths[k]
	if !ok {
		p = &vector.Path{}
		b.paths[k] = p
		b.keys = append(b.keys, k)
	}
	return p
}

func (b *shapes) circle(x, y, rad float64, c color.RGBA) {
	p := b.path(c, 0)
	p.MoveTo(float32(x+rad), float32(y))
	p.Arc(float32(x), float32(y), float32(rad), 0, 2*math.Pi, vector.Clockwise)
	p.Close()
}

func (b *shapes) ring(x, y, rad, width float64, c color.RGBA) {
	p := b.path(c, width)
	p.MoveTo(float32(x+rad), float32(y))
	p.Arc(float32(x), float32(y), float32(rad), 0, 2*math.Pi, vector.Clockwise)
	p.Close()
}

func (b *shapes) line(x0, y0, x1, y1, width float64, c color.RGBA) {
	p := b.path(c, width)
	p.MoveTo(float32(x0), float32(y0))
	p.LineTo(float32(x1), float32(y1))
}

// flush draws the groups in the order they were first used.
func (b *shapes) flush(r *atomsRenderer, dst *ebiten.Image) {
	for _, k := range b.keys {
		p := b.paths[k]
		var vs []ebiten.Vertex
		var is []uint16
		if k.width == 0 {
			vs, is = p.AppendVerticesAndIndicesForFilling(nil, nil)
		} else {
			vs, is = p.AppendVerticesAndIndicesForStroke(nil, nil, &vector.StrokeOptions{Width: float32(k.width)})
		}
		r.drawVertices(dst, vs, is, k.c)
	}
	b.keys, b.paths = nil, nil
}

func (r *atomsRenderer) drawVertices(dst *ebiten.Image, vs []ebiten.Vertex, is []uint16, c color.RGBA) {
	cr, cg, cb, ca := c.RGBA()
	for i := range vs {
		vs[i].SrcX, vs[i].SrcY = 1, 1
		vs[i].ColorR, vs[i].ColorG, vs[i].ColorB, vs[i].ColorA = float32(cr)/0xffff, float32(cg)/0xffff, float32(cb)/0xffff, float32(ca)/0xffff
	}
	op := &ebiten.DrawTrianglesOptions{ColorScaleMode: ebiten.ColorScaleModePremultipliedAlpha, AntiAlias: true, FillRule: ebiten.FillRuleNonZero}
	dst.DrawTriangles(vs, is, r.white.SubImage(image.Rect(1, 1, 2, 2)).(*ebiten.Image), op)
}

// strokePolyline strokes the line through pts as one anti-aliased shape.
func (r *atomsRenderer) strokePolyline(dst *ebiten.Image, pts [][2]float64, width float64, c color.RGBA) {
	if len(pts) < 2 {
		return
	}
	var p vector.Path
	p.MoveTo(float32(pts[0][0]), float32(pts[0][1]))
	for _, q := range pts[1:] {
		p.LineTo(float32(q[0]), float32(q[1]))
	}
	vs, is := p.AppendVerticesAndIndicesForStroke(nil, nil, &vector.StrokeOptions{Width: float32(width), LineJoin: vector.LineJoinRound})
	r.drawVertices(dst, vs, is, c)
}

// ---- text helpers ----

func (r *atomsRenderer) bigLabel(screen *ebiten.Image, s string, x, y float64, c color.RGBA) float64 {
	img := r.big.get(s, c)
	if img == nil {
		return 0
	}
	op := &ebiten.DrawImageOptions{}
	op.GeoM.Translate(math.Round(x), math.Round(y))
	screen.DrawImage(img, op)
	return float64(img.Bounds().Dx())
}

// labelW draws a small label and returns its width.
func labelW(screen *ebiten.Image, a *app, s string, x, y float64, c color.RGBA) float64 {
	img := a.gfx.labels.get(s, c)
	if img == nil {
		return 0
	}
	op := &ebiten.DrawImageOptions{}
	op.GeoM.Translate(math.Round(x), math.Round(y))
	screen.DrawImage(img, op)
	return float64(img.Bounds().Dx())
}

func textWidth(a *app, s string) float64 {
	img := a.gfx.labels.get(s, color.RGBA{0, 0, 0, 255})
	if img == nil {
		return 0
	}
	return float64(img.Bounds().Dx())
}

// wrap splits s into lines of at most n characters at spaces.
func wrap(s string, n int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > n {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

func muted(th scene.Theme) color.RGBA {
	if th.Dark {
		return color.RGBA{0xa9, 0xb0, 0xbc, 0xff}
	}
	return color.RGBA{0x55, 0x5b, 0x66, 0xff}
}

func panelBox(screen *ebiten.Image, rc scene.Rect, th scene.Theme, u float64) {
	vector.StrokeRect(screen, float32(rc.X+u/2), float32(rc.Y+u/2), float32(rc.W-u), float32(rc.H-u), float32(u), th.Grid, false)
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
		s := n.String()
		var b strings.Builder
		for i, c := range s {
			if i > 0 && (len(s)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return fmt.Sprintf("%.3g", f)
}

// ---- header: both outputs and their difference ----

func (r *atomsRenderer) drawHeader(screen *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	x, y := l.Header.X+4*u, l.Header.Y+2*u
	x += r.bigLabel(screen, fmt.Sprintf("W_%d(q) = Σ σ(q_j)", sc.D), x, y, th.Text) + 14*u
	diff := "difference: " + sc.DifferenceWords()
	if sc.Built {
		diff = fmt.Sprintf("|fused − split| = %.2g, %s", sc.Difference(), sc.DifferenceWords())
	}
	labelW(screen, a, diff, x, y+3*u, muted(th))
	split := fmt.Sprintf("split (%s terms): %.15f", sc.Terms, sc.Split)
	fused := "fused: not built (d > " + fmt.Sprint(scene.AtomsBuildLimit) + ")"
	if sc.Built {
		fused = fmt.Sprintf("fused (%s atoms): %.15f", fmtCount(sc.Count), sc.Fused)
	}
	x, y = l.Header.X+4*u, y+22*u
	w := labelW(screen, a, split, x, y, th.HeadColor(0))
	if l.Header.H > 50*u {
		labelW(screen, a, fused, x, y+16*u, th.HeadColor(5))
	} else {
		labelW(screen, a, fused, x+w+18*u, y, th.HeadColor(5))
	}
}

// ---- left: the d two-atom heads ----

func (r *atomsRenderer) drawHeads(screen *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	p := l.Heads
	panelBox(screen, p, th, u)
	title := fmt.Sprintf("%d heads × 2 atoms = %s head-atom terms", sc.D, sc.Terms)
	if p.W < 300*u {
		title = fmt.Sprintf("%d heads × 2 atoms = %s terms", sc.D, sc.Terms)
	}
	labelW(screen, a, title, p.X+8*u, p.Y+5*u, th.Text)
	right := p.X + p.W // the rows' right edge: the pad's left on phones
	if l.Narrow && l.Pad.W > 0 {
		right = l.Pad.X - 6*u
	}
	shown, cut := l.HeadRows(sc.D)
	rowH := l.HeadRowHeightFor(sc.D)
	y := p.Y + 26*u
	rad := math.Min(rowH*0.36, 13*u)
	var b shapes
	defer b.flush(r, screen)
	for j := 0; j < shown; j++ {
		col := th.HeadColor(j)
		cy := y + rowH/2
		x := p.X + 8*u
		labelW(screen, a, fmt.Sprintf("h%d", j+1), x, cy-8*u, col)
		x += 30 * u
		s := sc.Sigma[j]
		// The two atoms, area ∝ weight: e_j (value 1) and 0 (value 0).
		for i, w := range []float64{s, 1 - s} {
			cx := x + rad + float64(i)*(2*rad+6*u)
			b.ring(cx, cy, rad, u, th.Grid)
			c := col
			if i == 1 {
				c = th.Axis
			}
			if rr := rad * math.Sqrt(w); rr > 0.3*u {
				b.circle(cx, cy, rr, withAlpha(c, 0.9))
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
			vector.DrawFilledRect(screen, float32(x), float32(cy-bh/2), float32(bw), float32(bh), th.Grid, false)
			vector.DrawFilledRect(screen, float32(x), float32(cy-bh/2), float32(bw*s), float32(bh), col, false)
			x += bw + 8*u
		}
		txt := fmt.Sprintf("q=%.2f  σ=%.4f", sc.Q[j], s)
		if right-x < 118*u {
			txt = fmt.Sprintf("σ=%.4f", s)
		}
		labelW(screen, a, txt, x, cy-8*u, th.Text)
		y += rowH
	}
	if cut {
		labelW(screen, a, fmt.Sprintf("… and %d more heads", sc.D-shown), p.X+8*u, y+rowH/2-8*u, muted(th))
	}
	if l.Pad.W > 0 {
		r.drawPad(screen, a, sc, l, th)
	}
}

func (r *atomsRenderer) drawPad(screen *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	p := l.Pad
	vector.DrawFilledRect(screen, float32(p.X), float32(p.Y), float32(p.W), float32(p.H), withAlpha(th.Grid, 0.35), false)
	for k := -scene.QRange; k <= scene.QRange; k += 2 {
		c, w := th.Grid, u
		if k == 0 {
			c, w = th.Axis, 1.5*u
		}
		x0, y0 := l.PadToScreen(float64(k), -scene.QRange)
		x1, y1 := l.PadToScreen(float64(k), scene.QRange)
		vector.StrokeLine(screen, float32(x0), float32(y0), float32(x1), float32(y1), float32(w), c, false)
		if sc.D == 2 {
			x0, y0 = l.PadToScreen(-scene.QRange, float64(k))
			x1, y1 = l.PadToScreen(scene.QRange, float64(k))
			vector.StrokeLine(screen, float32(x0), float32(y0), float32(x1), float32(y1), float32(w), c, false)
		}
	}
	if sc.D == 1 {
		x0, y0 := l.PadToScreen(-scene.QRange, 0)
		x1, y1 := l.PadToScreen(scene.QRange, 0)
		vector.StrokeLine(screen, float32(x0), float32(y0), float32(x1), float32(y1), float32(1.5*u), th.Axis, false)
	}
	panelBox(screen, p, th, u)
	q2 := 0.0
	if sc.D == 2 {
		q2 = sc.Q[1]
	}
	qx, qy := l.PadToScreen(sc.Q[0], q2)
	rad := 8 * u
	var b shapes
	if r.dragging {
		b.ring(qx, qy, rad+4*u, 2*u, th.Query)
	}
	b.circle(qx, qy, rad, th.Query)
	b.ring(qx, qy, rad, 1.5*u, th.Background)
	b.flush(r, screen)
	axes := "drag the query: q₁ → (−6…6)"
	if sc.D == 2 {
		axes = "drag the query: q₁ →, q₂ ↑ (−6…6)"
	}
	if l.Narrow {
		labelW(screen, a, "drag q", p.X, p.Y+p.H+3*u, muted(th))
	} else {
		labelW(screen, a, axes, p.X, p.Y-17*u, muted(th))
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

func (r *atomsRenderer) drawFused(screen *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	p := l.Fused
	panelBox(screen, p, th, u)
	title := fmt.Sprintf("one fused head: 2%s = %s atoms (1_S, 0, |S|), keys on {0,1}%s", sup(sc.D), fmtCount(sc.Count), sup(sc.D))
	if p.W < 420*u {
		title = fmt.Sprintf("fused: 2%s = %s atoms, keys on {0,1}%s", sup(sc.D), fmtCount(sc.Count), sup(sc.D))
	}
	labelW(screen, a, title, p.X+8*u, p.Y+5*u, th.Text)
	atoms, hist := l.FusedArea(sc.D)
	if sc.Weights != nil {
		if sc.D <= scene.AtomsCubeLimit {
			r.drawCube(screen, a, sc, l, th)
		} else {
			r.drawGrid(screen, a, sc, l, th)
		}
		r.drawHover(screen, a, sc, atoms, th, u)
	}
	r.drawHistogram(screen, a, sc, hist, th, u)
}

func (r *atomsRenderer) drawCube(screen *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	pts, size := sc.AtomPoints(l)
	d := sc.D
	var b shapes
	defer b.flush(r, screen)
	for _, e := range scene.CubeEdges(sc.Keys, d) {
		p0, p1 := pts[e[0]], pts[e[1]]
		b.line(p0[0], p0[1], p1[0], p1[1], 2*u, withAlpha(th.HeadColor(e[2]), 0.55))
	}
	wmax := 0.0
	for _, w := range sc.Weights {
		wmax = math.Max(wmax, w)
	}
	for i, pt := range pts {
		w := sc.Weights[i]
		rr := size * math.Sqrt(w/wmax)
		b.ring(pt[0], pt[1], size, u, withAlpha(th.Axis, 0.6))
		b.circle(pt[0], pt[1], math.Max(rr, 1.5*u), withAlpha(th.Query, 0.9))
		if i == r.hover {
			b.ring(pt[0], pt[1], size+4*u, 2*u, th.Text)
		}
		// Labels where they fit: sets up to d = 3, bits for the tesseract
		// on a large panel; the hover line names any atom.
		lab := setName(sc.AtomSet(i))
		if d == 4 {
			lab = ""
			if area, _ := l.FusedArea(d); math.Min(area.W, area.H) >= 330*u {
				lab = sc.AtomBits(i)
			}
		}
		labelW(screen, a, lab, pt[0]+size*0.75+2*u, pt[1]+size*0.45, muted(th))
		if d <= 2 {
			labelW(screen, a, fmt.Sprintf("%.3f", w), pt[0]+size*0.75+2*u, pt[1]+size*0.45+14*u, th.Text)
		}
	}
}

func (r *atomsRenderer) drawGrid(screen *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
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
		vector.DrawFilledRect(screen, float32(x), float32(y), float32(cell-gap), float32(cell-gap), withAlpha(th.Grid, 0.6), false)
		vector.DrawFilledRect(screen, float32(x), float32(y), float32(cell-gap), float32(cell-gap), withAlpha(th.Query, 0.08+0.92*math.Sqrt(f)), false)
		if i == r.hover {
			vector.StrokeRect(screen, float32(x), float32(y), float32(cell-gap), float32(cell-gap), float32(2*u), th.Text, false)
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
			labelW(screen, a, s, g.X-textWidth(a, s)-3*u, g.Y+(float64(rr)+0.5)*cell-8*u, muted(th))
		}
	}
	cw := textWidth(a, bits(0, d-rb))
	if cell >= cw+2*u {
		for c := 0; c < cols; c++ {
			labelW(screen, a, bits(c, d-rb), g.X+(float64(c)+0.5)*cell-cw/2, g.Y-16*u, muted(th))
		}
	}
	labelW(screen, a, fmt.Sprintf("rows: bits 1–%d, columns: bits %d–%d; shade = weight", rb, rb+1, d), area.X+8*u, area.Y+area.H-14*u, muted(th))
}

func (r *atomsRenderer) drawHover(screen *ebiten.Image, a *app, sc *scene.Atoms, area scene.Rect, th scene.Theme, u float64) {
	i := r.hover
	if i < 0 || i >= len(sc.Weights) {
		labelW(screen, a, "size of each atom = its attention weight; point at one", area.X+8*u, area.Y+2*u, muted(th))
		return
	}
	s := sc.AtomSet(i)
	labelW(screen, a, fmt.Sprintf("atom S = %s: key %s, value |S| = %d, weight %.6f", setName(s), sc.AtomBits(i), len(s), sc.Weights[i]), area.X+8*u, area.Y+2*u, th.Text)
}

func (r *atomsRenderer) drawHistogram(screen *ebiten.Image, a *app, sc *scene.Atoms, hr scene.Rect, th scene.Theme, u float64) {
	if hr.H < 30*u {
		return
	}
	y := hr.Y + 2*u
	if !sc.Built {
		for _, line := range wrap(sc.Refused, int(hr.W/(6.6*u))) {
			labelW(screen, a, line, hr.X+8*u, y, th.Query)
			y += 15 * u
		}
		y += 4 * u
	}
	title := "attention mass by |S| (Poisson-binomial); its mean E|S| is the output"
	if hr.W < 420*u {
		title = "mass by |S| (Poisson-binomial); mean = output"
	}
	labelW(screen, a, title, hr.X+8*u, y, th.Text)
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
	vector.StrokeLine(screen, float32(plot.X), float32(base), float32(plot.X+plot.W), float32(base), float32(u), th.Axis, false)
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
		vector.DrawFilledRect(screen, float32(x+bw*0.1), float32(base-h), float32(bw*0.8), float32(h), withAlpha(th.Query, 0.85), false)
		if s%step == 0 {
			lab := fmt.Sprint(s)
			labelW(screen, a, lab, x+bw/2-textWidth(a, lab)/2, base+2*u, muted(th))
		}
	}
	mx := plot.X + (sc.Split+0.5)*bw
	vector.StrokeLine(screen, float32(mx), float32(plot.Y-4*u), float32(mx), float32(base), float32(1.5*u), th.Text, false)
	lab := fmt.Sprintf("E|S| = %.3f", sc.Split)
	lx := mx + 4*u
	if lx+textWidth(a, lab) > plot.X+plot.W {
		lx = mx - 4*u - textWidth(a, lab)
	}
	labelW(screen, a, lab, lx, plot.Y-6*u, th.Text)
}

// ---- bottom: the explosion curve ----

func (r *atomsRenderer) drawCurve(screen *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	p := l.Curve
	if p.H < 60*u {
		return
	}
	panelBox(screen, p, th, u)
	ax := scene.NewCurveAxes(p, u)
	pl := ax.Plot
	// Beyond the build limit: counts only.
	xl, _ := ax.Point(scene.AtomsBuildLimit, 0)
	vector.DrawFilledRect(screen, float32(xl), float32(pl.Y), float32(pl.X+pl.W-xl), float32(pl.H), withAlpha(th.Grid, 0.45), false)
	labelW(screen, a, "counts only (not built)", xl+6*u, pl.Y+2*u, muted(th))
	// Grid and ticks.
	step := 3 // decades between labelled ticks, fewer on a short panel
	for step < 18 && pl.H*float64(step)/scene.CurveDecades < 15*u {
		step += 3
	}
	for e := 0; e <= scene.CurveDecades; e += step {
		x0, y0 := ax.Point(1, float64(e))
		x1, _ := ax.Point(scene.AtomsMaxWidth, float64(e))
		vector.StrokeLine(screen, float32(x0), float32(y0), float32(x1), float32(y0), float32(u), th.Grid, false)
		lab := "1"
		if e > 0 {
			lab = "10" + sup(e)
		}
		labelW(screen, a, lab, x0-textWidth(a, lab)-4*u, y0-8*u, muted(th))
	}
	for _, dd := range []int{1, 10, 20, 30, 40, 50, 60} {
		x, y := ax.Point(float64(dd), 0)
		vector.StrokeLine(screen, float32(x), float32(y), float32(x), float32(y+4*u), float32(u), th.Axis, false)
		lab := fmt.Sprint(dd)
		labelW(screen, a, lab, x-textWidth(a, lab)/2, y+5*u, muted(th))
	}
	x0, y0 := ax.Point(1, 0)
	x1, _ := ax.Point(scene.AtomsMaxWidth, 0)
	vector.StrokeLine(screen, float32(x0), float32(y0), float32(x1), float32(y0), float32(u), th.Axis, false)
	labelW(screen, a, "d", x1+4*u, y0-8*u, muted(th))
	// The two curves.
	terms, fused := th.HeadColor(0), th.HeadColor(5)
	var tp, fp [][2]float64
	for dd := 1; dd <= scene.AtomsMaxWidth; dd++ {
		x, y := ax.Point(float64(dd), math.Log10(float64(2*dd)))
		tp = append(tp, [2]float64{x, y})
		x, y = ax.Point(float64(dd), float64(dd)*math.Log10(2))
		fp = append(fp, [2]float64{x, y})
	}
	r.strokePolyline(screen, tp, 2.5*u, terms)
	r.strokePolyline(screen, fp, 2.5*u, fused)
	// The build limit as a dashed level.
	_, yl := ax.Point(1, scene.AtomsBuildLimit*math.Log10(2))
	for x := pl.X; x < pl.X+pl.W; x += 10 * u {
		vector.StrokeLine(screen, float32(x), float32(yl), float32(math.Min(x+5*u, pl.X+pl.W)), float32(yl), float32(u), th.Axis, false)
	}
	labelW(screen, a, fmt.Sprintf("build limit 2%s", sup(scene.AtomsBuildLimit)), pl.X+4*u, yl-15*u, muted(th))
	// The current d.
	d := float64(sc.D)
	xd, _ := ax.Point(d, 0)
	vector.StrokeLine(screen, float32(xd), float32(pl.Y), float32(xd), float32(pl.Y+pl.H), float32(1.5*u), th.Text, false)
	_, yt := ax.Point(d, math.Log10(2*d))
	_, yf := ax.Point(d, d*math.Log10(2))
	var b shapes
	b.circle(xd, yt, 5*u, terms)
	b.circle(xd, yf, 5*u, fused)
	b.flush(r, screen)
	lt := fmt.Sprintf("2d = %d", 2*sc.D)
	lf := fmt.Sprintf("2%s = %s", sup(sc.D), fmtCount(sc.Count))
	lx := xd + 8*u
	if lx+math.Max(textWidth(a, lf), textWidth(a, lt)) > pl.X+pl.W {
		lx = xd - 8*u - math.Max(textWidth(a, lf), textWidth(a, lt))
	}
	labelW(screen, a, lt, lx, yt-2*u, terms)
	labelW(screen, a, lf, lx, yf-16*u, fused)
	// Title and legend.
	tx := p.X + 8*u
	wide := p.W >= 460*u
	if wide {
		tx += labelW(screen, a, "the atom explosion: ", tx, p.Y+5*u, th.Text)
	}
	vector.StrokeLine(screen, float32(tx), float32(p.Y+13*u), float32(tx+16*u), float32(p.Y+13*u), float32(2.5*u), terms, false)
	tx += 20 * u
	if wide {
		tx += labelW(screen, a, "head-atom terms 2d   ", tx, p.Y+5*u, th.Text)
	} else {
		tx += labelW(screen, a, "terms 2d  ", tx, p.Y+5*u, th.Text)
	}
	vector.StrokeLine(screen, float32(tx), float32(p.Y+13*u), float32(tx+16*u), float32(p.Y+13*u), float32(2.5*u), fused, false)
	tx += 20 * u
	if wide {
		labelW(screen, a, "fused atoms 2^d (log scale)", tx, p.Y+5*u, th.Text)
	} else {
		labelW(screen, a, "atoms 2^d (log)", tx, p.Y+5*u, th.Text)
	}
}

// ---- beside the curve: memory and measured cost ----

func (r *atomsRenderer) drawCosts(screen *ebiten.Image, a *app, sc *scene.Atoms, l scene.AtomsLayout, th scene.Theme) {
	u := l.Unit
	p := l.Costs
	if p.H < 40*u {
		return
	}
	panelBox(screen, p, th, u)
	f := sc.Facts()
	x, y := p.X+8*u, p.Y+5*u
	line := func(s string, c color.RGBA) {
		if y+14*u > p.Y+p.H {
			return
		}
		labelW(screen, a, s, x, y, c)
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
				vector.DrawFilledRect(screen, float32(x), float32(y), float32(bw), float32(6*u), th.Grid, false)
				vector.DrawFilledRect(screen, float32(x), float32(y), float32(bw*pr), float32(6*u), th.HeadColor(2), false)
			}
		}
	}
}
