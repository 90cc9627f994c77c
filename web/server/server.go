// Package server serves a built headlab site: a folder of static files made
// by web/cmd/site, with precompressed .br and .gz variants beside them.
//
// The handler serves only regular files under its folder (no directory
// listings, no dotfiles, no path traversal, symbolic links may not leave the
// folder), chooses the precompressed variant the client accepts, sets the
// content type from the file name, and adds the caching and security headers
// of the page (CSP). It holds no state between requests, so the folder may
// be rebuilt while it serves.
package server

import (
	"errors"
	"fmt"
	"io/fs"
	"log"
	"net/http"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// CSP is the Content-Security-Policy sent with every response. It allows
// only same-origin resources, plus WebAssembly compilation, data: and blob:
// images and blob: workers. The page's <meta http-equiv> copy must equal it
// but for frame-ancestors, which a <meta> policy ignores: only a header can
// say who may frame the page, and this one lets any page frame it, so that
// a lecturer's slides or a course page can embed a scene (embed=1); "*"
// covers only network schemes, and file: adds a deck opened from a file. That
// is safe because nothing in the page acts for a user on a framing page's
// behalf: its postMessage API only changes the view, as a link does
// (static/embed.js). A static host serving dist sends its own headers
// (web/e2e/LECTURE.md, "In slides and course pages", says which).
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
	"img-src 'self' data: blob:; connect-src 'self'; worker-src 'self' blob:; frame-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors * file:"

// Cache-Control values.
const (
	// CacheImmutable is sent for content-hashed names such as
	// canvas.1a2b3c4d5e6f.wasm: their bytes never change.
	CacheImmutable = "public, max-age=31536000, immutable"
	// CacheRevalidate is sent for every other file: clients may keep a
	// copy but must revalidate it (ETag, Last-Modified) before use.
	CacheRevalidate = "no-cache"
)

// Options configure the handler made by New.
type Options struct {
	// Log, when non-nil, receives one line per request: method, path,
	// status, encoding, bytes sent and duration.
	Log *log.Logger
}

// handler serves the files under dir.
type handler struct {
	dir string
	log *log.Logger
}

// New returns a handler serving the files under dir, which must be an
// existing folder. "/" and any path ending in "/" serve that folder's
// index.html.
func New(dir string, opts Options) (http.Handler, error) {
	if dir == "" {
		return nil, errors.New("server: no folder to serve")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("server: folder to serve: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("server: %s is not a folder", dir)
	}
	return &handler{dir: dir, log: opts.Log}, nil
}

// hashedName matches content-hashed file names: stem.<12 hex>.ext.
var hashedName = regexp.MustCompile(`^[^/]+\.[0-9a-f]{12}\.[A-Za-z0-9]+$`)

// IsHashed reports whether the base of name is content-hashed, of the form
// stem.<12 lowercase hex>.ext, and so is served as immutable.
func IsHashed(name string) bool {
	return hashedName.MatchString(path.Base(name))
}

// contentTypes maps file extensions to the Content-Type sent for them.
var contentTypes = map[string]string{
	".wasm":        "application/wasm",
	".js":          "text/javascript; charset=utf-8",
	".mjs":         "text/javascript; charset=utf-8",
	".css":         "text/css; charset=utf-8",
	".html":        "text/html; charset=utf-8",
	".svg":         "image/svg+xml",
	".json":        "application/json",
	".webmanifest": "application/manifest+json",
	".map":         "application/json",
	".png":         "image/png",
	".jpg":         "image/jpeg",
	".jpeg":        "image/jpeg",
	".webp":        "image/webp",
	".ico":         "image/x-icon",
	".pdf":         "application/pdf",
	".csv":         "text/csv; charset=utf-8",
	".txt":         "text/plain; charset=utf-8",
	".woff2":       "font/woff2",
}

// ContentType returns the Content-Type served for name, from its extension;
// unknown extensions are application/octet-stream.
func ContentType(name string) string {
	if t, ok := contentTypes[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	return "application/octet-stream"
}

// encodings lists the precompressed variants in order of preference.
var encodings = []struct{ token, suffix string }{
	{"br", ".br"},
	{"gzip", ".gz"},
}

// ServeHTTP serves the file named by r.URL.Path.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rw := &responseWriter{ResponseWriter: w, length: -1}
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", CSP)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	hdr.Set("Vary", "Accept-Encoding")
	enc := h.serve(rw, r)
	if h.log != nil {
		if enc == "" {
			enc = "-"
		}
		h.log.Printf("%s %s %d %s %dB %v", r.Method, r.URL.Path, rw.status, enc, rw.written, time.Since(start).Round(time.Microsecond))
	}
}

// serve writes the response and returns the content encoding it chose.
func (h *handler) serve(w *responseWriter, r *http.Request) string {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return ""
	}
	name, ok := fileName(r.URL.Path)
	if !ok {
		notFound(w)
		return ""
	}
	root, err := os.OpenRoot(h.dir)
	if err != nil {
		http.Error(w, "500 site folder unavailable", http.StatusInternalServerError)
		return ""
	}
	defer root.Close()

	f, fi, err := openRegular(root, name)
	if err != nil {
		notFound(w)
		return ""
	}
	defer f.Close()

	enc := ""
	accept := r.Header.Get("Accept-Encoding")
	for _, e := range encodings {
		if !acceptsEncoding(accept, e.token) {
			continue
		}
		vf, vfi, err := openRegular(root, name+e.suffix)
		if err != nil {
			continue
		}
		if vfi.ModTime().Before(fi.ModTime()) {
			// Stale variant: the raw file changed after it was made.
			vf.Close()
			continue
		}
		f.Close()
		f, fi, enc = vf, vfi, e.token
		break
	}

	hdr := w.Header()
	hdr.Set("Content-Type", ContentType(name))
	if enc != "" {
		hdr.Set("Content-Encoding", enc)
	}
	if IsHashed(name) {
		hdr.Set("Cache-Control", CacheImmutable)
	} else {
		hdr.Set("Cache-Control", CacheRevalidate)
	}
	tag := strconv.FormatInt(fi.Size(), 36) + "-" + strconv.FormatInt(fi.ModTime().UnixNano(), 36)
	if enc != "" {
		tag += "-" + enc
	}
	hdr.Set("ETag", `"`+tag+`"`)
	// http.ServeContent leaves Content-Length out of full responses that
	// carry a Content-Encoding; the writer adds it back on 200.
	w.length = fi.Size()
	http.ServeContent(w, r, name, fi.ModTime(), f)
	return enc
}

// notFound writes a 404 with no caching headers from the file path.
func notFound(w http.ResponseWriter) {
	http.Error(w, "404 page not found", http.StatusNotFound)
}

// fileName maps a URL path to a slash-separated file name relative to the
// site folder. It refuses empty, "." and ".." segments, dotfiles, and
// backslashes or NULs anywhere; a path ending in "/" names index.html.
func fileName(urlPath string) (string, bool) {
	if !strings.HasPrefix(urlPath, "/") || strings.ContainsAny(urlPath, "\\\x00") {
		return "", false
	}
	p := urlPath[1:]
	if p == "" || strings.HasSuffix(p, "/") {
		p += "index.html"
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg[0] == '.' {
			return "", false
		}
	}
	return p, true
}

// openRegular opens name under root and returns it with its info if it is
// a regular file.
func openRegular(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fs.ErrNotExist
	}
	return f, fi, nil
}

// acceptsEncoding reports whether an Accept-Encoding header value allows
// the content coding token: listed with a non-zero q, or covered by a
// non-zero "*" when not listed.
func acceptsEncoding(header, token string) bool {
	star := false
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != token && name != "*" {
			continue
		}
		ok := qNonZero(params)
		if name == token {
			return ok
		}
		star = ok
	}
	return star
}

// qNonZero reports whether the parameters of an Accept-Encoding element
// give a q-value above zero (no q means 1).
func qNonZero(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(p, "=")
		if strings.ToLower(strings.TrimSpace(k)) != "q" {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil && q > 0
	}
	return true
}

// responseWriter records the status and byte count of a response and sets
// Content-Length on a 200 whose length the handler knows.
type responseWriter struct {
	http.ResponseWriter
	length  int64
	status  int
	written int64
}

// WriteHeader implements http.ResponseWriter.
func (w *responseWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	if code == http.StatusOK && w.length >= 0 && w.Header().Get("Content-Length") == "" {
		w.Header().Set("Content-Length", strconv.FormatInt(w.length, 10))
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (w *responseWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(b)
	w.written += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
