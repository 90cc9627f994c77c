package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// precacheOf reads back the build name and the file list written into sw.js.
func precacheOf(t *testing.T, out string) (string, [][2]string) {
	t.Helper()
	sw := string(read(t, filepath.Join(out, "sw.js")))
	m := regexp.MustCompile(`const BUILD = "([0-9a-f]{12})";\nconst FILES = (\[.*\]);\n`).FindStringSubmatch(sw)
	if m == nil {
		t.Fatalf("sw.js holds no build and file list:\n%s", sw)
	}
	var files [][2]string
	if err := json.Unmarshal([]byte(m[2]), &files); err != nil {
		t.Fatalf("sw.js file list: %v", err)
	}
	return m[1], files
}

func TestServiceWorker(t *testing.T) {
	r := newRepo(t)
	writeFile(t, filepath.Join(r.root, "web", "sw.js"), []byte("const BUILD = \"__HEADLAB_BUILD__\";\nconst FILES = __HEADLAB_PRECACHE__;\n"))
	r.build(t, "-plain")
	build1, files := precacheOf(t, r.out)
	var names []string
	for _, f := range files {
		names = append(names, f[0])
		b := read(t, filepath.Join(r.out, filepath.FromSlash(f[0])))
		sum := sha256.Sum256(b)
		if want := "sha256-" + base64.StdEncoding.EncodeToString(sum[:]); f[1] != want {
			t.Errorf("%s: integrity %s, the file's is %s", f[0], f[1], want)
		}
	}
	want := []string{"canvas." + hashedName("canvas", fakeWasm("v1"))[len("canvas."):], "index.html", "static/a.js", "static/canvas.html",
		"static/lib/b.js", "static/paper.pdf", "static/style.css", "static/tiny.json", "static/wasm_exec.js"}
	if !slices.Equal(names, want) {
		t.Errorf("precached\n got %q\nwant %q", names, want)
	}
	if _, err := os.Stat(filepath.Join(r.out, "index.html.br")); err == nil {
		t.Error("-plain wrote compressed variants")
	}
	// A new wasm is a new build.
	writeFile(t, r.wasm, fakeWasm("v2"))
	r.build(t, "-plain")
	if build2, _ := precacheOf(t, r.out); build2 == build1 {
		t.Errorf("a changed wasm kept the build name %s", build1)
	}
}

// TestServiceWorkerOnline checks -online: the wasm programs it names are
// left out of the list the service worker saves, and count in the build's
// name all the same; a name that is no -wasm program is an error.
func TestServiceWorkerOnline(t *testing.T) {
	r := newRepo(t)
	writeFile(t, filepath.Join(r.root, "web", "sw.js"), []byte("const BUILD = \"__HEADLAB_BUILD__\";\nconst FILES = __HEADLAB_PRECACHE__;\n"))
	lean := filepath.Join(r.root, "build", "lean.wasm")
	writeFile(t, lean, fakeWasm("lean v1"))
	r.build(t, "-plain", "-wasm", "canvas-lean="+lean, "-online", "canvas-lean")
	build1, files := precacheOf(t, r.out)
	leanName := hashedName("canvas-lean", fakeWasm("lean v1"))
	if _, err := os.Stat(filepath.Join(r.out, leanName)); err != nil {
		t.Fatalf("the online program is not in the site: %v", err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f[0])
	}
	if slices.Contains(names, leanName) || !slices.Contains(names, hashedName("canvas", fakeWasm("v1"))) {
		t.Errorf("precached %q: want the canvas and not %s", names, leanName)
	}
	writeFile(t, lean, fakeWasm("lean v2"))
	r.build(t, "-plain", "-wasm", "canvas-lean="+lean, "-online", "canvas-lean")
	if build2, _ := precacheOf(t, r.out); build2 == build1 {
		t.Errorf("a changed online program kept the build name %s", build1)
	}
	if out, code := r.run(t, "-plain", "-online", "nosuch"); code == 0 || !strings.Contains(out, "-online nosuch names no -wasm program") {
		t.Errorf("-online of an unknown name: exit %d, %s", code, out)
	}
}
