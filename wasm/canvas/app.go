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
	lab     *scene.Lab // what scenes reuse from one state to the next
	scene   scene.Scene
	render  renderer // draws scene; chosen by the scene's name
	notices []link.Notice
	job     scene.Job // a long computation run a slice per frame, or nil
	view    scene.View
	dirty   bool // the scene or the view changed: rebuild caches and redraw
	redraw  bool // something on screen changed (a hover, a job's progress): draw again
	drawn   bool // the current scene reached the screen
	opened  bool // the host has opened a link: until then nothing is drawn
	version int  // bumped on every change of state
	told    int  // the version the host last heard of
	gfx     graphics
	comp    computer // the compute worker's client
}

func newApp() *app {
	a := &app{lab: scene.NewLab()}
	sc, err := scene.New(link.Default(), a.lab)
	if err != nil {
		panic(err) // the default state is valid by construction (tested)
	}
	a.scene, a.render = sc, rendererFor(sc)
	a.dirty = true
	return a
}

// open applies a link and returns the notices it produced.
func (a *app) open(fragment string) []link.Notice {
	s, notes := link.Parse(fragment)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.opened = true
	return a.setLocked(s, notes)
}

// set changes one key, as the host's controls do.
func (a *app) set(key, value string) []link.Notice {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, notes := a.scene.Link().With(key, value)
	return a.setLocked(s, notes)
}

func (a *app) setLocked(s link.State, notes []link.Notice) []link.Notice {
	a.lab.ForgetFailures() // a new set-up runs afresh, even after a failed job
	sc, err := scene.New(s, a.lab)
	if err != nil {
		notes = append(notes, link.Notice{Message: fmt.Sprintf("%v; the previous view is kept", err)})
		a.notices = notes
		return notes
	}
	a.replaceLocked(sc)
	notes = append(notes, sceneNotices(sc)...)
	a.notices = notes
	return notes
}

// replaceLocked makes sc the current scene, with a fresh renderer when the
// scene's kind changed, and refits the view to its tokens.
func (a *app) replaceLocked(sc scene.Scene) {
	old := a.scene.Link().Scene
	a.scene = sc
	if sc.Link().Scene != old {
		a.render = rendererFor(sc)
	}
	a.render.reset(a)
	if j, ok := sc.(interface{ Job() scene.Job }); ok {
		a.job = j.Job()
	} else {
		a.job = nil
	}
	a.refitLocked()
	a.changedLocked()
}

// refitLocked fits the view to the scene's tokens.
func (a *app) refitLocked() {
	if a.view.Width <= 0 {
		return
	}
	s := a.scene.Link()
	margin := a.view.Margin
	a.view = scene.NewView(a.view.Width, a.view.Height, s.Tok, s.D)
	a.view.Margin = margin
}

func (a *app) changedLocked() {
	a.dirty = true
	a.redraw = true
	a.drawn = false
	a.version++
}

func (a *app) stateJSON() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return mustJSON(a.scene.Link().Values())
}

func (a *app) factsJSON() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.scene.Facts()
	if a.job != nil {
		f["progress"] = a.job.Progress()
	}
	return mustJSON(f)
}

func (a *app) linkString() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.scene.Link().Link()
}

// fieldsJSON returns the link schema with the ranges that hold in the
// current state, from which the page sets its controls' limits.
func (a *app) fieldsJSON() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return mustJSON(a.scene.Link().Fields())
}

// linkWith returns the current link with the keys of the JSON object
// pairs set in schema order, through the same setter as every control,
// leaving the page's state as it is (the class link in the help dialog).
func (a *app) linkWith(pairs string) string {
	a.mu.Lock()
	s := a.scene.Link()
	a.mu.Unlock()
	var kv map[string]string
	if err := json.Unmarshal([]byte(pairs), &kv); err != nil {
		return s.Link()
	}
	for _, f := range link.Schema() {
		if v, ok := kv[f.Key]; ok {
			s, _ = s.With(f.Key, v)
		}
	}
	return s.Link()
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Only NaN or Inf can fail here; the scene refuses those.
		return fmt.Sprintf(`{"error":%q}`, err.Error())
	}
	return string(b)
}

// noticer is a scene that adjusted its state beyond what the link's schema
// knows (a recovery step past the end of the run, say).
type noticer interface{ Notices() []link.Notice }

// sceneNotices returns the scene's own notices, if it has any.
func sceneNotices(sc scene.Scene) []link.Notice {
	if n, ok := sc.(noticer); ok {
		return n.Notices()
	}
	return nil
}
