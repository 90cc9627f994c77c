//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

	"headlab/wasm/scene"
	"headlab/web/link"
)

// exportBridge installs window.headlabCanvas, the object the host page
// drives the canvas through. Every method answers at once with strings
// (JSON where structured), so a call costs one JS→Go crossing; none blocks
// on JS, following wasm/README.md's rule for js.FuncOf callbacks.
//
//	open(fragment)   apply a share link; returns the notices as JSON
//	set(key, value)  change one key as a control does; returns notices
//	state()          the state as JSON keyed by the link's keys
//	link()           the share link, "#v=1&…"
//	facts()          the numbers the view shows, as JSON
//	describe()       a sentence for the canvas's text alternative
//	fields()         the link schema as JSON, with the ranges that hold in the current state
//	linkWith(json)   the current link with some keys set ({"hide": "intro"}), the state unchanged
//	point(i)         token i's position on the canvas in CSS pixels, as JSON
//	fps()            ebiten's ActualFPS
//	openRun(name, bytes)  replay a run log (a Uint8Array); returns notices
//	ready            true once the current state has been drawn
func (a *app) exportBridge() {
	obj := js.Global().Get("Object").New()
	fn := func(f func(args []js.Value) any) js.Func {
		return js.FuncOf(func(this js.Value, args []js.Value) (result any) {
			defer func() {
				if r := recover(); r != nil {
					result = mustJSON([]link.Notice{{Message: fmt.Sprintf("internal error: %v", r)}})
					a.reportError(fmt.Sprint(r))
				}
			}()
			return f(args)
		})
	}
	str := func(args []js.Value, i int) string {
		if i < len(args) && args[i].Type() == js.TypeString {
			return args[i].String()
		}
		if i < len(args) && args[i].Type() == js.TypeNumber {
			return fmt.Sprint(args[i].Float())
		}
		return ""
	}
	obj.Set("open", fn(func(args []js.Value) any { return noticesJSON(a.open(str(args, 0))) }))
	obj.Set("set", fn(func(args []js.Value) any { return noticesJSON(a.set(str(args, 0), str(args, 1))) }))
	obj.Set("openRun", fn(func(args []js.Value) any {
		if len(args) < 2 {
			return noticesJSON([]link.Notice{{Message: "openRun(name, bytes)"}})
		}
		return noticesJSON(a.openRun(str(args, 0), args[1]))
	}))
	obj.Set("state", fn(func([]js.Value) any { return a.stateJSON() }))
	obj.Set("link", fn(func([]js.Value) any { return a.linkString() }))
	obj.Set("facts", fn(func([]js.Value) any { return a.factsJSON() }))
	obj.Set("describe", fn(func([]js.Value) any {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.scene.Describe()
	}))
	obj.Set("fields", fn(func([]js.Value) any { return a.fieldsJSON() }))
	obj.Set("linkWith", fn(func(args []js.Value) any { return a.linkWith(str(args, 0)) }))
	obj.Set("point", fn(func(args []js.Value) any {
		// Token i's position in CSS pixels from the canvas's top-left corner.
		a.mu.Lock()
		defer a.mu.Unlock()
		i := -1
		if len(args) > 0 && args[0].Type() == js.TypeNumber {
			i = args[0].Int()
		}
		sc, ok := a.scene.(*scene.Attention)
		if !ok || i < 0 || i >= sc.State.N || a.gfx.dsf <= 0 {
			return js.Null()
		}
		x, y := a.view.ToScreen(sc.Point(i))
		return mustJSON([]float64{x / a.gfx.dsf, y / a.gfx.dsf})
	}))
	obj.Set("fps", fn(func([]js.Value) any { return actualFPS() }))
	obj.Set("setDark", fn(func(args []js.Value) any {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.gfx.dark = len(args) > 0 && args[0].Truthy()
		a.dirty = true
		return nil
	}))
	obj.Set("ready", false)
	js.Global().Set("headlabCanvas", obj)
	a.notifyHost("loaded", "")
}

func noticesJSON(ns []link.Notice) string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.String()
	}
	return mustJSON(out)
}

// notifyHost calls window.parent.headlabHost[name](arg) if the host is
// there. The host defers its work, so no JS re-enters Go during the call.
func (a *app) notifyHost(name, arg string) {
	host := js.Global().Get("parent").Get("headlabHost")
	if host.Type() != js.TypeObject {
		return
	}
	if f := host.Get(name); f.Type() == js.TypeFunction {
		host.Call(name, arg)
	}
}

// markDrawn tells the host that the current state is on screen.
func (a *app) markDrawn() {
	js.Global().Get("headlabCanvas").Set("ready", true)
	a.notifyHost("drawn", "")
}

func (a *app) reportError(msg string) {
	a.notifyHost("error", msg)
}
