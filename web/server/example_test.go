package server_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"headlab/web/server"
)

// Serve a site folder in a test server and fetch its wasm: the gzip variant
// is chosen because the client accepts gzip but not brotli.
func Example() {
	dir, err := os.MkdirTemp("", "site")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// A real site comes from web/cmd/site; here a page and a wasm stand in.
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html>"), 0o644)
	os.WriteFile(filepath.Join(dir, "canvas.0123456789ab.wasm"), []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	os.WriteFile(filepath.Join(dir, "canvas.0123456789ab.wasm.gz"), []byte("not really gzip"), 0o644)

	h, err := server.New(dir, server.Options{})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/canvas.0123456789ab.wasm", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := srv.Client().Transport.RoundTrip(req) // keep the encoding
	if err != nil {
		log.Fatal(err)
	}
	res.Body.Close()
	for _, k := range []string{"Content-Type", "Content-Encoding", "Content-Length", "Cache-Control", "Vary"} {
		fmt.Printf("%s: %s\n", k, res.Header.Get(k))
	}
	fmt.Println(res.Header.Get("Content-Security-Policy") == server.CSP)
	// Output:
	// Content-Type: application/wasm
	// Content-Encoding: gzip
	// Content-Length: 15
	// Cache-Control: public, max-age=31536000, immutable
	// Vary: Accept-Encoding
	// true
}
