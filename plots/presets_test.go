package plots

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the presets of web/static/figures.js from Presets")

// TestPagePresets checks that the page offers the presets of Presets, with
// their descriptions, in their order: the PRESETS list of
// web/static/figures.js is written from them (-update rewrites it). The
// browser test web/e2e TestFigures/presets checks the page's list too.
func TestPagePresets(t *testing.T) {
	const path = "../web/static/figures.js"
	const start, end = "const PRESETS = [\n", "];\n"
	var want bytes.Buffer
	for _, p := range Presets() {
		fmt.Fprintf(&want, "  [%q, %q],\n", p.Name, p.Doc)
	}
	js, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(js, []byte(start))
	if i < 0 {
		t.Fatalf("%s: no %q", path, start)
	}
	i += len(start)
	j := bytes.Index(js[i:], []byte(end))
	if j < 0 {
		t.Fatalf("%s: PRESETS does not end", path)
	}
	got := js[i : i+j]
	if *update && !bytes.Equal(got, want.Bytes()) {
		out := append(append(append([]byte{}, js[:i]...), want.Bytes()...), js[i+j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		got = want.Bytes()
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("%s: PRESETS differs from Presets; run go test ./plots -run TestPagePresets -update\ngot:\n%s\nwant:\n%s", path, got, want.Bytes())
	}
}
