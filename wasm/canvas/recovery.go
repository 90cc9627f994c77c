//go:build js && wasm

package main

import (
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/wasm/labels"
	"headlab/wasm/scene"
	"headlab/wasm/shapes"
	"headlab/web/link"
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
	title, text labels.Cache // larger type than the shared labels, for a lecture
	ty          scene.Type   // their line heights, for the scene's layouts
	u           float64
	hoverX      float64
	hoverY      float64
	hovering    bool

	// The step view's layout (layoutSteps) and what it was computed for.
	steps    scene.RecoverySteps
	stepsFor layoutKey

	// The result view's layout, and the cell (with the pointer, which its
	// tooltip follows) last drawn as hovered.
	result  resultView
	hovered heatHover

	// What a view draws, in the order flush draws it. The clip batches
	// gather the shapes of a plot or a table, which are cut to its
	// rectangle when moved into flat and smooth.
	flat, smooth, top    shapes.Batch
	clipFlat, clipSmooth shapes.Batch
	under, lab, topLab   texts
}

// heatHover is the heat-map cell under the pointer, if any, and where the
// pointer is on it.
type heatHover struct {
	h, side, i, j int
	ok            bool
	x, y          float64
}

// layoutKey is what a step view's layout was computed for: the scene, its
// run, the canvas's size, the type, and the run's progress while it is
// computed.
type layoutKey struct {
	sc       scene.Scene
	run      any
	w, h     float64
	ty       scene.Type
	progress string
}

func (r *recoveryRenderer) reset(a *app) {
	r.hovering = false
	r.steps, r.stepsFor = scene.RecoverySteps{}, layoutKey{}
	r.result = resultView{}
	r.hovered = heatHover{}
}

// pointer tracks the pointer for the result view's tooltip and asks for a
// redraw only when the cell under it, or the tooltip's place, changes.
func (r *recoveryRenderer) pointer(a *app, p pointerState) scene.Scene {
	r.layoutSteps(a)
	r.hoverX, r.hoverY = p.x, p.y
	r.hovering = p.x > 0 && p.y > 0 && p.x < a.view.Width && p.y < a.view.Height
	var now heatHover
	if sc, ok := a.scene.(*scene.Recovery); ok && sc.State.View == link.Result && r.hovering && r.u > 0 {
		if rv := r.resultLayout(a, sc); rv.heatShown {
			if h, side, i, j, ok := rv.heat.Hit(p.x, p.y); ok {
				now = heatHover{h, side, i, j, true, p.x, p.y}
			}
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
	r.title.SetSize(tsize * r.u)
	r.text.SetSize(xsize * r.u)
	r.ty = scene.Type{U: r.u, Title: r.title.LineHeight(), Text: r.text.LineHeight()}
	r.layoutSteps(a)
}

// measure is the renderer's type as the scene's layouts measure it.
func (r *recoveryRenderer) measure() scene.Measure {
	return scene.Measure{Type: r.ty,
		TitleWidth: func(s string) float64 { return r.title.Width(s) },
		TextWidth:  func(s string) float64 { return r.text.Width(s) }}
}

// layoutSteps computes the step view's layout when the scene, its run,
// its progress, the canvas or the type changed since the last time (from
// rebuild, and from pointer while the run is computed); Draw only reads
// it.
func (r *recoveryRenderer) layoutSteps(a *app) {
	sc, ok := a.scene.(*scene.Recovery)
	if !ok || r.u == 0 || !stepsView(sc.State.View) {
		return
	}
	key := layoutKey{sc: sc, run: sc.Result, w: a.view.Width, h: a.view.Height, ty: r.ty}
	if sc.Computing() {
		key.progress, _ = sc.ProgressLine()
	}
	if key == r.stepsFor {
		return
	}
	r.stepsFor = key
	r.steps = sc.StepsLayout(scene.Rect{W: a.view.Width, H: a.view.Height}, r.measure())
	a.redraw = true
}

// stepsView reports whether the recovery view v is the step view (the
// other views are result, sweep and modes).
func stepsView(v link.View) bool { return v != "result" && v != "sweep" && v != "modes" }

func (r *recoveryRenderer) draw(screen *ebiten.Image, a *app, th scene.Theme) {
	sc, ok := a.scene.(*scene.Recovery)
	if !ok || a.view.Width < 1 || r.u == 0 {
		return
	}
	full := scene.Rect{X: 0, Y: 0, W: a.view.Width, H: a.view.Height}
	defer r.flush(screen)
	switch sc.State.View {
	case link.Result:
		r.drawResult(screen, a, sc, full, th)
	case link.Sweep:
		r.drawSweep(screen, a, sc, full, th)
	case link.Modes:
		r.drawModes(screen, a, sc, full, th)
	default:
		r.drawSteps(screen, sc, th)
	}
}

// flush draws what the view collected: the crisp shapes; the labels that
// lie under curves and points (inside a plot); the anti-aliased shapes, in
// one call and so one offscreen pass; the other labels, over their shapes;
// then what lies over everything (a plot's frame over its points, the
// tooltip).
func (r *recoveryRenderer) flush(screen *ebiten.Image) {
	r.flat.Flush(screen, false)
	r.under.flush()
	r.smooth.Flush(screen, true)
	r.lab.flush()
	r.top.Flush(screen, false)
	r.topLab.flush()
}

// clipTo moves the shapes gathered in the clip batches into flat and
// smooth, cut to rc as a sub-image of rc would cut them.
func (r *recoveryRenderer) clipTo(rc scene.Rect) {
	x0, y0 := math.Floor(rc.X), math.Floor(rc.Y)
	x1, y1 := math.Ceil(rc.X+rc.W), math.Ceil(rc.Y+rc.H)
	r.flat.AppendClipped(&r.clipFlat, x0, y0, x1, y1)
	r.smooth.AppendClipped(&r.clipSmooth, x0, y0, x1, y1)
}

// paragraph adds wrapped text, to be drawn onto dst, and returns the y
// below it.
func (r *recoveryRenderer) paragraph(dst *ebiten.Image, l *labels.Cache, s string, x, y, w float64, c color.RGBA) float64 {
	lh := l.LineHeight() * 1.1
	for _, line := range wrapWidth(l, s, w) {
		r.lab.put(dst, l, line, x, y, c)
		y += lh
	}
	return y
}

// put adds a label (in the title or the body type), to be drawn onto dst.
func (r *recoveryRenderer) put(dst *ebiten.Image, l scene.Label, c color.RGBA) {
	t := &r.text
	if l.Title {
		t = &r.title
	}
	r.lab.put(dst, t, l.Text, l.X, l.Y, c)
}

// putAll adds the labels, to be drawn onto dst.
func (r *recoveryRenderer) putAll(dst *ebiten.Image, ls []scene.Label, c color.RGBA) {
	for _, l := range ls {
		r.put(dst, l, c)
	}
}

// panel draws the title of the result, sweep or modes view inside the
// view's margin and returns the panel (scene.Panel): the margin, the y
// under the title and the width inside the margins.
func (r *recoveryRenderer) panel(screen *ebiten.Image, full scene.Rect, title string, th scene.Theme) scene.Panel {
	p := scene.NewPanel(full, r.ty)
	r.lab.put(screen, &r.title, title, p.Pad, p.Pad, th.Text)
	return p
}

// tick is a grid line of a plot: where it is (a pixel column or row),
// whether it is the axis (value zero, drawn darker), and its label ("" for
// none).
type tick struct {
	px    float64
	zero  bool
	label string
}

// grid adds a plot's grid, to be cut to the plot: a vertical line at each
// of xs labelled under the plot, a horizontal one at each of ys labelled
// left of it.
func (r *recoveryRenderer) grid(screen *ebiten.Image, plot scene.Rect, xs, ys []tick, th scene.Theme) {
	u, mc := r.u, muted(th)
	colour := func(t tick) color.RGBA {
		if t.zero {
			return th.Axis
		}
		return th.Grid
	}
	for _, t := range xs {
		r.clipFlat.Line(t.px, plot.Y, t.px, plot.Y+plot.H, u, colour(t))
		if t.label != "" {
			r.lab.put(screen, &r.text, t.label, t.px-r.text.Width(t.label)/2, plot.Y+plot.H+4*u, mc)
		}
	}
	for _, t := range ys {
		r.clipFlat.Line(plot.X, t.px, plot.X+plot.W, t.px, u, colour(t))
		if t.label != "" {
			r.lab.put(screen, &r.text, t.label, plot.X-r.text.Width(t.label)-4*u, t.px-r.text.LineHeight()/2, mc)
		}
	}
}
