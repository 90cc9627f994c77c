// Package scene holds what the canvas draws and how it responds to a
// pointer, without ebiten: the world-to-screen view, hit-testing of tokens,
// the score field of a head, the palette, and the facts a scene reports.
// It is plain Go, tested natively; wasm/canvas only turns it into pixels.
package scene
