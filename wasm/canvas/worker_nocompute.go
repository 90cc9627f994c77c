//go:build js && wasm && nocompute

package main

// serveCompute reports that this build cannot be the compute worker: built
// with the nocompute tag, the canvas links none of the numerics only the
// compute loop runs, and its pages run wasm/computeworker in their worker
// instead (wasm/README.md, "Two builds of the canvas").
func serveCompute() bool { return false }
