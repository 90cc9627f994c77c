//go:build js && wasm

package main

import (
	"fmt"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"headlab/wasm/scene"
)

// graphics holds what Draw caches between frames and the pointer's
// bookkeeping; it belongs to app and is guarded by app.mu.
type graphics struct {
	dsf      float64
	heat     *ebiten.Image
	heatCols int
	heatRows int
	labels   labels
	hover    int
	touches  []ebiten.TouchID
	touch    ebiten.TouchID
	touching bool
	lastX    int
	lastY    int
	dark     bool
}

// heatCell is the heat map's cell size in CSS pixels; the image is scaled up
// with linear filtering, which is smooth because the score is linear.
const heatCell = 8

// Draw only draws: it reads the scene and the caches Update left.
func (a *app) Draw(screen *ebiten.Image) {
	a.mu.Lock()
	sc, v, dsf := a.scene, a.view, a.gfx.dsf
	th := a.themeLocked()
	if a.dirty {
		a.rebuildLocked(th)
		a.dirty = false
	}
	screen.Fill(th.Background)
	a.drawGrid(screen, v, th, dsf)
	if a.gfx.heat != nil && sc.State.Heat > 0 {
		op := &ebiten.DrawImageOptions{Filter: ebiten.FilterLinear}
		op.GeoM.Scale(v.Width/float64(a.gfx.heatCols), v.Height/float64(a.gfx.heatRows))
		screen.DrawImage(a.gfx.heat, op)
	}
	a.drawWeights(screen, sc, v, th, dsf)
	a.drawTokens(screen, sc, v, th, dsf)
	a.drawLegend(screen, sc, th, dsf)
	first := !a.drawn
	a.drawn = true
	a.mu.Unlock()
	if first {
		a.markDrawn()
	}
}

func (a *app) themeLocked() scene.Theme {
	switch a.scene.State.Theme {
	case "dark":
		return scene.Dark
	case "light":
		return scene.Light
	}
	if a.gfx.dark {
		return scene.Dark
	}
	return scene.Light
}

// rebuildLocked recomputes the heat map image and the font.
func (a *app) rebuildLocked(th scene.Theme) {
	v, sc := a.view, a.scene
	a.gfx.labels.setSize(12 * math.Max(1, a.gfx.dsf))
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
	if a.gfx.heat == nil || a.gfx.heatCols != cols || a.gfx.heatRows != rows {
		if a.gfx.heat != nil {
			a.gfx.heat.Deallocate()
		}
		a.gfx.heat = ebiten.NewImage(cols, rows)
		a.gfx.heatCols, a.gfx.heatRows = cols, rows
	}
	a.gfx.heat.WritePixels(pix)
}

func (a *app) drawGrid(screen *ebiten.Image, v scene.View, th scene.Theme, dsf float64) {
	e := int(v.Extent)
	for k := -e; k <= e; k++ {
		c := th.Grid
		w := float32(dsf)
		if k == 0 {
			c, w = th.Axis, float32(1.5*dsf)
		}
		x0, y0 := v.ToScreen(float64(k), -v.Extent)
		x1, y1 := v.ToScreen(float64(k), v.Extent)
		vector.StrokeLine(screen, float32(x0), float32(y0), float32(x1), float32(y1), w, c, true)
		x0, y0 = v.ToScreen(-v.Extent, float64(k))
		x1, y1 = v.ToScreen(v.Extent, float64(k))
		vector.StrokeLine(screen, float32(x0), float32(y0), float32(x1), float32(y1), w, c, true)
	}
}

// drawWeights draws, for every head, a line from the query to each token
// whose width and opacity grow with the attention weight. Heads are offset
// sideways from each other so that overlapping lines stay distinguishable.
func (a *app) drawWeights(screen *ebiten.Image, sc *scene.Attention, v scene.View, th scene.Theme, dsf float64) {
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

func (a *app) drawTokens(screen *ebiten.Image, sc *scene.Attention, v scene.View, th scene.Theme, dsf float64) {
	q := sc.Query()
	for i := 0; i < sc.State.N; i++ {
		x, y := v.ToScreen(sc.Point(i))
		r := 6 * dsf
		col := th.Token
		if i == q {
			r, col = 8*dsf, th.Query
		}
		if i == a.gfx.hover || (a.drag.Active && a.drag.Token == i) {
			vector.StrokeCircle(screen, float32(x), float32(y), float32(r+4*dsf), float32(2*dsf), col, true)
		}
		vector.DrawFilledCircle(screen, float32(x), float32(y), float32(r), col, true)
		vector.StrokeCircle(screen, float32(x), float32(y), float32(r), float32(1.5*dsf), th.Background, true)
		label := fmt.Sprint(i + 1)
		if i == q {
			label = "query"
		}
		a.label(screen, label, x+r+3*dsf, y-r-14*dsf, th.Text)
	}
}

// drawLegend names each head's colour in the corner, so colour is never the
// only cue.
func (a *app) drawLegend(screen *ebiten.Image, sc *scene.Attention, th scene.Theme, dsf float64) {
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

func (a *app) label(screen *ebiten.Image, s string, x, y float64, c color.RGBA) {
	img := a.gfx.labels.get(s, c)
	if img == nil {
		return
	}
	op := &ebiten.DrawImageOptions{}
	op.GeoM.Translate(math.Round(x), math.Round(y))
	screen.DrawImage(img, op)
}

func withAlpha(c color.RGBA, f float64) color.RGBA {
	f = math.Max(0, math.Min(1, f))
	return color.RGBA{uint8(float64(c.R) * f), uint8(float64(c.G) * f), uint8(float64(c.B) * f), uint8(255 * f)}
}
