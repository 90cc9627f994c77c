//go:build js

// Package atlas holds the files headlab adds to ebiten's internal/atlas
// (wasm/ebitenpatch, Added): the copy is built with them, this directory
// only stores them.
package atlas

import "syscall/js"

// noDocument reports whether the program runs where there is no document:
// in a Web Worker, where headlab runs the canvas's program as its compute
// worker and never draws. The guarded init of shader.go then leaves the
// built-in shaders uncompiled. Added by headlab (wasm/ebitenpatch).
func noDocument() bool {
	return !js.Global().Get("document").Truthy()
}
