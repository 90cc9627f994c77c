//go:build js && wasm

package main

import (
	"strings"
	"syscall/js"

	"rsc.io/qr"
)

// qrModules encodes text as a QR code with error correction level M
// (15% of the code may be covered or smudged: a projector's glare, a
// student's angle) and returns its side in modules and its modules row by
// row, '1' dark and '0' light, without the quiet zone.
func qrModules(text string) (int, string, error) {
	c, err := qr.Encode(text, qr.M)
	if err != nil {
		return 0, "", err
	}
	var b strings.Builder
	b.Grow(c.Size * c.Size)
	for y := range c.Size {
		for x := range c.Size {
			if c.Black(x, y) {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
	}
	return c.Size, b.String(), nil
}

// exportQR adds qr(text) to window.headlabCanvas: the QR code of text as
// JSON {"size": modules per side, "modules": "0110…"}, or {"error": …}.
// The page draws it (web/static/qr.js); no request leaves the page.
func exportQR() {
	js.Global().Get("headlabCanvas").Set("qr", js.FuncOf(func(this js.Value, args []js.Value) any {
		if len(args) == 0 || args[0].Type() != js.TypeString {
			return mustJSON(map[string]string{"error": "qr: no text"})
		}
		n, m, err := qrModules(args[0].String())
		if err != nil {
			return mustJSON(map[string]string{"error": "qr: " + err.Error()})
		}
		return mustJSON(map[string]any{"size": n, "modules": m})
	}))
}
