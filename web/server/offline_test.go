package server

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestServiceWorkerHeaders checks what the offline copy relies on: sw.js
// is revalidated on every load (so a new build's service worker is seen at
// once), the manifest has its media type, and neither is immutable.
func TestServiceWorkerHeaders(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"sw.js": "// sw", "static/manifest.webmanifest": "{}"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, err := New(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, typ string }{
		{"/sw.js", "text/javascript; charset=utf-8"},
		{"/static/manifest.webmanifest", "application/manifest+json"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != http.StatusOK {
			t.Errorf("%s: status %d", tc.path, rec.Code)
		}
		if got := rec.Header().Get("Cache-Control"); got != CacheRevalidate {
			t.Errorf("%s: Cache-Control %q, want %q", tc.path, got, CacheRevalidate)
		}
		if got := rec.Header().Get("Content-Type"); got != tc.typ {
			t.Errorf("%s: Content-Type %q, want %q", tc.path, got, tc.typ)
		}
	}
}
