//go:build js && wasm

// Command canvas is the interactive canvas of headlab, run by ebiten inside
// a same-origin iframe of the page (see wasm/README.md for why).
// The host page drives it through window.headlabCanvas (bridge.go); the
// canvas reports every change of state back to window.parent.headlabHost.
//
// Data flows one way: a link becomes a link.State, the scene package turns
// it into numbers and geometry, and this package turns those into pixels.
package main

import (
	"fmt"
	"os"

	"github.com/hajimehoshi/ebiten/v2"
)

func main() {
	app := newApp()
	app.startComputer()
	app.exportBridge()
	ebiten.SetWindowTitle("headlab")
	// The screen is kept between frames and redrawn only when something
	// changed: under software rendering a full redraw is the whole cost of
	// a frame, and a lecture's canvas is still most of the time.
	ebiten.SetScreenClearedEveryFrame(false)
	if err := ebiten.RunGameWithOptions(app, &ebiten.RunGameOptions{InitUnfocused: true}); err != nil {
		// To the console, as log.Print would, without linking package log.
		fmt.Fprintln(os.Stderr, "headlab canvas:", err)
		app.reportError(err.Error())
	}
}
