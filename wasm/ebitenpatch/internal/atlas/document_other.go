//go:build !js

package atlas

// noDocument is false off GOOS=js: there is always something to draw on.
// Added by headlab (wasm/ebitenpatch).
func noDocument() bool { return false }
