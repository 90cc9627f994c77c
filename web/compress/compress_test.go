package compress

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

func decode(t *testing.T, b []byte, e Encoding) []byte {
	t.Helper()
	var r io.Reader = brotli.NewReader(bytes.NewReader(b))
	if e == Gzip {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCache checks that a variant decodes to its input, is made once and
// then read from the folder, and that the zero Cache compresses every time.
func TestCache(t *testing.T) {
	data := []byte(strings.Repeat("softmax attention heads, fused and recovered. ", 400))
	c := Cache{Dir: filepath.Join(t.TempDir(), "c")}
	for _, e := range []Encoding{Brotli, Gzip} {
		b, made, err := c.Variant(data, e)
		if err != nil || !made {
			t.Fatalf("%s: first Variant: made %v, %v", e.Suffix(), made, err)
		}
		if !bytes.Equal(decode(t, b, e), data) || len(b) >= len(data) {
			t.Errorf("%s: the variant does not decode to its input, or is not smaller", e.Suffix())
		}
		again, made, err := c.Variant(data, e)
		if err != nil || made || !bytes.Equal(again, b) {
			t.Errorf("%s: second Variant: made %v, err %v, same %v", e.Suffix(), made, err, bytes.Equal(again, b))
		}
		if b, made, err := (Cache{}).Variant(data, e); err != nil || !made || !bytes.Equal(decode(t, b, e), data) {
			t.Errorf("%s: the zero Cache: made %v, %v", e.Suffix(), made, err)
		}
	}
}

// TestPrune checks that the least recently used entries go first.
func TestPrune(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	old := time.Now().Add(-time.Hour)
	for i, name := range []string{"a", "b", "c"} {
		p := filepath.Join(c.Dir, name)
		if err := os.WriteFile(p, make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
		at := old.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Prune(200); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"a": false, "b": true, "c": true} {
		if _, err := os.Stat(filepath.Join(c.Dir, name)); (err == nil) != want {
			t.Errorf("%s kept: %v, want %v", name, err == nil, want)
		}
	}
	if err := (Cache{Dir: filepath.Join(c.Dir, "none")}).Prune(0); err != nil {
		t.Errorf("pruning a missing folder: %v", err)
	}
}
