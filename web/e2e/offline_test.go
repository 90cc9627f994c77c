package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// withoutServiceWorker answers /sw.js with a service worker that does
// nothing (no fetch handler, no cache), for the suite's shared server:
// the site's own would save every file in every browser context and answer
// later tests' requests from its copy, hiding what they block or count.
// TestOffline serves the real one from a server of its own.
func withoutServiceWorker(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/sw.js" {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write([]byte("// the test suite's stand-in: no offline copy (web/e2e/offline_test.go)\n"))
	})
}

// staticHost is a plain static host, Go's http.FileServer with no headers
// of its own, that can be stopped, started again on the same address (the
// same origin, so the same service worker) and given another folder.
type staticHost struct {
	addr string
	dir  atomic.Pointer[string]
	srv  *http.Server
}

func (s *staticHost) start(tb testing.TB) {
	tb.Helper()
	addr := s.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var ln net.Listener
	var err error
	for range 50 { // the port of a server just closed may take a moment
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		tb.Fatalf("listening on %s: %v", addr, err)
	}
	s.addr = ln.Addr().String()
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.FileServer(http.Dir(*s.dir.Load())).ServeHTTP(w, r)
	})}
	go func() { _ = s.srv.Serve(ln) }()
}

func (s *staticHost) stop() {
	if s.srv != nil {
		_ = s.srv.Close()
		s.srv = nil
	}
}

// offlineState is what TestOffline reads of the page.
type offlineState struct {
	Facts  any      `json:"facts"`
	Link   string   `json:"link"`
	Wasm   []string `json:"wasm"`   // the canvas wasm files the canvas's frame loaded
	Build  string   `json:"build"`  // the service worker's build
	Saved  bool     `json:"saved"`  // this page was loaded from the saved copy
	Caches []string `json:"caches"` // the page's Cache Storage
	Errors []string `json:"errors"`
}

const offlineStateJS = `(async () => {
	const w = document.getElementById("canvas").contentWindow;
	const wasm = w.performance.getEntriesByType("resource").map((e) => e.name).filter((n) => /canvas\.[0-9a-f]{12}\.wasm/.test(n)).map((n) => n.replace(/^.*\//, ""));
	const sw = navigator.serviceWorker.controller;
	const info = sw ? await new Promise((resolve) => {
		const ch = (e) => { navigator.serviceWorker.removeEventListener("message", ch); resolve(e.data); };
		navigator.serviceWorker.addEventListener("message", ch);
		sw.postMessage("build");
	}) : {};
	// Timings (learnMs) differ from run to run; every other fact must not.
	const facts = JSON.parse(JSON.stringify(headlab.facts(), (k, v) => (/Ms$/.test(k) ? undefined : v)));
	return {facts, link: headlab.link(), wasm, build: info.build || "", saved: !!info.offline,
		caches: await caches.keys(), errors: headlab.errors};
})()`

// TestOffline loads a link from a plain static host, stops the host and
// opens the link again with the browser's HTTP cache off: the page gets
// ready from the service worker's copy with the same facts. Then a new
// build (another canvas wasm) is deployed: the next load takes it and says
// so, and the copy is the new build's.
func TestOffline(t *testing.T) {
	// The new build: the canvas wasm with a custom section more (which
	// WebAssembly ignores), so a new hash, assembled by web/cmd/site as
	// build.sh would, without compression (a static host does not need it).
	next := filepath.Join(t.TempDir(), "site")
	deploy(t, next)

	host := &staticHost{}
	first := h.site
	host.dir.Store(&first)
	host.start(t)
	defer host.stop()
	base := "http://" + host.addr + "/"
	// A browser context of its own: its service worker and caches go with it.
	tb := newTab(t, chromedp.WithNewBrowserContext())
	lnk := "#v=1&scene=recovery&H=2&d=2&seed=8&step=9"
	tb.load(base + lnk)
	tb.waitSettled("the first visit")
	tb.waitFor("the offline copy", `navigator.serviceWorker.controller !== null`)
	online := eval[offlineState](tb, offlineStateJS)
	if online.Build == "" || len(online.Caches) != 1 || online.Caches[0] != "headlab-"+online.Build {
		t.Fatalf("after the first visit: build %q, caches %q", online.Build, online.Caches)
	}

	host.stop()
	if _, err := chromedp.Call(tb.ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		t.Fatal(err)
	}
	t.Run("offline", func(t *testing.T) {
		tb := tb.in(t)
		tb.load(base + lnk)
		tb.waitSettled("offline")
		off := eval[offlineState](tb, offlineStateJS)
		if !reflect.DeepEqual(off.Facts, online.Facts) || off.Link != online.Link {
			t.Errorf("offline the view differs:\n online %s %v\noffline %s %v", online.Link, online.Facts, off.Link, off.Facts)
		}
		if !off.Saved || !reflect.DeepEqual(off.Wasm, online.Wasm) {
			t.Errorf("offline: from the saved copy %v, wasm %q (online %q)", off.Saved, off.Wasm, online.Wasm)
		}
		if svg := eval[string](tb, `headlab.figure("svg")`); !strings.HasPrefix(svg, "<?xml") {
			t.Errorf("offline export: %q", shorten(svg, 80))
		}
		tb.noProblems("offline")
		// The chooser offline: the copy holds neither the lean canvas nor
		// the compute worker's own program (web/cmd/site -online), so the
		// page boots the full canvas, whose wasm the worker runs too.
		tb.load(base)
		if got := eval[string](tb, canvasBuildJS); got != "full" {
			t.Errorf("offline the chooser booted the %q canvas, want full", got)
		}
		eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(lnk)))
		tb.waitFor("the run offline", `!headlab.facts().computing && location.hash === headlab.link()`)
		if off := eval[offlineState](tb, offlineStateJS); !reflect.DeepEqual(off.Facts, online.Facts) {
			t.Errorf("offline from the chooser the view differs:\n online %v\noffline %v", online.Facts, off.Facts)
		}
		t.Logf("console: %v", tb.takeProblems())
	})

	t.Run("new build", func(t *testing.T) {
		tb := tb.in(t)
		host.dir.Store(&next)
		host.start(t)
		tb.load(base + lnk)
		tb.waitSettled("the new build")
		tb.waitFor("the notice of the new build", `headlab.errors.some((e) => /new version of headlab/.test(e))`)
		// The old build's copy goes when the new worker activates.
		tb.waitFor("the new build's copy alone", `caches.keys().then((k) => k.length === 1 && k[0] !== "headlab-`+online.Build+`")`)
		tb.sleep(time.Second)
		tb.waitFor("the new build's copy alone, still", `caches.keys().then((k) => k.length === 1 && k[0] !== "headlab-`+online.Build+`")`)
		got := eval[offlineState](tb, offlineStateJS)
		want := newWasm(t, next)
		if len(got.Wasm) != 1 || got.Wasm[0] != want {
			t.Errorf("the load after the deploy ran %q, not the new %s", got.Wasm, want)
		}
		if got.Build == online.Build || got.Caches[0] != "headlab-"+got.Build {
			t.Errorf("the saved copy is build %q (caches %q), the old one was %q", got.Build, got.Caches, online.Build)
		}
		// And offline again: the new build's copy.
		host.stop()
		tb.load(base + lnk)
		tb.waitSettled("offline, new build")
		got = eval[offlineState](tb, offlineStateJS)
		if !got.Saved || len(got.Wasm) != 1 || got.Wasm[0] != want || !reflect.DeepEqual(got.Facts, online.Facts) {
			t.Errorf("offline after the deploy: saved %v, wasm %q (want %s), same facts %v", got.Saved, got.Wasm, want, reflect.DeepEqual(got.Facts, online.Facts))
		}
	})
}

// deploy assembles into out a build of the site that differs from the
// suite's by its canvas wasm alone.
func deploy(t *testing.T, out string) {
	t.Helper()
	wasms, _ := filepath.Glob(filepath.Join(h.site, "*.wasm"))
	if len(wasms) == 0 {
		t.Fatalf("no wasm in %s", h.site)
	}
	// The programs the suite's site leaves out of its offline copy
	// (web/cmd/site -online) are left out of the new build's too.
	sw, err := os.ReadFile(filepath.Join(h.site, "sw.js"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`const FILES = (\[.*\]);`).FindSubmatch(sw)
	var saved [][2]string
	if m == nil || json.Unmarshal(m[1], &saved) != nil {
		t.Fatalf("%s/sw.js holds no list of files", h.site)
	}
	tmp := t.TempDir()
	var args []string
	for _, w := range wasms {
		name := regexp.MustCompile(`\.[0-9a-f]{12}\.wasm$`).ReplaceAllString(filepath.Base(w), "")
		if !slices.ContainsFunc(saved, func(f [2]string) bool { return f[0] == filepath.Base(w) }) {
			args = append(args, "-online", name)
		}
		b, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		if name == "canvas" {
			// A custom section: id 0, size, name, payload.
			sec := append([]byte{byte(len("headlab-deploy"))}, "headlab-deploy"...)
			sec = append(sec, "2"...)
			b = append(append(b, 0, byte(len(sec))), sec...)
		}
		p := filepath.Join(tmp, name+".wasm")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-wasm", name+"="+p)
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append([]string{"run", "./web/cmd/site", "-plain", "-out", out}, args...)...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("assembling the new build: %v\n%s", err, b)
	}
}

// newWasm returns the name of the canvas wasm in the site folder dir.
func newWasm(t *testing.T, dir string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "canvas.*.wasm"))
	if len(m) != 1 {
		t.Fatalf("canvas wasm files in %s: %q", dir, m)
	}
	return filepath.Base(m[0])
}
