package e2e

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/andybalholm/brotli"

	"headlab/web/server"
)

// minimalPage is the HTML of the baseline page: no inline script, as the
// server's CSP allows none.
const minimalPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>minimal ebiten</title>
<script src="wasm_exec.js"></script>
<script src="boot.js"></script>
</head>
<body></body>
</html>
`

// minimalBoot starts the wasm as web/static/canvas.js does.
const minimalBoot = `"use strict";
(function () {
  const go = new Go();
  WebAssembly.instantiateStreaming(fetch("%s"), go.importObject).then((r) => go.run(r.instance));
})();
`

// serveMinimal builds wasm/minimal into a temporary site laid out like
// headlab's (content-hashed wasm, brotli and gzip variants made with the
// settings of web/cmd/site) and serves it with web/server. It returns the
// page's URL.
func serveMinimal(tb testing.TB) string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	wasm := filepath.Join(dir, "minimal.wasm")
	// The go command that runs this test, else the one in PATH.
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, "build", "-trimpath", "-ldflags=-s -w", "-o", wasm, "./wasm/minimal")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("building wasm/minimal: %v\n%s", err, out)
	}
	data, err := os.ReadFile(wasm)
	if err != nil {
		tb.Fatal(err)
	}
	os.Remove(wasm)
	sum := sha256.Sum256(data)
	name := "minimal." + hex.EncodeToString(sum[:])[:12] + ".wasm"
	execJS, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		tb.Fatalf("wasm_exec.js: %v", err)
	}
	files := map[string][]byte{
		name:           data,
		"index.html":   []byte(minimalPage),
		"wasm_exec.js": execJS,
		"boot.js":      fmt.Appendf(nil, minimalBoot, name),
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			tb.Fatal(err)
		}
		if err := compressed(filepath.Join(dir, n), b); err != nil {
			tb.Fatal(err)
		}
	}
	handler, err := server.New(dir, server.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	tb.Cleanup(srv.Close)
	tb.Logf("minimal ebiten: %s, %d bytes raw", name, len(data))
	return srv.URL + "/"
}

// compressed writes the .br (quality 9) and .gz (level 9) variants of a file.
func compressed(name string, data []byte) error {
	var br, gz bytes.Buffer
	bw := brotli.NewWriterLevel(&br, 9)
	bw.Write(data)
	if err := bw.Close(); err != nil {
		return err
	}
	gw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	gw.Write(data)
	if err := gw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(name+".br", br.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(name+".gz", gz.Bytes(), 0o644)
}
