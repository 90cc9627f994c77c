//go:build js && wasm

package main

import (
	"fmt"
	"math"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"headlab/wasm/scene"
)

// heatCell is the heat map's cell size in CSS pixels; the image is scaled up
// with linear filtering, which is smooth because the score is linear.
const heatCell = 8

// attentionRenderer draws the Attention scene: the score field of one head
// as a heat map, every head's weights as lines from the query, the tokens,
// and a legend; tokens are dragged with the pointer.
type attentionRenderer struct {
	drag     scene.Drag
	hover    int
	heat     *ebiten.Image
	heatCols int
	heatRows int
}

func (r *attentionRenderer) reset(a *app) {
	r.drag.Release()
	r.hover = -1
}

func (r *attentionRenderer) pointer(a *app, p pointerState) scene.Scene {
	sc := a.scene.(*scene.Attention)
	radius := hitRadius * a.gfx.dsf
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
	r.hover = sc.HitToken(a.view, p.x, p.y, radius)
	return next
}

// rebuild recomputes the heat map image.
func (r *attentionRenderer) rebuild(a *app, th scene.Theme) {
	v, sc := a.view, a.scene.(*scene.Attention)
	if sc.State.Heat == 0 || v.Width < 1 || v.Height < 1 {
		return
	}
	cols := max(1, int(v.Width/(heatCell*a.gfx.dsf)))
	rows := max(1, int(v.Height/(heatCell*a.gfx.dsf)))
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
	sc, v, dsf := a.scene.(*scene.Attention), a.view, a.gfx.dsf
	drawGrid(screen, v, th, dsf)
	if r.heat != nil && sc.State.Heat > 0 {
		op := &ebiten.DrawImageOptions{Filter: ebiten.FilterLinear}
		op.GeoM.Scale(v.Width/float64(r.heatCols), v.Height/float64(r.heatRows))
		screen.DrawImage(r.heat, op)
	}
	r.drawWeights(screen, sc, v, th, dsf)
	r.drawTokens(screen, a, sc, v, th, dsf)
	r.drawLegend(screen, a, sc, th, dsf)
}

// drawWeights draws, for every head, a line from the query to each token
// whose width and opacity grow with the attention weight. Heads are offset
// sideways from each other so that overlapping lines stay distinguishable.
func (r *attentionRenderer) drawWeights(screen *ebiten.Image, sc *scene.Attention, v scene.View, th scene.Theme, dsf float64) {
	q := sc.Query()
	qx, qy := v.ToScreen(sc.Point(q))
	H := len(sc.Details)
	for h, det := range sc.Details {
		col := th.HeadColor(h)
		off := (float64(h) - float64(H-1)/2) * 3 * dsf
		for i, w := range det.Weights {
			if i == q || w < 0.004 {
				continue
			}
			tx, ty := v.ToScreen(sc.Point(i))
			dx, dy := tx-qx, ty-qy
			l := math.Hypot(dx, dy)
			if l < 1 {
				continue
			}
			nx, ny := -dy/l*off, dx/l*off
			c := withAlpha(col, 0.25+0.75*w)
			vector.StrokeLine(screen, float32(qx+nx), float32(qy+ny), float32(tx+nx), float32(ty+ny),
				float32((0.75+7*w)*dsf), c, true)
		}
		// The query's weight on itself: a ring around the query.
		if w := det.Weights[q]; w >= 0.004 {
			vector.StrokeCircle(screen, float32(qx), float32(qy), float32((14+4*float64(h))*dsf),
				float32((0.75+5*w)*dsf), withAlpha(col, 0.25+0.75*w), true)
		}
	}
}

func (r *attentionRenderer) drawTokens(screen *ebiten.Image, a *app, sc *scene.Attention, v scene.View, th scene.Theme, dsf float64) {
	q := sc.Query()
	for i := 0; i < sc.State.N; i++ {
		x, y := v.ToScreen(sc.Point(i))
		rad := 6 * dsf
		col := th.Token
		if i == q {
			rad, col = 8*dsf, th.Query
		}
		if i == r.hover || (r.drag.Active && r.drag.Token == i) {
			vector.StrokeCircle(screen, float32(x), float32(y), float32(rad+4*dsf), float32(2*dsf), col, true)
		}
		vector.DrawFilledCircle(screen, float32(x), float32(y), float32(rad), col, true)
		vector.StrokeCircle(screen, float32(x), float32(y), float32(rad), float32(1.5*dsf), th.Background, true)
		label := fmt.Sprint(i + 1)
		if i == q {
			label = "query"
		}
		a.label(screen, label, x+rad+3*dsf, y-rad-14*dsf, th.Text)
	}
}

// drawLegend names each head's colour in the corner, so colour is never the
// only cue.
func (r *attentionRenderer) drawLegend(screen *ebiten.Image, a *app, sc *scene.Attention, th scene.Theme, dsf float64) {
	x, y := 12*dsf, 10*dsf
	for h := range sc.Details {
		col := th.HeadColor(h)
		vector.StrokeLine(screen, float32(x), float32(y+8*dsf), float32(x+22*dsf), float32(y+8*dsf), float32(3*dsf), col, true)
		a.label(screen, fmt.Sprintf("head %d", h+1), x+28*dsf, y, th.Text)
		y += 18 * dsf
	}
	if sc.State.Heat > 0 {
		a.label(screen, fmt.Sprintf("shading: score x·W%d·query (red +, blue −)", sc.State.Heat), x, y+4*dsf, th.Text)
	}
}
