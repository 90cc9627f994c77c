//go:build js && wasm

// Command bare is the floor a first visit to headlab is measured against:
// the least an ebiten page that draws like the canvas needs. It draws one
// anti-aliased triangle with DrawTriangles and one label set in the Go font
// through x/image's opentype, as the canvas draws its marks and labels
// (wasm/shapes, and wasm/canvas's labels.go), and sets window.bareReady = true
// after its first Draw. web/e2e builds it beside wasm/minimal and serves
// it like the site; BenchmarkFirstVisitBytes and BenchmarkReady compare
// headlab with it.
package main

import (
	"image"
	"image/color"
	"image/draw"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// game draws the triangle and the label and reports its first frame.
type game struct {
	white *ebiten.Image
	label *ebiten.Image
	drawn bool
}

// Update implements ebiten.Game; there is nothing to update.
func (g *game) Update() error { return nil }

// Draw implements ebiten.Game.
func (g *game) Draw(screen *ebiten.Image) {
	screen.Fill(color.White)
	c := color.RGBA{0x00, 0x72, 0xb2, 0xff}
	v := func(x, y float32) ebiten.Vertex {
		return ebiten.Vertex{DstX: x, DstY: y, SrcX: 1, SrcY: 1, ColorR: float32(c.R) / 255, ColorG: float32(c.G) / 255, ColorB: float32(c.B) / 255, ColorA: 1}
	}
	vs := []ebiten.Vertex{v(40, 200), v(200, 40), v(260, 220)}
	screen.DrawTriangles(vs, []uint16{0, 1, 2}, g.white, &ebiten.DrawTrianglesOptions{AntiAlias: true})
	if g.label != nil {
		op := &ebiten.DrawImageOptions{}
		op.GeoM.Translate(40, 240)
		screen.DrawImage(g.label, op)
	}
	if !g.drawn {
		g.drawn = true
		js.Global().Set("bareReady", true)
	}
}

// Layout implements ebiten.Game: one screen pixel per CSS pixel.
func (g *game) Layout(w, h int) (int, int) { return w, h }

// label renders s in the Go font, or returns nil if the font fails.
func label(s string) *ebiten.Image {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 16, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil
	}
	m := face.Metrics()
	w := font.MeasureString(face, s).Ceil()
	img := image.NewRGBA(image.Rect(0, 0, w, (m.Ascent + m.Descent).Ceil()))
	draw.Draw(img, img.Bounds(), image.Transparent, image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: face, Dot: fixed.Point26_6{Y: m.Ascent}}
	d.DrawString(s)
	return ebiten.NewImageFromImage(img)
}

func main() {
	js.Global().Set("bareMain", js.Global().Get("performance").Call("now"))
	white := ebiten.NewImage(3, 3)
	white.Fill(color.White)
	g := &game{white: white.SubImage(image.Rect(1, 1, 2, 2)).(*ebiten.Image), label: label("head 1")}
	if err := ebiten.RunGameWithOptions(g, &ebiten.RunGameOptions{InitUnfocused: true}); err != nil {
		js.Global().Get("console").Call("error", "bare:", err.Error())
	}
}
