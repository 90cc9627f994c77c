//go:build js && wasm

package main

import (
	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"headlab/web/link"
)

// hitRadius is how close, in CSS pixels, a press must be to grab something.
const hitRadius = 14

// Update turns pointer input into changes of state and advances a running
// job; it never draws.
func (a *app) Update() error {
	a.mu.Lock()
	if a.gfx.dsf > 0 {
		p := a.pointer()
		a.paceLocked(p.pressed)
		if next := a.render.pointer(a, p); next != nil {
			a.scene = next
			a.changedLocked()
		}
	}
	tell, late := a.advanceLocked()
	a.mu.Unlock()
	a.tellHost(tell, late)
	return nil
}

// tellHost passes what advanceLocked returned on to the host page; it is
// called without the lock, since the host may call back.
func (a *app) tellHost(tell string, late []link.Notice) {
	if tell != "" {
		a.notifyHost("changed", tell)
	}
	for _, n := range late {
		a.notifyHost("notice", n.String())
	}
}

// advanceLocked advances a running job, starts and cancels the compute
// worker's jobs, and returns the link to tell the host about (empty when
// the state did not change since it was last told) and the notices a
// finished job produced. Update calls it every frame; without WebGL the
// headless loop does (nowebgl.go).
func (a *app) advanceLocked() (tell string, late []link.Notice) {
	if a.job != nil {
		// The job's work runs in the compute worker: Step only takes what
		// has arrived, and asks for what is still missing.
		if a.job.Step() {
			a.job = nil
			// A job can settle what the scene shows (the end of a
			// recovery run, say) and so adjust the state: tell the user.
			late = sceneNotices(a.scene)
			a.changedLocked()
		}
	}
	a.dispatchLocked()
	if a.version != a.told {
		a.told = a.version
		tell = a.scene.Link().Link()
	}
	return tell, late
}

// pointerState is one pointer (the mouse, or the first finger) in screen
// pixels, with its button edges.
type pointerState struct {
	x, y                           float64
	pressed, justPressed, released bool
}

// pointer reads the mouse or, when fingers are down, the first touch.
func (a *app) pointer() pointerState {
	g := &a.gfx
	g.touches = ebiten.AppendTouchIDs(g.touches[:0])
	if len(g.touches) > 0 || g.touching {
		just := inpututil.AppendJustPressedTouchIDs(nil)
		if len(just) > 0 && !g.touching {
			g.touch, g.touching = just[0], true
			x, y := ebiten.TouchPosition(g.touch)
			g.lastX, g.lastY = x, y
			return pointerState{x: float64(x), y: float64(y), pressed: true, justPressed: true}
		}
		if g.touching {
			if inpututil.IsTouchJustReleased(g.touch) {
				g.touching = false
				return pointerState{x: float64(g.lastX), y: float64(g.lastY), released: true}
			}
			x, y := ebiten.TouchPosition(g.touch)
			g.lastX, g.lastY = x, y
			return pointerState{x: float64(x), y: float64(y), pressed: true}
		}
	}
	x, y := ebiten.CursorPosition()
	return pointerState{
		x: float64(x), y: float64(y),
		pressed:     ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft),
		justPressed: inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft),
		released:    inpututil.IsMouseButtonJustReleased(ebiten.MouseButtonLeft),
	}
}

// Layout is required by ebiten.Game; LayoutF, which ebiten prefers, does
// the work.
func (a *app) Layout(w, h int) (int, int) {
	W, H := a.LayoutF(float64(w), float64(h))
	return int(W), int(H)
}

// LayoutF receives the iframe's size in CSS pixels and renders at device
// pixels for a crisp canvas on HiDPI screens.
func (a *app) LayoutF(w, h float64) (float64, float64) {
	dsf := ebiten.Monitor().DeviceScaleFactor()
	W, H := w*dsf, h*dsf
	a.mu.Lock()
	if W != a.view.Width || H != a.view.Height || dsf != a.gfx.dsf {
		a.gfx.dsf = dsf
		a.view.Width, a.view.Height, a.view.Margin = W, H, 16*dsf
		a.refitLocked()
		a.dirty = true
	}
	a.mu.Unlock()
	return W, H
}

func actualFPS() float64 { return ebiten.ActualFPS() }
