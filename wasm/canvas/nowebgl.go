//go:build js && wasm

package main

import (
	"syscall/js"
	"time"
)

// noWebGLMessage is what the page shows in the canvas's place, and in
// window.headlab.errors, when the browser gives no WebGL 2 context.
const noWebGLMessage = "The interactive canvas needs WebGL 2, which this browser does not offer here " +
	"(switched off, or a blocked graphics driver, as on some remote desktops). " +
	"Try another browser, or turn on hardware (graphics) acceleration in this browser's settings and reload. " +
	"Below is the static figure of this view; the panels, the link, the tours and Export work as usual."

// hasWebGL2 reports whether the frame's document can make a WebGL 2
// context, as ebiten will ask for one. It asks on ebiten's own canvas
// (created during package initialisation, the only canvas in the frame)
// with the attributes ebiten passes (internal/graphicsdriver/opengl's
// graphics_js.go), so the context made here is the one ebiten's
// getContext gets back: a second context, and the loss of the first,
// would cost the start-up tens of milliseconds on a software renderer.
// Without ebiten's canvas it asks on a scratch canvas and releases that
// context at once, so that it does not count against the browser's limit.
func hasWebGL2() bool {
	doc := js.Global().Get("document")
	attr := js.Global().Get("Object").New()
	attr.Set("alpha", true)
	attr.Set("premultipliedAlpha", true)
	attr.Set("stencil", true)
	if c := doc.Call("querySelector", "canvas"); c.Truthy() {
		return c.Call("getContext", "webgl2", attr).Truthy()
	}
	gl := doc.Call("createElement", "canvas").Call("getContext", "webgl2", attr)
	if !gl.Truthy() {
		return false
	}
	if ext := gl.Call("getExtension", "WEBGL_lose_context"); ext.Truthy() {
		ext.Call("loseContext")
	}
	return true
}

// headlessTick is how often the headless loop looks for a finished job: a
// tenth of a second keeps stepping through a run prompt without a frame
// clock.
const headlessTick = 100 * time.Millisecond

// runHeadless keeps the canvas's program serving the host page without
// drawing: the bridge (window.headlabCanvas) answers as usual, the compute
// worker's jobs run, and every change of state is told to the host, which
// shows the figures worker's static figure in the canvas's place. It tells
// the host why (noCanvas) and never returns, so the Go program does not
// exit under the bridge.
func (a *app) runHeadless(why string) {
	a.notifyHost("noCanvas", why)
	for {
		a.mu.Lock()
		tell, late := a.advanceLocked()
		a.mu.Unlock()
		a.tellHost(tell, late)
		time.Sleep(headlessTick)
	}
}
