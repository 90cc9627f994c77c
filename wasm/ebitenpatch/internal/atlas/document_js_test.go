//go:build js

package atlas

import (
	"syscall/js"
	"testing"
)

// TestNoDocument runs the guard the patched atlas init calls under node,
// whose global scope has no document, like a Web Worker's, then with a
// stand-in document on the global object: a guard that answered the same
// both times would leave the canvas without shaders or compile them in the
// worker.
func TestNoDocument(t *testing.T) {
	g := js.Global()
	if g.Get("document").Truthy() {
		t.Fatal("the test needs a global scope without a document (node)")
	}
	if !noDocument() {
		t.Error("noDocument() = false without a document")
	}
	g.Set("document", g.Get("Object").New())
	defer g.Delete("document")
	if noDocument() {
		t.Error("noDocument() = true with a document")
	}
}
