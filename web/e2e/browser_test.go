package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"headlab/web/server"
)

// Timeouts of one step. Page start to first frame takes 2–4 s on a 2-core
// machine; the margins are for a machine under load.
const (
	// readyTimeout and stepTimeout are deadlines for a state the test waits
	// for, not budgets: a wait ends as soon as the state holds, so they are
	// generous enough for a machine busy with other jobs.
	readyTimeout = 3 * time.Minute

	stepTimeout = 2 * time.Minute
)

// harness is what TestMain sets up once for every test and benchmark: the
// site's server and one browser.
type harness struct {
	site    string          // the site folder served
	base    string          // the page's URL, ending in "/"
	browser context.Context // a chromedp context whose browser is running
	chrome  string          // the browser's executable
	served  *requests       // the requests the server served

	firstLoad []string // console problems of the browser's first visit
}

// h is set by TestMain before any test runs and never changed after.
var h *harness

func TestMain(m *testing.M) {
	if os.Getenv("HEADLAB_SITE") == "" {
		if dir, err := siteDir(); err != nil {
			// A fresh clone has no built site: go test ./... passes, and
			// the browser tests run where a site is built or named.
			fmt.Printf("e2e: skipped, no built site in %s: ./build.sh test builds it and runs the browser tests\n", dir)
			os.Exit(0)
		}
	}
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

// run starts the server and the browser, runs the tests and stops both.
func run(m *testing.M) (int, error) {
	site, err := siteDir()
	if err != nil {
		return 0, err
	}
	chrome, err := chromePath()
	if err != nil {
		return 0, err
	}
	handler, err := server.New(site, server.Options{})
	if err != nil {
		return 0, err
	}
	served := &requests{}
	srv := httptest.NewServer(served.wrap(withoutServiceWorker(handler)))
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.NoSandbox,
		chromedp.DisableGPU, // also --enable-unsafe-swiftshader
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1024, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	start := time.Now()
	if err := chromedp.Do(browser); err != nil {
		return 0, fmt.Errorf("starting %s: %w", chrome, err)
	}
	fmt.Fprintf(os.Stderr, "e2e: serving %s at %s; browser %s started in %v\n", site, srv.URL, chrome, time.Since(start).Round(time.Millisecond))
	h = &harness{site: site, base: srv.URL + "/", browser: browser, chrome: chrome, served: served}
	h.firstLoad = firstLoad(browser, h.base)
	return m.Run(), nil
}

// firstLoad opens the page once before the tests, so that what a browser
// does only on its first visit to a site (asking for /favicon.ico, filling
// its caches) is seen here and reported by TestPage rather than by
// whichever test happens to run first. It returns the console problems and
// any failure to reach ready.
func firstLoad(browser context.Context, url string) []string {
	ctx, cancel := chromedp.NewContext(browser)
	defer cancel()
	con := &console{}
	if err := chromedp.Listen(ctx, con.record); err != nil {
		return []string{"opening a tab: " + err.Error()}
	}
	t := &tab{ctx: ctx, con: con, cancel: cancel}
	if _, err := t.loadErr(url, "window.headlab && window.headlab.ready === true"); err != nil {
		con.problems = append(con.problems, "the page did not get ready: "+err.Error())
	}
	time.Sleep(300 * time.Millisecond) // late messages
	con.mu.Lock()
	defer con.mu.Unlock()
	return con.problems
}

// siteDir returns the site folder, HEADLAB_SITE or build/site in the
// module's root, and an error if it holds no built site.
func siteDir() (string, error) {
	dir := os.Getenv("HEADLAB_SITE")
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "build", "site")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return dir, err
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		return dir, fmt.Errorf("no built site in %s (%v): run ./build.sh build first, or set HEADLAB_SITE", dir, err)
	}
	return dir, nil
}

// moduleRoot returns the folder holding go.mod, above the working folder.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working folder; set HEADLAB_SITE")
		}
		dir = parent
	}
}

// chromePath returns HEADLAB_CHROME or the first Chromium or Chrome in PATH.
func chromePath() (string, error) {
	if p := os.Getenv("HEADLAB_CHROME"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("HEADLAB_CHROME=%s: %w", p, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no browser: set HEADLAB_CHROME, or install chromium (./build.sh test installs Debian's)")
}

// waitSettled waits, with a generous deadline, until the page has settled
// (settledJS): no computation under way, the address bar holding the link.
func (tb *tab) waitSettled(what string) {
	tb.tb.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 4*time.Minute)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](settledJS,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(4*time.Minute))); err != nil {
		tb.tb.Fatalf("%s: the scene did not settle: %v\npage: %s\nconsole: %s", what, err, tb.describe(), strings.Join(tb.takeProblems(), "\n"))
	}
}

// tab is one browser tab with the console problems it has seen: errors
// written to the console, uncaught exceptions and rejections, and errors of
// the browser's log for the page (failed loads, CSP violations). Chromium's
// own GPU driver messages go to its stderr and are not seen here.
type tab struct {
	tb     testing.TB
	ctx    context.Context
	con    *console
	cancel context.CancelFunc // closes the tab
}

// console collects a tab's problems; it is shared by the views of the tab
// that subtests make with in.
type console struct {
	mu       sync.Mutex
	problems []string
}

// newTab opens a tab in the shared browser; it closes when tb ends, or
// earlier with close. chromedp.WithNewBrowserContext() gives the tab a
// browser context of its own, with an empty cache: a first visit.
func newTab(tb testing.TB, opts ...chromedp.ContextOption) *tab {
	tb.Helper()
	ctx, cancel := chromedp.NewContext(h.browser, opts...)
	tb.Cleanup(cancel)
	t := &tab{tb: tb, ctx: ctx, con: &console{}, cancel: cancel}
	if err := chromedp.Listen(ctx, t.con.record); err != nil {
		tb.Fatalf("opening a tab: %v", err)
	}
	return t
}

// in returns the tab as seen by a subtest: failures go to tb.
func (t *tab) in(tb testing.TB) *tab { return &tab{tb: tb, ctx: t.ctx, con: t.con, cancel: t.cancel} }

// close closes the tab (and its browser context, if it has its own).
func (t *tab) close() { t.cancel() }

// record runs in the tab's event loop: it only appends.
func (c *console) record(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
			return
		}
		msg = "console." + string(ev.Type) + ": " + argsText(ev.Args)
		if st := ev.StackTrace; st != nil && len(st.CallFrames) > 0 {
			f := st.CallFrames[0]
			msg += fmt.Sprintf(" (at %s:%d)", f.URL, f.LineNumber+1)
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg = "uncaught: " + d.Text
		if d.Exception != nil {
			desc := d.Exception.Description
			if desc == "" {
				desc = string(d.Exception.Value)
			}
			msg += " " + desc
		}
		msg += fmt.Sprintf(" (at %s:%d)", d.URL, d.LineNumber+1)
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level != cdplog.EntryLevelError {
			return
		}
		msg = fmt.Sprintf("browser log (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
	default:
		return
	}
	c.mu.Lock()
	c.problems = append(c.problems, msg)
	c.mu.Unlock()
}

func argsText(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		switch {
		case a.Type == runtime.RemoteObjectTypeString:
			var s string
			if json.Unmarshal(a.Value, &s) == nil {
				parts = append(parts, s)
				continue
			}
		case len(a.Value) > 0:
			parts = append(parts, string(a.Value))
			continue
		}
		parts = append(parts, a.Description)
	}
	return strings.Join(parts, " ")
}

// takeProblems returns the console problems seen since the last call.
func (t *tab) takeProblems() []string {
	t.con.mu.Lock()
	defer t.con.mu.Unlock()
	p := t.con.problems
	t.con.problems = nil
	return p
}

// do runs actions with a step timeout, failing the test on error.
func (t *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	t.tb.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.tb.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page, awaiting a promise,
// and decodes its value into T.
func eval[T any](t *tab, expr string) T {
	t.tb.Helper()
	v, err := evalErr[T](t, expr)
	if err != nil {
		t.tb.Fatalf("evaluating %s: %v", shorten(expr, 200), err)
	}
	return v
}

func evalErr[T any](t *tab, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(t.ctx, stepTimeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// load navigates the tab to url in a fresh document (through about:blank,
// so that a URL differing only in its fragment still loads the page anew)
// and waits until window.headlab.ready. It returns the milliseconds from
// the navigation's start to ready, as the page measures them.
func (t *tab) load(url string) float64 {
	t.tb.Helper()
	ms, err := t.loadErr(url, "window.headlab && window.headlab.ready === true")
	if err != nil {
		t.tb.Fatalf("loading %s: %v\nconsole: %s\npage: %s", shorten(url, 300), err, strings.Join(t.takeProblems(), "\n  "), t.describe())
	}
	return ms
}

// loadErr is load with any readiness predicate, returning errors.
func (t *tab) loadErr(url, ready string) (float64, error) {
	ctx, cancel := context.WithTimeout(t.ctx, readyTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(url)); err != nil {
		return 0, err
	}
	// The predicate runs in the page every 10 ms and returns the page's
	// clock, which starts at the navigation.
	for {
		ms, err := chromedp.Run(ctx, chromedp.Poll[float64]("("+ready+") && performance.now()",
			chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(readyTimeout)))
		// Right after a navigation chromedp can still name the old
		// document's execution context; ask again.
		if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "Cannot find context") {
			return ms, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// describe summarises the page for a failure message: its link, its
// notices and its state, whatever of them can be read.
func (t *tab) describe() string {
	s, err := evalErr[string](t, `(() => {
		const hl = window.headlab;
		if (!hl) return "window.headlab is missing; location " + location.href.slice(0, 300);
		let st;
		try { st = JSON.stringify(hl.state()); } catch (e) { st = "state() threw " + e; }
		return "ready=" + hl.ready + " location.hash=" + location.hash.slice(0, 300) +
			"\n  errors=" + JSON.stringify(hl.errors).slice(0, 2000) + "\n  state=" + String(st).slice(0, 2000);
	})()`)
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return s
}

// waitFor waits until the JavaScript predicate holds in the page.
func (t *tab) waitFor(what, predicate string) {
	t.tb.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, stepTimeout)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool]("!!("+predicate+")",
		chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(stepTimeout)))
	if err != nil {
		t.tb.Fatalf("waiting for %s (%s): %v\npage: %s", what, predicate, err, t.describe())
	}
}

// noProblems fails the test if the tab has seen console problems.
func (t *tab) noProblems(where string) {
	t.tb.Helper()
	if p := t.takeProblems(); len(p) > 0 {
		t.tb.Errorf("%s: %d console problem(s):\n  %s", where, len(p), strings.Join(p, "\n  "))
	}
}

// mouse sends one mouse event at page coordinates (CSS pixels of the main
// frame's viewport), with the left button held when down.
func (t *tab) mouse(typ input.DispatchMouseEventType, x, y float64, down bool) {
	t.tb.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, stepTimeout)
	defer cancel()
	if err := mouseEvent(ctx, typ, x, y, down); err != nil {
		t.tb.Fatalf("mouse %s at (%.1f, %.1f): %v", typ, x, y, err)
	}
}

func mouseEvent(ctx context.Context, typ input.DispatchMouseEventType, x, y float64, down bool) error {
	p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, PointerType: input.DispatchMouseEventPointerTypeMouse}
	if down || typ == input.DispatchMouseEventTypeMouseReleased {
		p.Button = input.MouseButtonLeft
	}
	if down {
		p.Buttons = 1
	}
	if typ == input.DispatchMouseEventTypeMousePressed || typ == input.DispatchMouseEventTypeMouseReleased {
		p.ClickCount = 1
	}
	_, err := chromedp.Call(ctx, input.DispatchMouseEvent, p)
	return err
}

// frames waits until the canvas's iframe has run n animation frames. Input
// sent before the call has then been seen by an ebiten Update: ebiten's own
// requestAnimationFrame callback runs first in each frame, and a frame may
// take hundreds of milliseconds in a software-rendered browser.
func (t *tab) frames(n int) {
	t.tb.Helper()
	t.framesIn(canvasWindowJS, n)
}

// framesIn waits until the window win (a JavaScript expression) has run n
// animation frames.
func (t *tab) framesIn(win string, n int) {
	t.tb.Helper()
	eval[bool](t, fmt.Sprintf(`new Promise((r) => {
		const w = %s;
		let k = 0;
		const f = () => (++k >= %d ? r(true) : w.requestAnimationFrame(f));
		w.requestAnimationFrame(f);
	})`, win, n))
}

// canvasWindowJS is the canvas frame's window.
const canvasWindowJS = `document.getElementById("canvas").contentWindow`

// focusPage takes the focus from whatever control has it, so that keys go
// to the page's own handler.
func (t *tab) focusPage() {
	t.tb.Helper()
	eval[bool](t, `(() => { document.activeElement && document.activeElement.blur && document.activeElement.blur(); document.body.focus(); return true; })()`)
}

// sleep pauses for d, letting the page run frames.
func (t *tab) sleep(d time.Duration) {
	t.tb.Helper()
	t.do("waiting", chromedp.Sleep(d))
}

// pointJS computes token i's position in page coordinates: the iframe's
// content box, plus the canvas's offset in the iframe, plus the canvas's
// point(i). It returns null while the canvas cannot say.
const pointJS = `((i) => {
	const f = document.getElementById("canvas");
	const c = f && f.contentWindow && f.contentWindow.headlabCanvas;
	if (!c) return null;
	let p = c.point(i);
	if (p == null) return null;
	if (typeof p === "string") p = JSON.parse(p);
	const r = f.getBoundingClientRect(), cs = getComputedStyle(f);
	const cv = f.contentDocument.querySelector("canvas");
	const cr = cv ? cv.getBoundingClientRect() : { left: 0, top: 0 };
	return [r.left + f.clientLeft + parseFloat(cs.paddingLeft) + cr.left + p[0],
		r.top + f.clientTop + parseFloat(cs.paddingTop) + cr.top + p[1]];
})`

// canvasBoxJS returns the iframe's content box in page coordinates.
const canvasBoxJS = `(() => {
	const f = document.getElementById("canvas");
	const r = f.getBoundingClientRect(), cs = getComputedStyle(f);
	const x = r.left + f.clientLeft + parseFloat(cs.paddingLeft), y = r.top + f.clientTop + parseFloat(cs.paddingTop);
	return [x, y, f.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
		f.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom), innerWidth, innerHeight];
})()`

// point returns token i's position in page coordinates.
func (t *tab) point(i int) [2]float64 {
	t.tb.Helper()
	p := eval[*[2]float64](t, fmt.Sprintf("%s(%d)", pointJS, i))
	if p == nil {
		t.tb.Fatalf("headlabCanvas.point(%d) is null\npage: %s", i, t.describe())
	}
	return *p
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes)", len(s))
}
