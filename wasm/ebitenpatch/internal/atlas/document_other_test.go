//go:build !js

package atlas

import "testing"

// TestNoDocument: off GOOS=js there is always something to draw on.
func TestNoDocument(t *testing.T) {
	if noDocument() {
		t.Error("noDocument() = true off GOOS=js")
	}
}
