//go:build js && wasm

package main

import (
	"fmt"
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/wasm/scene"
	"headlab/wasm/shapes"
)

// attentionRenderer draws the Attention scene: the score field of one head
// as a heat map, every head's weights as lines from the query, the tokens,
// and a legend; tokens are dragged with the pointer.
type attentionRenderer struct {
	drag     scene.Drag
	hover    int
	heat     *ebiten.Image
	heatCols int
	heatRows int
	shapes   shapes.Batch // feathered: anti-aliased in one plain call
}

func (r *attentionRenderer) reset(a *app) {
	r.drag.Release()
	r.hover = -1
}

func (r *attentionRenderer) pointer(a *app, p pointerState) scene.Scene {
	sc := a.scene.(*scene.Attention)
	radius := hitRadius * a.unit()
	var next scene.Scene
	switch {
	case p.justPressed:
		r.drag.Press(sc, a.view, p.x, p.y, radius)
	case p.pressed && r.drag.Active:
		if changed, n := r.drag.Move(sc, a.view, p.x, p.y); changed {
			next = &n
			sc = &n
		}
	case p.released && r.drag.Active:
		r.drag.Release()
		a.refitLocked()
		a.dirty = true
	}
	if h := sc.HitToken(a.view, p.x, p.y, radius); h != r.hover {
		r.hover = h
		a.redraw = true
	}
	return next
}

// rebuild recomputes the heat map image.
func (r *attentionRenderer) rebuild(a *app, th scene.Theme) {
	v, sc := a.view, a.scene.(*scene.Attention)
	if sc.State.Heat == 0 || v.Width < 1 || v.Height < 1 {
		return
	}
	cols := max(1, int(v.Width/(scene.HeatCell*a.gfx.dsf)))
	rows := max(1, int(v.Height/(scene.HeatCell*a.gfx.dsf)))
	field, peak := sc.Field(v, sc.State.Heat-1, cols, rows)
	pix := make([]byte, 4*cols*rows)
	for i, s := range field {
		c := th.Heat(s, peak)
		pix[4*i], pix[4*i+1], pix[4*i+2], pix[4*i+3] = c.R, c.G, c.B, c.A
	}
	if r.heat == nil || r.heatCols != cols || r.heatRows != rows {
		if r.heat != nil {
			r.heat.Deallocate()
		}
		r.heat = ebiten.NewImage(cols, rows)
		r.heatCols, r.heatRows = cols, rows
	}
	r.heat.WritePixels(pix)
}

func (r *attentionRenderer) draw(screen *ebiten.Image, a *app, th scene.Theme) {
	sc, v, dsf := a.scene.(*scene.Attention), a.view, a.unit()
	if r.heat != nil && sc.State.Heat > 0 {
		op := &ebiten.DrawImageOptions{Filter: ebiten.FilterLinear}
		op.GeoM.Scale(v.Width/float64(r.heatCols), v.Height/float64(r.heatRows))
		screen.DrawImage(r.heat, op)
	}
	drawGrid(screen, &r.shapes, v, th, dsf)
	// Every shape in one call, anti-aliased by its fringes (batch), then
	// the labels on top.
	r.drawWeights(sc, v, th, dsf)
	r.drawTokens(sc, v, th, dsf)
	r.drawLegendShapes(sc, th, dsf)
	r.shapes.Flush(screen, true)
	r.drawTokenLabels(screen, a, sc, v, th, dsf)
	r.drawLegendLabels(screen, a, sc, th, dsf)
}

// The sizes below are in CSS pixels times dsf, the app's unit (device
// pixels, enlarged in presentation mode).

// drawWeights draws, for every head, a line from the query to each token
// whose width and opacity grow with the attention weight. Heads are offset
// sideways from each other so that overlapping lines stay distinguishable.
func (r *attentionRenderer) drawWeights(sc *scene.Attention, v scene.View, th scene.Theme, dsf float64) {
	at := func(i int) (float64, float64) { return v.ToScreen(sc.Point(i)) }
	for h, det := range sc.Details {
		r.shapes.WeightLines(h, len(sc.Details), sc.Query(), det.Weights, at, dsf, th.HeadColor(h))
	}
}

func (r *attentionRenderer) drawTokens(sc *scene.Attention, v scene.View, th scene.Theme, dsf float64) {
	q := sc.Query()
	for i := 0; i < sc.State.N; i++ {
		x, y := v.ToScreen(sc.Point(i))
		rad, col := tokenLook(i, q, th, dsf)
		if i == r.hover || (r.drag.Active && r.drag.Token == i) {
			r.shapes.Ring(x, y, rad+4*dsf, 2*dsf, col)
		}
		r.shapes.Disc(x, y, rad+1.5*dsf, th.Background)
		r.shapes.Disc(x, y, rad, col)
	}
}

// tokenLook returns a token's radius and colour: the query is larger and red.
func tokenLook(i, q int, th scene.Theme, dsf float64) (float64, color.RGBA) {
	if i == q {
		return 8 * dsf, th.Query
	}
	return 6 * dsf, th.Token
}

func (r *attentionRenderer) drawTokenLabels(screen *ebiten.Image, a *app, sc *scene.Attention, v scene.View, th scene.Theme, dsf float64) {
	q := sc.Query()
	for i := 0; i < sc.State.N; i++ {
		x, y := v.ToScreen(sc.Point(i))
		rad, _ := tokenLook(i, q, th, dsf)
		label := fmt.Sprint(i + 1)
		if i == q {
			label = "query"
		}
		a.label(screen, label, x+rad+3*dsf, y-rad-14*dsf, th.Text)
	}
}

// drawLegendShapes and drawLegendLabels name each head's colour and line
// pattern in the corner, so colour is never the only cue.
func (r *attentionRenderer) drawLegendShapes(sc *scene.Attention, th scene.Theme, dsf float64) {
	x, y := 12*dsf, 10*dsf
	for h := range sc.Details {
		r.shapes.HeadLine(h, x, y+8*dsf, x+30*dsf, y+8*dsf, 2*dsf, dsf, th.HeadColor(h))
		y += 18 * dsf
	}
}

func (r *attentionRenderer) drawLegendLabels(screen *ebiten.Image, a *app, sc *scene.Attention, th scene.Theme, dsf float64) {
	x, y := 12*dsf, 10*dsf
	for h := range sc.Details {
		a.label(screen, fmt.Sprintf("head %d", h+1), x+36*dsf, y, th.Text)
		y += 18 * dsf
	}
	if sc.State.Heat > 0 {
		shading := fmt.Sprintf("shading: score x·W%d·query (red +, blue −)", sc.State.Heat)
		if sc.State.Bias {
			shading = fmt.Sprintf("shading: score x·(W%d·query + c%d) (red +, blue −)", sc.State.Heat, sc.State.Heat)
		}
		a.label(screen, shading, x, y+4*dsf, th.Text)
	}
}
