//go:build js && wasm

// Command initcheck links the ebiten packages the canvas links and prints
// "initialised" once their initialisation is done. worker_test.go runs it
// under node, whose global scope has, like a Web Worker's, no window and no
// document: built against the patched ebiten it must print, built against
// upstream's it panics.
package main

import (
	"fmt"

	_ "github.com/hajimehoshi/ebiten/v2"
	_ "github.com/hajimehoshi/ebiten/v2/inpututil"
)

func main() { fmt.Println("initialised") }
