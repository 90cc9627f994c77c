//go:build js && wasm

package main

import (
	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"headlab/wasm/scene"
)

// hitRadius is how close, in CSS pixels, a press must be to grab a token.
const hitRadius = 14

// Update turns pointer input into changes of state; it never draws.
func (a *app) Update() error {
	a.mu.Lock()
	a.pointerLocked()
	var tell string
	if a.version != a.told {
		a.told = a.version
		tell = a.scene.State.Link()
	}
	a.mu.Unlock()
	if tell != "" {
		a.notifyHost("changed", tell)
	}
	return nil
}

// pointerLocked feeds the mouse and the first finger to the drag.
func (a *app) pointerLocked() {
	dsf := a.gfx.dsf
	if dsf <= 0 {
		return
	}
	px, py, pressed, justPressed, released := a.pointer()
	x, y := float64(px), float64(py)
	switch {
	case justPressed:
		a.drag.Press(a.scene, a.view, x, y, hitRadius*dsf)
	case pressed && a.drag.Active:
		if changed, next := a.drag.Move(a.scene, a.view, x, y); changed {
			a.scene = &next
			a.changedLocked()
		}
	case released && a.drag.Active:
		a.drag.Release()
		a.view = scene.NewView(a.view.Width, a.view.Height, a.scene.State.Tok, a.scene.State.D)
		a.dirty = true
	}
	a.gfx.hover = a.scene.HitToken(a.view, x, y, hitRadius*dsf)
}

// pointer reads one pointer from the mouse or, when fingers are down, from
// the first touch, in screen pixels.
func (a *app) pointer() (x, y int, pressed, justPressed, released bool) {
	a.gfx.touches = ebiten.AppendTouchIDs(a.gfx.touches[:0])
	if len(a.gfx.touches) > 0 || a.gfx.touching {
		just := inpututil.AppendJustPressedTouchIDs(nil)
		if len(just) > 0 && !a.gfx.touching {
			a.gfx.touch, a.gfx.touching = just[0], true
			x, y = ebiten.TouchPosition(a.gfx.touch)
			return x, y, true, true, false
		}
		if a.gfx.touching {
			if inpututil.IsTouchJustReleased(a.gfx.touch) {
				a.gfx.touching = false
				return a.gfx.lastX, a.gfx.lastY, false, false, true
			}
			x, y = ebiten.TouchPosition(a.gfx.touch)
			a.gfx.lastX, a.gfx.lastY = x, y
			return x, y, true, false, false
		}
	}
	x, y = ebiten.CursorPosition()
	return x, y, ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft),
		inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft),
		inpututil.IsMouseButtonJustReleased(ebiten.MouseButtonLeft)
}

// Layout renders at device pixels for a crisp canvas on HiDPI screens.
func (a *app) Layout(int, int) (int, int) {
	panic("unused: LayoutF is implemented")
}

// LayoutF receives the iframe's size in CSS pixels.
func (a *app) LayoutF(w, h float64) (float64, float64) {
	dsf := ebiten.Monitor().DeviceScaleFactor()
	W, H := w*dsf, h*dsf
	a.mu.Lock()
	if W != a.view.Width || H != a.view.Height || dsf != a.gfx.dsf {
		a.gfx.dsf = dsf
		a.view = scene.NewView(W, H, a.scene.State.Tok, a.scene.State.D)
		a.view.Margin = 16 * dsf
		a.dirty = true
	}
	a.mu.Unlock()
	return W, H
}

func actualFPS() float64 { return ebiten.ActualFPS() }
