package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

// payload returns n bytes of compressible text.
func payload(n int, seed string) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%s line %d: the quick brown fox jumps over the lazy dog\n", seed, i%97)
	}
	return b.Bytes()[:n]
}

func brCompress(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := brotli.NewWriterLevel(&buf, 5)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzCompress(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// site builds a test site in a temporary folder whose parent also holds a
// go.mod and a secret, which traversal must not reach. It returns the site
// folder and the raw contents by URL path.
func site(t *testing.T) (string, map[string][]byte) {
	t.Helper()
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	writeFile(t, filepath.Join(parent, "go.mod"), []byte("module secret\n"))
	writeFile(t, filepath.Join(parent, "secret.txt"), []byte("secret"))

	raw := map[string][]byte{
		"/index.html":                payload(3000, "index"),
		"/static/app.js":             payload(5000, "app"),
		"/static/style.css":          payload(4000, "style"),
		"/canvas.0123456789ab.wasm":  append([]byte("\x00asm\x01\x00\x00\x00"), payload(20000, "wasm")...),
		"/notes.txt":                 []byte("plain notes"),
		"/sub/index.html":            []byte("<p>sub</p>"),
		"/data/table.csv":            []byte("a,b\n1,2\n"),
		"/canvas.0123456789ab.wasm2": []byte("odd extension"),
	}
	for p, b := range raw {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), b)
	}
	for _, p := range []string{"/index.html", "/static/app.js", "/canvas.0123456789ab.wasm"} {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(p))+".br", brCompress(t, raw[p]))
		writeFile(t, filepath.Join(dir, filepath.FromSlash(p))+".gz", gzCompress(t, raw[p]))
	}
	// Only gzip for the stylesheet.
	writeFile(t, filepath.Join(dir, "static", "style.css.gz"), gzCompress(t, raw["/static/style.css"]))
	writeFile(t, filepath.Join(dir, ".git", "config"), []byte("[core]"))
	writeFile(t, filepath.Join(dir, ".hidden"), []byte("hidden"))
	writeFile(t, filepath.Join(dir, "static", ".env"), []byte("KEY=1"))
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A link out of the folder must not be followed; some systems cannot
	// make links, and then there is nothing to check.
	_ = os.Symlink(filepath.Join(parent, "secret.txt"), filepath.Join(dir, "escape.txt"))
	return dir, raw
}

func newHandler(t *testing.T, dir string) http.Handler {
	t.Helper()
	h, err := New(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// get serves one request with the given Accept-Encoding.
func get(h http.Handler, method, target, accept string) *http.Response {
	r := httptest.NewRequest(method, target, nil)
	if accept != "" {
		r.Header.Set("Accept-Encoding", accept)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

// decode returns the body of res with its Content-Encoding undone.
func decode(t *testing.T, res *http.Response) []byte {
	t.Helper()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if cl := res.Header.Get("Content-Length"); cl != fmt.Sprint(len(body)) {
		t.Errorf("Content-Length %q, body has %d bytes", cl, len(body))
	}
	var r io.Reader
	switch enc := res.Header.Get("Content-Encoding"); enc {
	case "":
		return body
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	default:
		t.Fatalf("unknown Content-Encoding %q", enc)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decoding %s: %v", res.Header.Get("Content-Encoding"), err)
	}
	return b
}

func TestEncodingNegotiation(t *testing.T) {
	dir, raw := site(t)
	h := newHandler(t, dir)
	tests := []struct {
		path, accept, want string
	}{
		{"/canvas.0123456789ab.wasm", "gzip, deflate, br, zstd", "br"},
		{"/canvas.0123456789ab.wasm", "br", "br"},
		{"/canvas.0123456789ab.wasm", "gzip", "gzip"},
		{"/canvas.0123456789ab.wasm", "gzip, br;q=0", "gzip"},
		{"/canvas.0123456789ab.wasm", "BR;q=0.5", "br"},
		{"/canvas.0123456789ab.wasm", "*", "br"},
		{"/canvas.0123456789ab.wasm", "br;q=0, *", "gzip"},
		{"/canvas.0123456789ab.wasm", "*;q=0, gzip", "gzip"},
		{"/canvas.0123456789ab.wasm", "identity", ""},
		{"/canvas.0123456789ab.wasm", "", ""},
		{"/static/app.js", "gzip, br", "br"},
		{"/static/style.css", "gzip, br", "gzip"},
		{"/static/style.css", "br", ""},
		{"/notes.txt", "gzip, br", ""},
		{"/", "br", "br"},
	}
	for _, tc := range tests {
		res := get(h, "GET", tc.path, tc.accept)
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s (%q): status %d", tc.path, tc.accept, res.StatusCode)
			continue
		}
		if got := res.Header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("%s (%q): Content-Encoding %q, want %q", tc.path, tc.accept, got, tc.want)
		}
		if got := res.Header.Get("Vary"); got != "Accept-Encoding" {
			t.Errorf("%s (%q): Vary %q", tc.path, tc.accept, got)
		}
		key := tc.path
		if key == "/" {
			key = "/index.html"
		}
		if got, want := res.Header.Get("Content-Type"), ContentType(key); got != want {
			t.Errorf("%s (%q): Content-Type %q, want %q", tc.path, tc.accept, got, want)
		}
		if b := decode(t, res); !bytes.Equal(b, raw[key]) {
			t.Errorf("%s (%q): decoded body differs from the file (%d vs %d bytes)", tc.path, tc.accept, len(b), len(raw[key]))
		}
	}
}

func TestStaleVariantIgnored(t *testing.T) {
	dir, raw := site(t)
	h := newHandler(t, dir)
	old := time.Now().Add(-time.Hour)
	name := filepath.Join(dir, "static", "app.js")
	if err := os.Chtimes(name+".br", old, old); err != nil {
		t.Fatal(err)
	}
	res := get(h, "GET", "/static/app.js", "br, gzip")
	if enc := res.Header.Get("Content-Encoding"); enc != "gzip" {
		t.Errorf("Content-Encoding %q with a .br older than the file, want gzip", enc)
	}
	if b := decode(t, res); !bytes.Equal(b, raw["/static/app.js"]) {
		t.Error("decoded body differs from the file")
	}
}

func TestContentTypes(t *testing.T) {
	want := map[string]string{
		"a.wasm": "application/wasm",
		"a.js":   "text/javascript; charset=utf-8",
		"a.mjs":  "text/javascript; charset=utf-8",
		"a.css":  "text/css; charset=utf-8",
		"a.HTML": "text/html; charset=utf-8",
		"a.svg":  "image/svg+xml",
		"a.json": "application/json",
		"a.png":  "image/png",
		"a.pdf":  "application/pdf",
		"a.csv":  "text/csv; charset=utf-8",
		"a.txt":  "text/plain; charset=utf-8",
		"a.map":  "application/json",
		"a.br":   "application/octet-stream",
		"a":      "application/octet-stream",
	}
	for name, ct := range want {
		if got := ContentType(name); got != ct {
			t.Errorf("ContentType(%q) = %q, want %q", name, got, ct)
		}
	}
	dir, _ := site(t)
	h := newHandler(t, dir)
	for p, ct := range map[string]string{
		"/canvas.0123456789ab.wasm": "application/wasm",
		"/data/table.csv":           "text/csv; charset=utf-8",
	} {
		for _, accept := range []string{"", "br"} {
			if got := get(h, "GET", p, accept).Header.Get("Content-Type"); got != ct {
				t.Errorf("GET %s (%q): Content-Type %q, want %q", p, accept, got, ct)
			}
		}
	}
}

func TestRefused(t *testing.T) {
	dir, _ := site(t)
	h := newHandler(t, dir)
	for _, p := range []string{
		"/../go.mod",
		"/%2e%2e/go.mod",
		"/%2E%2E/secret.txt",
		"/static/../../go.mod",
		"/static/%2e%2e/%2e%2e/go.mod",
		"/..%2fgo.mod",
		"/..%5cgo.mod",
		"/.git/config",
		"/.git/",
		"/%2egit/config",
		"/.hidden",
		"/static/.env",
		"/static/./app.js",
		"//static/app.js",
		"/static",
		"/static/",
		"/empty/",
		"/empty",
		"/missing.js",
		"/escape.txt",
		"/index.html%00.js",
	} {
		for _, accept := range []string{"", "br, gzip"} {
			res := get(h, "GET", p, accept)
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s (%q): status %d, want 404", p, accept, res.StatusCode)
			}
			if bytes.Contains(body, []byte("secret")) || bytes.Contains(body, []byte("<a href")) {
				t.Errorf("GET %s (%q): body leaks %q", p, accept, body)
			}
		}
	}
}

// TestRefusedOverTheWire sends raw request lines, which no client cleans,
// to a real server.
func TestRefusedOverTheWire(t *testing.T) {
	dir, _ := site(t)
	srv := httptest.NewServer(newHandler(t, dir))
	defer srv.Close()
	for _, p := range []string{"/../go.mod", "/%2e%2e/go.mod", "/static/../../secret.txt", "/.git/config", "/static/"} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", p)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("GET %s: %v", p, err)
		}
		body, _ := io.ReadAll(res.Body)
		conn.Close()
		if res.StatusCode != http.StatusNotFound || bytes.Contains(body, []byte("secret")) {
			t.Errorf("GET %s: status %d body %q, want 404", p, res.StatusCode, body)
		}
	}
}

func TestIndex(t *testing.T) {
	dir, raw := site(t)
	h := newHandler(t, dir)
	for p, want := range map[string]string{"/": "/index.html", "/sub/": "/sub/index.html"} {
		res := get(h, "GET", p, "")
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: status %d", p, res.StatusCode)
		}
		if b := decode(t, res); !bytes.Equal(b, raw[want]) {
			t.Errorf("GET %s did not serve %s", p, want)
		}
	}
}

func TestSecurityHeaders(t *testing.T) {
	dir, _ := site(t)
	h := newHandler(t, dir)
	for _, p := range []string{"/", "/static/app.js", "/missing", "/.git/config"} {
		res := get(h, "GET", p, "br")
		for k, v := range map[string]string{
			"Content-Security-Policy":    CSP,
			"X-Content-Type-Options":     "nosniff",
			"Referrer-Policy":            "no-referrer",
			"Cross-Origin-Opener-Policy": "same-origin",
			"Vary":                       "Accept-Encoding",
		} {
			if got := res.Header.Get(k); got != v {
				t.Errorf("GET %s: %s %q, want %q", p, k, got, v)
			}
		}
	}
	res := get(h, "POST", "/", "")
	if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: status %d Allow %q", res.StatusCode, res.Header.Get("Allow"))
	}
}

// TestCSPSameOrigin checks that the policy names no other origin: each
// source is a keyword, or a data: or blob: scheme; only frame-ancestors is
// * file:, so that any page may embed the page.
func TestCSPSameOrigin(t *testing.T) {
	allowed := map[string]bool{"'self'": true, "'none'": true, "'wasm-unsafe-eval'": true, "data:": true, "blob:": true}
	directives := map[string]bool{}
	for d := range strings.SplitSeq(CSP, ";") {
		f := strings.Fields(d)
		if len(f) < 2 {
			t.Fatalf("directive %q has no source", d)
		}
		directives[f[0]] = true
		if f[0] == "frame-ancestors" {
			if strings.Join(f[1:], " ") != "* file:" {
				t.Errorf("frame-ancestors is %q, want * file: (any page may embed a scene, a deck opened from a file too)", f[1:])
			}
			continue
		}
		for _, src := range f[1:] {
			if !allowed[src] {
				t.Errorf("directive %s allows %q", f[0], src)
			}
		}
		if f[0] == "script-src" && strings.Contains(d, "unsafe-inline") {
			t.Error("script-src allows inline scripts")
		}
	}
	for _, d := range []string{"default-src", "script-src", "object-src", "base-uri", "frame-ancestors", "form-action"} {
		if !directives[d] {
			t.Errorf("CSP lacks %s", d)
		}
	}
}

func TestCaching(t *testing.T) {
	for name, want := range map[string]bool{
		"canvas.0123456789ab.wasm":     true,
		"static/app.0123456789ab.js":   true,
		"canvas.wasm":                  false,
		"canvas.0123456789a.wasm":      false,
		"canvas.0123456789ABC.wasm":    false,
		"canvas.0123456789AB.wasm":     false,
		"canvas.0123456789abc.wasm":    false,
		"0123456789ab.wasm":            false,
		"index.html":                   false,
		"canvas.0123456789ab.wasm/x.j": false,
	} {
		if got := IsHashed(name); got != want {
			t.Errorf("IsHashed(%q) = %v, want %v", name, got, want)
		}
	}
	dir, _ := site(t)
	h := newHandler(t, dir)
	for p, want := range map[string]string{
		"/canvas.0123456789ab.wasm": CacheImmutable,
		"/":                         CacheRevalidate,
		"/static/app.js":            CacheRevalidate,
		"/notes.txt":                CacheRevalidate,
	} {
		for _, accept := range []string{"", "br"} {
			if got := get(h, "GET", p, accept).Header.Get("Cache-Control"); got != want {
				t.Errorf("GET %s (%q): Cache-Control %q, want %q", p, accept, got, want)
			}
		}
	}
	if got := get(h, "GET", "/missing.0123456789ab.wasm", "").Header.Get("Cache-Control"); got == CacheImmutable {
		t.Error("a 404 is cached as immutable")
	}
}

func TestHead(t *testing.T) {
	dir, _ := site(t)
	h := newHandler(t, dir)
	for _, accept := range []string{"", "gzip", "br"} {
		g := get(h, "GET", "/canvas.0123456789ab.wasm", accept)
		gb, _ := io.ReadAll(g.Body)
		res := get(h, "HEAD", "/canvas.0123456789ab.wasm", accept)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK || len(body) != 0 {
			t.Errorf("HEAD (%q): status %d, %d body bytes", accept, res.StatusCode, len(body))
		}
		for _, k := range []string{"Content-Type", "Content-Encoding", "Content-Length", "ETag", "Cache-Control", "Vary"} {
			if res.Header.Get(k) != g.Header.Get(k) {
				t.Errorf("HEAD (%q): %s %q, GET has %q", accept, k, res.Header.Get(k), g.Header.Get(k))
			}
		}
		if res.Header.Get("Content-Length") != fmt.Sprint(len(gb)) {
			t.Errorf("HEAD (%q): Content-Length %q, GET body %d bytes", accept, res.Header.Get("Content-Length"), len(gb))
		}
	}
}

func TestConditional(t *testing.T) {
	dir, _ := site(t)
	h := newHandler(t, dir)
	tags := map[string]bool{}
	for _, accept := range []string{"", "gzip", "br"} {
		res := get(h, "GET", "/static/app.js", accept)
		tag := res.Header.Get("ETag")
		if tag == "" || tags[tag] {
			t.Fatalf("(%q): ETag %q empty or shared with another encoding", accept, tag)
		}
		tags[tag] = true
		r := httptest.NewRequest("GET", "/static/app.js", nil)
		r.Header.Set("Accept-Encoding", accept)
		r.Header.Set("If-None-Match", tag)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusNotModified || w.Body.Len() != 0 {
			t.Errorf("(%q): If-None-Match gave %d with %d bytes, want 304", accept, w.Code, w.Body.Len())
		}
		r.Header.Set("If-None-Match", `"other"`)
		w = httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Errorf("(%q): a different ETag gave %d, want 200", accept, w.Code)
		}
		r.Header.Del("If-None-Match")
		r.Header.Set("If-Modified-Since", res.Header.Get("Last-Modified"))
		w = httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusNotModified {
			t.Errorf("(%q): If-Modified-Since gave %d, want 304", accept, w.Code)
		}
	}
}

func TestRange(t *testing.T) {
	dir, raw := site(t)
	h := newHandler(t, dir)
	r := httptest.NewRequest("GET", "/static/app.js", nil)
	r.Header.Set("Range", "bytes=10-19")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusPartialContent || !bytes.Equal(w.Body.Bytes(), raw["/static/app.js"][10:20]) {
		t.Errorf("Range: status %d body %q", w.Code, w.Body.Bytes())
	}
	if cl := w.Header().Get("Content-Length"); cl != "10" {
		t.Errorf("Range: Content-Length %q, want 10", cl)
	}
}

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	writeFile(t, file, []byte("x"))
	for _, d := range []string{"", filepath.Join(dir, "missing"), file} {
		if _, err := New(d, Options{}); err == nil {
			t.Errorf("New(%q) gave no error", d)
		}
	}
}

func TestLog(t *testing.T) {
	dir, _ := site(t)
	var buf bytes.Buffer
	h, err := New(dir, Options{Log: newLogger(&buf)})
	if err != nil {
		t.Fatal(err)
	}
	get(h, "GET", "/static/app.js", "br")
	get(h, "GET", "/missing", "")
	out := buf.String()
	if !strings.Contains(out, "GET /static/app.js 200 br") || !strings.Contains(out, "GET /missing 404 -") {
		t.Errorf("log lacks the requests:\n%s", out)
	}
}

func TestAcceptsEncoding(t *testing.T) {
	for _, tc := range []struct {
		header, token string
		want          bool
	}{
		{"", "br", false},
		{"br", "br", true},
		{"gzip, deflate", "br", false},
		{" gzip ;q=1.0 , br ; q=0.001", "br", true},
		{"br;q=0", "br", false},
		{"br;q=0.0", "br", false},
		{"br;q=x", "br", false},
		{"*", "gzip", true},
		{"*;q=0", "gzip", false},
		{"gzip;q=0, *", "gzip", false},
		{"*, gzip;q=0", "gzip", false},
		{"br", "gzip", false},
	} {
		if got := acceptsEncoding(tc.header, tc.token); got != tc.want {
			t.Errorf("acceptsEncoding(%q, %q) = %v, want %v", tc.header, tc.token, got, tc.want)
		}
	}
}

func newLogger(w io.Writer) *log.Logger { return log.New(w, "", 0) }
