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

// graphics holds what Draw caches between frames and the pointer's
// bookkeeping; it belongs to app and is guarded by app.mu.
type graphics struct {
	dsf      float64
	labels   labels.Cache
	touches  []ebiten.TouchID
	touch    ebiten.TouchID
	touching bool
	lastX    int
	lastY    int
	dark     bool
}

// Draw draws the scene as Update left it. The scene's state never changes
// here; the renderer's own cache (laid-out text and shapes) is rebuilt
// when Update marked it dirty, since it depends on the screen's theme and
// scale, and a frame no one would see is skipped.
func (a *app) Draw(screen *ebiten.Image) {
	a.mu.Lock()
	// Until the host opens its link, the scene is the default one, which a
	// link to another scene would replace at once: drawing it would cost
	// a whole first frame (shaders, caches, and under software rendering
	// a read-back of the canvas) for a picture no one sees.
	if !a.opened || (!a.redraw && !a.dirty) {
		a.mu.Unlock()
		return
	}
	a.redraw = false
	th := a.themeLocked()
	if a.dirty {
		a.gfx.labels.SetSize(12 * math.Max(1, a.unit()))
		a.render.rebuild(a, th)
		a.dirty = false
	}
	screen.Fill(th.Background)
	a.render.draw(screen, a, th)
	first := !a.drawn
	a.drawn = true
	a.mu.Unlock()
	if first {
		a.markDrawn()
	}
}

// presentScale enlarges type and lines in presentation mode, for the back
// of a lecture hall.
const presentScale = 1.5

// unit is the size of a CSS pixel on the canvas, in device pixels, times
// the presentation scale: what sizes of marks and type are multiplied by.
func (a *app) unit() float64 {
	if a.scene.Link().Present {
		return a.gfx.dsf * presentScale
	}
	return a.gfx.dsf
}

func (a *app) themeLocked() scene.Theme {
	switch a.scene.Link().Theme {
	case link.Dark:
		return scene.Dark
	case link.Light:
		return scene.Light
	}
	if a.gfx.dark {
		return scene.Dark
	}
	return scene.Light
}

// drawGrid draws the unit grid and the axes as crisp axis-aligned lines,
// in one call without anti-aliasing.
func drawGrid(screen *ebiten.Image, b *shapes.Batch, v scene.View, th scene.Theme, dsf float64) {
	e := int(v.Extent)
	for k := -e; k <= e; k++ {
		c, w := th.Grid, math.Max(1, math.Round(dsf))
		if k == 0 {
			c, w = th.Axis, math.Max(1, math.Round(1.5*dsf))
		}
		x0, y0 := v.ToScreen(float64(k), -v.Extent)
		_, y1 := v.ToScreen(float64(k), v.Extent)
		b.Rect(math.Round(x0-w/2), y1, w, y0-y1, c)
		x0, y0 = v.ToScreen(-v.Extent, float64(k))
		x1, _ := v.ToScreen(v.Extent, float64(k))
		b.Rect(x0, math.Round(y0-w/2), x1-x0, w, c)
	}
	b.Flush(screen, false)
}

func (a *app) label(screen *ebiten.Image, s string, x, y float64, c color.RGBA) {
	img := a.gfx.labels.Get(s, c)
	if img == nil {
		return
	}
	op := &ebiten.DrawImageOptions{}
	op.GeoM.Translate(math.Round(x), math.Round(y))
	screen.DrawImage(img, op)
}
