//go:build js && wasm

// Command canvas is the interactive canvas of headlab, run by ebiten inside
// a same-origin iframe of the page (see wasm/README.md for why).
// The host page drives it through window.headlabCanvas (bridge.go); the
// canvas reports every change of state back to window.parent.headlabHost.
//
// Built as it is by default, the same program is the compute worker:
// started in a Web Worker, where there is no document, it runs package
// compute's loop and never starts ebiten (ebiten's initialisation is
// patched to finish there; see wasm/ebitenpatch). Built with the nocompute
// tag it links none of that loop's numerics, for the pages that compute
// nothing at once (wasm/README.md, "Two builds of the canvas").
//
// Data flows one way: a link becomes a link.State, the scene package turns
// it into numbers and geometry, and this package turns those into pixels.
package main

import (
	"fmt"
	"os"
	"syscall/js"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
)

func main() {
	if !js.Global().Get("document").Truthy() {
		// A Web Worker: the compute worker, never ebiten.
		if !serveCompute() {
			fmt.Fprintln(os.Stderr, "headlab canvas: this build (nocompute) is no compute worker; run wasm/computeworker")
		}
		return
	}
	// Start-up runs in a few tasks of the page's main thread, which this
	// frame shares with the host page, rather than in one that blocks it
	// for its whole length (README.md's Performance table, total blocking
	// time): package initialisation (ebiten's shader compilation among it)
	// is one, and each step below ends by handing the thread back.
	yieldToPage()
	tabInOrder()
	app := newApp()
	app.startComputer()
	yieldToPage()
	app.exportBridge()
	exportQR()
	yieldToPage()
	if !hasWebGL2() {
		// ebiten would fail on its first frame; the page shows the static
		// figure instead, and the bridge stays up for it.
		app.runHeadless(noWebGLMessage)
	}
	ebiten.SetWindowTitle("headlab")
	// The screen is kept between frames and redrawn only when something
	// changed: under software rendering a full redraw is the whole cost of
	// a frame, and a lecture's canvas is still most of the time.
	ebiten.SetScreenClearedEveryFrame(false)
	if err := ebiten.RunGameWithOptions(app, &ebiten.RunGameOptions{InitUnfocused: true}); err != nil {
		// To the console, as log.Print would, without linking package log.
		fmt.Fprintln(os.Stderr, "headlab canvas:", err)
		app.reportError(err.Error())
		// A context lost or refused after the check above: the same
		// fallback, so that the bridge outlives ebiten.
		app.runHeadless(noWebGLMessage + " (" + err.Error() + ")")
	}
}

// tabInOrder puts ebiten's canvas in the document's tab order: ebiten
// creates it during package initialisation with tabindex="1" (to make it
// focusable), which moves it ahead of everything else in keyboard order, an
// accessibility failure (WCAG 2.4.3). tabindex="0" keeps it focusable, so
// ebiten's key listeners on the canvas still hear the keyboard.
func tabInOrder() {
	canvases := js.Global().Get("document").Call("getElementsByTagName", "canvas")
	for i := range canvases.Length() {
		if c := canvases.Index(i); c.Call("getAttribute", "tabindex").String() == "1" {
			c.Call("setAttribute", "tabindex", "0")
		}
	}
}

// yieldToPage lets the browser run its other tasks (the host page's input,
// its rendering, the canvas's host calls) before start-up goes on. Go on
// wasm hands the thread back to JavaScript whenever every goroutine waits
// (wasm/README.md, "Start-up on the page's main thread"); a sleep is such
// a wait.
func yieldToPage() { time.Sleep(time.Millisecond) }
