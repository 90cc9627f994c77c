//go:build js && wasm

// Command minimal is the smallest ebiten program on GOOS=js: it clears the
// screen every frame and sets window.minimalReady = true after its first
// Draw (and window.minimalMain to the page's clock when main starts, after
// package initialisation). It is the baseline of web/e2e's BenchmarkReady, which builds it,
// serves it beside a bare page and compares its time to first frame with
// headlab's (wasm/README.md, "Start-up on the page's main thread").
package main

import (
	"image/color"
	"log"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"
)

// game fills the screen and reports its first frame to the page.
type game struct {
	drawn bool
}

// Update implements ebiten.Game; there is nothing to update.
func (g *game) Update() error { return nil }

// Draw implements ebiten.Game.
func (g *game) Draw(screen *ebiten.Image) {
	screen.Fill(color.RGBA{0x20, 0x60, 0xa0, 0xff})
	if !g.drawn {
		g.drawn = true
		js.Global().Set("minimalReady", true)
	}
}

// Layout implements ebiten.Game: one screen pixel per CSS pixel.
func (g *game) Layout(w, h int) (int, int) { return w, h }

func main() {
	js.Global().Set("minimalMain", js.Global().Get("performance").Call("now"))
	if err := ebiten.RunGameWithOptions(&game{}, &ebiten.RunGameOptions{InitUnfocused: true}); err != nil {
		log.Print(err)
	}
}
