package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"headlab/web/compress"
)

// repo is a fake repository layout with a fake GOROOT beside it.
type repo struct {
	root, goroot, wasm, out string
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

// text returns n bytes of compressible text.
func text(n int, seed string) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "// %s %d: the quick brown fox jumps over the lazy dog\n", seed, i%31)
	}
	return b.String()[:n]
}

// fakeWasm returns a module header followed by compressible bytes.
func fakeWasm(seed string) []byte {
	return append([]byte("\x00asm\x01\x00\x00\x00"), text(50000, seed)...)
}

func newRepo(t *testing.T) repo {
	t.Helper()
	tmp := t.TempDir()
	r := repo{
		root:   filepath.Join(tmp, "repo"),
		goroot: filepath.Join(tmp, "goroot"),
		wasm:   filepath.Join(tmp, "repo", "build", "canvas.wasm"),
		out:    filepath.Join(tmp, "repo", "build", "site"),
	}
	writeFile(t, filepath.Join(r.root, "go.mod"), []byte("module fake\n"))
	writeFile(t, filepath.Join(r.root, "index.html"), []byte(`<!doctype html>
<link rel="stylesheet" href="static/style.css">
<script type="module" src="static/a.js"></script>
<iframe src="static/canvas.html"></iframe>
<a href="static/paper.pdf">paper</a>
`+text(2000, "index")))
	writeFile(t, filepath.Join(r.root, "web", "static", "a.js"), []byte(`import "./lib/b.js";
const url = "__WASM_canvas__";
`+text(3000, "a")))
	writeFile(t, filepath.Join(r.root, "web", "static", "lib", "b.js"), []byte(text(1500, "b")))
	writeFile(t, filepath.Join(r.root, "web", "static", "style.css"), []byte(text(1200, "css")))
	writeFile(t, filepath.Join(r.root, "web", "static", "paper.pdf"), []byte("%PDF-1.4 not really"))
	writeFile(t, filepath.Join(r.root, "web", "static", "tiny.json"), []byte("{}"))
	writeFile(t, filepath.Join(r.root, "web", "static", ".DS_Store"), []byte("junk"))
	writeFile(t, filepath.Join(r.root, "web", "static", ".cache", "x.js"), []byte("junk"))
	writeFile(t, filepath.Join(r.root, "canvas.html"), []byte("not copied: only index.html comes from the root"))
	writeFile(t, filepath.Join(r.root, "web", "static", "canvas.html"), []byte(`<script src="wasm_exec.js"></script><script type="module">load("/__WASM_canvas__")</script>`))
	writeFile(t, filepath.Join(r.goroot, "lib", "wasm", "wasm_exec.js"), []byte(text(4000, "wasm_exec")))
	writeFile(t, r.wasm, fakeWasm("v1"))
	return r
}

// build runs the command from inside the repository, as build.sh does.
func (r repo) build(t *testing.T, extra ...string) string {
	t.Helper()
	out, code := r.run(t, extra...)
	if code != 0 {
		t.Fatalf("site exited %d:\n%s", code, out)
	}
	return out
}

func (r repo) run(t *testing.T, extra ...string) (string, int) {
	t.Helper()
	t.Chdir(filepath.Join(r.root, "web")) // the root is found upwards
	args := append([]string{"-out", r.out, "-goroot", r.goroot, "-wasm", r.wasm}, extra...)
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return stdout.String() + stderr.String(), code
}

func hashedName(name string, b []byte) string {
	s := sha256.Sum256(b)
	return name + "." + hex.EncodeToString(s[:])[:12] + ".wasm"
}

// listing returns the files under dir with their modification times.
func listing(t *testing.T, dir string) map[string]time.Time {
	t.Helper()
	m := map[string]time.Time{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = fi.ModTime()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkVariants checks that every .br and .gz decodes to its file, and
// that the larger compressible files have both.
func checkVariants(t *testing.T, out string) {
	t.Helper()
	files := listing(t, out)
	for rel := range files {
		base, isBr := strings.CutSuffix(rel, ".br")
		base, isGz := strings.CutSuffix(base, ".gz")
		if !isBr && !isGz {
			raw := read(t, filepath.Join(out, rel))
			if compressible(rel) && len(raw) > 1000 {
				for _, s := range []string{".br", ".gz"} {
					if _, ok := files[rel+s]; !ok {
						t.Errorf("%s has no %s", rel, s)
					}
				}
			}
			continue
		}
		raw := read(t, filepath.Join(out, base))
		comp := read(t, filepath.Join(out, rel))
		var r io.Reader = brotli.NewReader(bytes.NewReader(comp))
		if isGz {
			zr, err := gzip.NewReader(bytes.NewReader(comp))
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			r = zr
		}
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if !bytes.Equal(got, raw) {
			t.Errorf("%s does not decode to %s", rel, base)
		}
		if len(comp) >= len(raw) {
			t.Errorf("%s (%d bytes) is not smaller than %s (%d)", rel, len(comp), base, len(raw))
		}
	}
}

func TestBuild(t *testing.T) {
	r := newRepo(t)
	out := r.build(t)
	wasm1 := hashedName("canvas", fakeWasm("v1"))

	want := []string{
		".headlab-site",
		wasm1, wasm1 + ".br", wasm1 + ".gz",
		"index.html", "index.html.br", "index.html.gz",
		"static/a.js", "static/a.js.br", "static/a.js.gz",
		"static/canvas.html",
		"static/lib/b.js", "static/lib/b.js.br", "static/lib/b.js.gz",
		"static/paper.pdf",
		"static/style.css", "static/style.css.br", "static/style.css.gz",
		"static/tiny.json",
		"static/wasm_exec.js", "static/wasm_exec.js.br", "static/wasm_exec.js.gz",
	}
	first := listing(t, r.out)
	got := slices.Sorted(func(yield func(string) bool) {
		for k := range first {
			if !yield(k) {
				return
			}
		}
	})
	// Small files may or may not compress smaller; ignore their variants.
	got = slices.DeleteFunc(got, func(s string) bool {
		return strings.HasPrefix(s, "static/canvas.html.")
	})
	if !slices.Equal(got, want) {
		t.Errorf("output files\n got %q\nwant %q", got, want)
	}

	if b := read(t, filepath.Join(r.out, wasm1)); !bytes.Equal(b, fakeWasm("v1")) {
		t.Error("hashed wasm differs from the input")
	}
	a := string(read(t, filepath.Join(r.out, "static", "a.js")))
	if !strings.Contains(a, `const url = "`+wasm1+`";`) || strings.Contains(a, "__WASM_") {
		t.Errorf("placeholder not replaced in a.js:\n%.200s", a)
	}
	if c := string(read(t, filepath.Join(r.out, "static", "canvas.html"))); !strings.Contains(c, `load("/`+wasm1+`")`) {
		t.Errorf("placeholder not replaced in canvas.html: %s", c)
	}
	if !bytes.Equal(read(t, filepath.Join(r.out, "static", "wasm_exec.js")), read(t, filepath.Join(r.goroot, "lib", "wasm", "wasm_exec.js"))) {
		t.Error("wasm_exec.js differs from GOROOT's")
	}
	checkVariants(t, r.out)

	// The summary: a line per file.
	if !strings.Contains(out, " static/lib/b.js\n") {
		t.Errorf("summary lacks a line for static/lib/b.js:\n%s", out)
	}
	if !strings.Contains(out, "compressed 16 variants") {
		t.Errorf("first run: want 16 variants compressed (8 files):\n%s", out)
	}

	// A second run changes nothing, not even a modification time.
	time.Sleep(20 * time.Millisecond)
	out2 := r.build(t)
	second := listing(t, r.out)
	for rel, mt := range second {
		if rel == stateFile {
			continue
		}
		if !first[rel].Equal(mt) {
			t.Errorf("second run rewrote %s", rel)
		}
	}
	if len(second) != len(first) {
		t.Errorf("second run has %d files, first %d", len(second), len(first))
	}
	if !strings.Contains(out2, "compressed 0 variants") {
		t.Errorf("second run compressed again:\n%s", out2)
	}

	// A new wasm and a removed source file: the stale ones go.
	writeFile(t, r.wasm, fakeWasm("v2"))
	if err := os.Remove(filepath.Join(r.root, "web", "static", "lib", "b.js")); err != nil {
		t.Fatal(err)
	}
	r.build(t)
	wasm2 := hashedName("canvas", fakeWasm("v2"))
	third := listing(t, r.out)
	for _, gone := range []string{wasm1, wasm1 + ".br", wasm1 + ".gz", "static/lib/b.js", "static/lib/b.js.br"} {
		if _, ok := third[gone]; ok {
			t.Errorf("stale %s kept", gone)
		}
	}
	if _, err := os.Stat(filepath.Join(r.out, "static", "lib")); err == nil {
		t.Error("empty folder static/lib kept")
	}
	for _, f := range []string{wasm2, wasm2 + ".br", wasm2 + ".gz"} {
		if _, ok := third[f]; !ok {
			t.Errorf("new %s missing", f)
		}
	}
	if a := string(read(t, filepath.Join(r.out, "static", "a.js"))); !strings.Contains(a, wasm2) {
		t.Error("a.js names the old wasm")
	}
	if len(third) != len(first)-3 {
		t.Errorf("third run has %d files, want %d", len(third), len(first)-3)
	}
	checkVariants(t, r.out)
}

// TestVariantRepair checks that a damaged or deleted variant is remade.
func TestVariantRepair(t *testing.T) {
	r := newRepo(t)
	r.build(t)
	br := filepath.Join(r.out, "static", "a.js.br")
	writeFile(t, br, []byte("damaged"))
	if err := os.Remove(filepath.Join(r.out, "index.html.gz")); err != nil {
		t.Fatal(err)
	}
	out := r.build(t)
	if !strings.Contains(out, "compressed 0 variants") {
		t.Errorf("want the repaired variants from the cache:\n%s", out)
	}
	checkVariants(t, r.out)
}

// TestCache checks that variants come from the cache by content: a new
// output folder, and a wasm changed and changed back, compress nothing new,
// and that the variants are brotli at its best quality.
func TestCache(t *testing.T) {
	r := newRepo(t)
	r.build(t)
	if err := os.RemoveAll(r.out); err != nil {
		t.Fatal(err)
	}
	if out := r.build(t); !strings.Contains(out, "compressed 0 variants") {
		t.Errorf("a fresh output folder recompressed:\n%s", out)
	}
	writeFile(t, r.wasm, fakeWasm("v2"))
	if out := r.build(t); !strings.Contains(out, "compressed 6 variants") { // the wasm, a.js and canvas.html name it
		t.Errorf("a new wasm: want 6 variants made:\n%s", out)
	}
	writeFile(t, r.wasm, fakeWasm("v1"))
	if out := r.build(t); !strings.Contains(out, "compressed 0 variants") {
		t.Errorf("the wasm changed back recompressed:\n%s", out)
	}
	checkVariants(t, r.out)
	name := hashedName("canvas", fakeWasm("v1"))
	want, err := compress.Bytes(fakeWasm("v1"), compress.Brotli)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(r.out, name+".br")); !bytes.Equal(got, want) {
		t.Errorf("%s.br is not brotli at quality %d", name, compress.BrotliQuality)
	}
	// An explicit -cache holds the variants by content hash.
	dir := filepath.Join(t.TempDir(), "cache")
	r.build(t, "-cache", dir)
	sum := sha256.Sum256(fakeWasm("v1"))
	if _, err := os.Stat(filepath.Join(dir, hex.EncodeToString(sum[:])+".br-q11-w24")); err != nil {
		t.Errorf("the cache lacks the wasm's brotli variant: %v", err)
	}
}

func TestNamedWasm(t *testing.T) {
	r := newRepo(t)
	other := filepath.Join(r.root, "build", "other.wasm")
	writeFile(t, other, fakeWasm("other"))
	writeFile(t, filepath.Join(r.root, "web", "static", "w.js"), []byte(`new Worker("__WASM_plot-2__")`))
	r.build(t, "-wasm", "plot-2="+other)
	if w := string(read(t, filepath.Join(r.out, "static", "w.js"))); w != `new Worker("`+hashedName("plot-2", fakeWasm("other"))+`")` {
		t.Errorf("w.js: %s", w)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, r *repo) []string
		want  string
	}{
		{"no out", func(t *testing.T, r *repo) []string { r.out = ""; return nil }, "-out"},
		{"out holds the repo", func(t *testing.T, r *repo) []string { r.out = filepath.Dir(r.root); return nil }, "holds the repository"},
		{"out is the repo", func(t *testing.T, r *repo) []string { r.out = r.root; return nil }, "holds the repository"},
		{"out in static", func(t *testing.T, r *repo) []string {
			r.out = filepath.Join(r.root, "web", "static", "site")
			return nil
		}, "inside web/static"},
		{"foreign out", func(t *testing.T, r *repo) []string {
			writeFile(t, filepath.Join(r.out, "precious.txt"), []byte("keep"))
			return nil
		}, "not made by this command"},
		{"unknown placeholder", func(t *testing.T, r *repo) []string {
			writeFile(t, filepath.Join(r.root, "web", "static", "c.js"), []byte(`"__WASM_plot__"`))
			return nil
		}, "__WASM_plot__"},
		{"missing wasm", func(t *testing.T, r *repo) []string { return []string{"-wasm", "x=" + r.wasm + ".missing"} }, "-wasm x"},
		{"not wasm", func(t *testing.T, r *repo) []string {
			writeFile(t, r.wasm+".txt", []byte("text"))
			return []string{"-wasm", "x=" + r.wasm + ".txt"}
		}, "not a WebAssembly module"},
		{"duplicate name", func(t *testing.T, r *repo) []string { return []string{"-wasm", r.wasm} }, "two -wasm"},
		{"clash with generated", func(t *testing.T, r *repo) []string {
			writeFile(t, filepath.Join(r.root, "web", "static", "wasm_exec.js"), []byte("x"))
			return nil
		}, "clashes"},
		{"clash with variant", func(t *testing.T, r *repo) []string {
			writeFile(t, filepath.Join(r.root, "web", "static", "a.js.gz"), []byte("x"))
			return nil
		}, "clashes"},
		{"no goroot", func(t *testing.T, r *repo) []string { r.goroot = filepath.Join(r.root, "nowhere"); return nil }, "wasm_exec.js"},
		{"bad flag", func(t *testing.T, r *repo) []string { return []string{"-nope"} }, "-nope"},
		{"extra argument", func(t *testing.T, r *repo) []string { return []string{"stray"} }, "stray"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t)
			extra := tc.setup(t, &r)
			out, code := r.run(t, extra...)
			if code != 1 || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, output:\n%s\nwant exit 1 and %q", code, out, tc.want)
			}
		})
	}
}

func TestNoRoot(t *testing.T) {
	t.Chdir(t.TempDir())
	var stderr bytes.Buffer
	if code := run([]string{"-out", "x"}, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "go.mod") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}

func TestParseWasmFlag(t *testing.T) {
	for in, want := range map[string]wasmFile{
		"build/canvas.wasm":       {"canvas", "build/canvas.wasm"},
		"plot=build/p.wasm":       {"plot", "build/p.wasm"},
		"my_app-2=/a=b/c.wasm":    {"my_app-2", "/a=b/c.wasm"},
		"/odd/dir=x/canvas.wasm":  {"canvas", "/odd/dir=x/canvas.wasm"},
		"_bad=build/canvas.wasm":  {"canvas", "_bad=build/canvas.wasm"},
		"a__b=build/canvas.wasm":  {"canvas", "a__b=build/canvas.wasm"},
		"canvas=build/canvas.was": {"canvas", "build/canvas.was"},
	} {
		got, err := parseWasmFlag(in)
		if err != nil || got != want {
			t.Errorf("parseWasmFlag(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "canvas="} {
		if _, err := parseWasmFlag(bad); err == nil {
			t.Errorf("parseWasmFlag(%q) gave no error", bad)
		}
	}
}
