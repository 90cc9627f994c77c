//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"sync"

	"headlab/wasm/scene"
	"headlab/web/link"
)

// app is the canvas's state: the current scene, the drag in progress and
// what the host must be told. Every field is guarded by mu, because the
// host's calls arrive on the JS event loop while ebiten runs Update and
// Draw in its own goroutine.
type app struct {
	mu      sync.Mutex
	scene   *scene.Attention
	notices []link.Notice
	drag    scene.Drag
	view    scene.View
	dirty   bool // the scene changed: redraw caches, tell the host
	drawn   bool // the current scene reached the screen
	version int  // bumped on every change of state
	told    int  // the version the host last heard of
	gfx     graphics
}

func newApp() *app {
	a := &app{}
	s := link.Default()
	sc, err := scene.NewAttention(s)
	if err != nil {
		panic(err) // the default state is valid by construction (tested)
	}
	a.scene = sc
	a.dirty = true
	return a
}

// open applies a link and returns the notices it produced.
func (a *app) open(fragment string) []link.Notice {
	s, notes := link.Parse(fragment)
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.setLocked(s, notes)
}

// set changes one key, as the host's controls do.
func (a *app) set(key, value string) []link.Notice {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, notes := a.scene.State.With(key, value)
	return a.setLocked(s, notes)
}

func (a *app) setLocked(s link.State, notes []link.Notice) []link.Notice {
	sc, err := scene.NewAttention(s)
	if err != nil {
		notes = append(notes, link.Notice{Message: fmt.Sprintf("%v; the previous view is kept", err)})
		a.notices = notes
		return notes
	}
	a.scene = sc
	a.notices = notes
	a.drag.Release()
	if a.view.Width > 0 {
		margin := a.view.Margin
		a.view = scene.NewView(a.view.Width, a.view.Height, s.Tok, s.D)
		a.view.Margin = margin
	}
	a.changedLocked()
	return notes
}

func (a *app) changedLocked() {
	a.dirty = true
	a.drawn = false
	a.version++
}

func (a *app) stateJSON() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return mustJSON(a.scene.State.Values())
}

func (a *app) factsJSON() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return mustJSON(a.scene.Facts())
}

func (a *app) linkString() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.scene.State.Link()
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Only NaN or Inf can fail here; the scene refuses those.
		return fmt.Sprintf(`{"error":%q}`, err.Error())
	}
	return string(b)
}
