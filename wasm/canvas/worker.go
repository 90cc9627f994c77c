//go:build js && wasm && !nocompute

package main

import "headlab/wasm/compute"

// serveCompute runs package compute's loop, for a start in a Web Worker.
// This build of the canvas is the compute worker's program too, so a page
// that computes at once downloads and compiles one program, not two
// (wasm/README.md, "Two builds of the canvas").
func serveCompute() bool {
	compute.Serve()
	return true
}
