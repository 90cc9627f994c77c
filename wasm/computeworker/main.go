//go:build js && wasm

// Command computeworker is the compute worker's program for pages that
// booted the canvas built with the nocompute tag (the landing and the
// Attention scene): package compute's loop (wasm/compute, which documents
// the job protocol) and nothing else, no ebiten and no document. A page
// that opens on a scene which computes at once boots the full canvas,
// which is its own compute worker (wasm/README.md, "Two builds of the
// canvas").
package main

import "headlab/wasm/compute"

func main() { compute.Serve() }
