package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"headlab/wasm/ebitenpatch"
	"headlab/web/compress"
	"headlab/web/server"
)

// baselinePage is the HTML of a baseline page: no inline script, as the
// server's CSP allows none.
const baselinePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>%s ebiten</title>
<script src="wasm_exec.js"></script>
<script src="boot.js"></script>
</head>
<body></body>
</html>
`

// baselineBoot starts the wasm as web/static/canvas.js does.
const baselineBoot = `"use strict";
(function () {
  const go = new Go();
  WebAssembly.instantiateStreaming(fetch("%s"), go.importObject).then((r) => go.run(r.instance));
})();
`

// baseline is a page built from one of the baseline programs and served
// like the site.
type baseline struct {
	url  string // the page's URL, ending in "/"
	dir  string // the folder served
	name string // the hashed wasm's name
}

// Baseline programs, of the ebiten version go.mod pins: wasm/minimal only
// clears the screen (the floor of time to ready); wasm/bare draws one
// triangle and one label in the Go font, as the canvas does (the floor of
// a first visit's bytes); wasm/floor draws what the canvas draws for
// BenchmarkDragFPS's largest view and nothing else (the floor of its
// drag's frame rate).
const (
	minimalPkg = "minimal"
	barePkg    = "bare"
	floorPkg   = "floor"
)

// serveBaseline builds wasm/<pkg> into a temporary site laid out like
// headlab's (content-hashed wasm, brotli and gzip variants made by
// web/compress at the settings of web/cmd/site, from the same cache in
// build/cache) and serves it with web/server. With patched, it builds
// against ebiten patched as the canvas is (wasm/ebitenpatch); without, it
// builds against ebiten as go.mod requires it.
func serveBaseline(tb testing.TB, pkg string, patched bool) baseline {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	wasm := filepath.Join(dir, pkg+".wasm")
	// The go command that runs this test, else the one in PATH.
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		goCmd = "go"
	}
	args := []string{"build", "-trimpath", "-ldflags=-s -w", "-o", wasm}
	work := "off" // ebiten as go.mod requires it
	if patched {
		m, err := ebitenpatch.Resolve(goCmd, root)
		if err != nil {
			tb.Fatal(err)
		}
		goVersion, err := ebitenpatch.GoVersion(root)
		if err != nil {
			tb.Fatal(err)
		}
		// A fixed folder, so that the wasm's bytes, which record the
		// copy's path, and with them its cached brotli variant, stay the
		// same between runs.
		patch := filepath.Join(root, "build", "ebitenpatch-"+pkg)
		if err := os.MkdirAll(patch, 0o755); err != nil {
			tb.Fatal(err)
		}
		work = filepath.Join(patch, "go.work")
		if err := os.WriteFile(work, ebitenpatch.Work(goVersion, "../..", "./ebiten"), 0o644); err != nil {
			tb.Fatal(err)
		}
		if err := ebitenpatch.Prepare(goCmd, m, filepath.Join(root, "wasm", "ebitenpatch"), work, filepath.Join(patch, "ebiten")); err != nil {
			tb.Fatal(err)
		}
	}
	cmd := exec.Command(goCmd, append(args, "./wasm/"+pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOWORK="+work)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("building wasm/%s: %v\n%s", pkg, err, out)
	}
	data, err := os.ReadFile(wasm)
	if err != nil {
		tb.Fatal(err)
	}
	os.Remove(wasm)
	sum := sha256.Sum256(data)
	name := pkg + "." + hex.EncodeToString(sum[:])[:12] + ".wasm"
	execJS, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		tb.Fatalf("wasm_exec.js: %v", err)
	}
	files := map[string][]byte{
		name:           data,
		"index.html":   fmt.Appendf(nil, baselinePage, pkg),
		"wasm_exec.js": execJS,
		"boot.js":      fmt.Appendf(nil, baselineBoot, name),
	}
	cache := compress.Cache{Dir: filepath.Join(root, "build", "cache")}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			tb.Fatal(err)
		}
		for _, e := range []compress.Encoding{compress.Brotli, compress.Gzip} {
			v, _, err := cache.Variant(b, e)
			if err != nil {
				tb.Fatal(err)
			}
			if len(v) < len(b) {
				if err := os.WriteFile(filepath.Join(dir, n)+e.Suffix(), v, 0o644); err != nil {
					tb.Fatal(err)
				}
			}
		}
	}
	handler, err := server.New(dir, server.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	tb.Cleanup(srv.Close)
	tb.Logf("%s ebiten (patched: %v): %s, %d bytes raw", pkg, patched, name, len(data))
	return baseline{url: srv.URL + "/", dir: dir, name: name}
}
