package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// engineLinks are the views the Firefox and WebKit suites open, one per
// scene; every one computes in the page, so the facts are the wasm's.
var engineLinks = []string{
	"#v=1&scene=attention&H=3&d=2&seed=4&N=7",
	"#v=1&scene=atoms&d=4&seed=2",
	"#v=1&scene=recovery&H=2&d=2&seed=8&step=5",
	"#v=1&scene=transformer&H=2&d=3&m=3&K=5&seed=1&step=20",
}

// factsJSJSON is the view's facts as JSON, without timings (keys ending
// in Ms or Ns, and the atoms scene's timed, which turns true when its
// timing run ends, at its own moment in each engine): they differ from
// run to run; every other number must be the same bits in every engine.
const factsJSJSON = `JSON.stringify(headlab.facts(), (k, v) => (/(Ms|Ns)$|^timed$/.test(k) ? undefined : v))`

// settledJS is true once the page is ready, the scene has no computation
// under way (its facts' computing false or absent, and the Atoms scene's
// fewer-atoms fit, which runs in the compute worker beside the scene,
// complete where it is available) and the address bar holds its link.
const settledJS = `window.headlab && headlab.ready === true && ((f) => !f.computing && !(f.fit && f.fit.available && !f.fit.complete))(headlab.facts()) && location.hash === headlab.link()`

// engine is a browser the suite can start, if it is installed.
type engine struct {
	name  string
	find  func() (bin []string, missing string)
	start func(tb testing.TB, bin []string) driver
}

var engines = []engine{
	{"firefox", func() ([]string, string) {
		for _, n := range []string{"firefox-esr", "firefox"} {
			if p, err := exec.LookPath(n); err == nil {
				return []string{p}, ""
			}
		}
		return nil, "firefox-esr (Debian's firefox-esr)"
	}, func(tb testing.TB, bin []string) driver { return startFirefox(tb, bin[0]) }},
	{"webkit", func() ([]string, string) {
		wd, err := exec.LookPath("WebKitWebDriver")
		if err != nil {
			return nil, "WebKitWebDriver (Debian's webkit2gtk-driver)"
		}
		minis, _ := filepath.Glob("/usr/lib/*/webkit2gtk-4.*/MiniBrowser")
		if len(minis) == 0 {
			return nil, "MiniBrowser (Debian's webkit2gtk-driver)"
		}
		return []string{wd, minis[len(minis)-1]}, ""
	}, func(tb testing.TB, bin []string) driver { return startWebKit(tb, bin[0], bin[1]) }},
}

// TestEngines opens every scene from a link in Firefox ESR and in WebKitGTK
// (Safari's engine), under Xvfb: each gets ready with the same facts as
// Chromium's, bit for bit; then a token is dragged, a recovery step taken
// with the keyboard, a figure exported, and a hostile link opened with its
// notice. A browser that is not installed is skipped with one line, unless
// HEADLAB_REQUIRE_TOOLS is set (./build.sh test), where it fails.
func TestEngines(t *testing.T) {
	requireTool(t, "Xvfb", "xvfb")
	// Chromium's facts, the reference.
	want := map[string]string{}
	tb := newTab(t)
	for _, l := range engineLinks {
		tb.load(h.base + l)
		tb.waitSettled(l)
		want[l] = eval[string](tb, factsJSJSON)
		for deadline := time.Now().Add(readyTimeout); ; {
			time.Sleep(300 * time.Millisecond) // two reads that agree: the facts have stopped changing
			cur := eval[string](tb, factsJSJSON)
			if cur == want[l] || time.Now().After(deadline) {
				break
			}
			want[l] = cur
		}
	}
	tb.close()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			bin, missing := e.find()
			if missing != "" {
				if os.Getenv("HEADLAB_REQUIRE_TOOLS") != "" {
					t.Fatalf("%s is missing; ./build.sh test installs it", missing)
				}
				t.Skipf("%s is missing", missing)
			}
			d := e.start(t, bin)
			defer d.close()
			if err := d.call("WebDriver:SetTimeouts", map[string]any{"script": int(stepTimeout / time.Millisecond)}, nil); err != nil {
				t.Fatalf("timeouts: %v", err)
			}
			if err := d.call("WebDriver:SetWindowRect", map[string]any{"x": 0, "y": 0, "width": 1200, "height": 1000}, nil); err != nil {
				t.Logf("sizing the window: %v", err)
			}
			engineSuite(t, d, want)
		})
	}
}

// wdOpen loads url in a fresh document and waits until the page settles.
func wdOpen(t testing.TB, d driver, url string) {
	t.Helper()
	for _, u := range []string{"about:blank", url} {
		if err := d.call("WebDriver:Navigate", map[string]any{"url": u}, nil); err != nil {
			t.Fatalf("opening %s: %v", shorten(u, 200), err)
		}
	}
	wdSettle(t, d, shorten(url, 200))
}

func wdSettle(t testing.TB, d driver, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if err := wdWait(ctx, d, settledJS); err != nil {
		errs, _ := wdEval[[]string](d, "window.headlab ? headlab.errors : ['no window.headlab']")
		t.Fatalf("%s did not settle: %v; errors %q", what, err, errs)
	}
}

// wdStable returns the value of a JavaScript expression (a string) once two
// reads 300 ms apart agree: a state that has stopped changing, waited for
// with the suite's generous deadline.
func wdStable(t testing.TB, d driver, expr, what string) string {
	t.Helper()
	deadline := time.Now().Add(readyTimeout)
	prev := must[string](t, d, expr)
	for {
		time.Sleep(300 * time.Millisecond)
		cur := must[string](t, d, expr)
		if cur == prev {
			return cur
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not stop changing: last %s", what, shorten(cur, 400))
		}
		prev = cur
	}
}

// wdPointer performs pointer actions with the mouse; the pointer's button
// state carries over to the next call until ReleaseActions.
func wdPointer(t testing.TB, d driver, what string, actions ...map[string]any) {
	t.Helper()
	do := map[string]any{"actions": []any{map[string]any{
		"type": "pointer", "id": "mouse", "parameters": map[string]any{"pointerType": "mouse"},
		"actions": actions,
	}}}
	if err := d.call("WebDriver:PerformActions", do, nil); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// pointerMove is a pointer action that moves to (x, y) in the viewport.
func pointerMove(x, y int) map[string]any {
	return map[string]any{"type": "pointerMove", "duration": 0, "x": x, "y": y, "origin": "viewport"}
}

// wdFrames waits until the canvas's window has run n animation frames.
func wdFrames(t testing.TB, d driver, n int) {
	t.Helper()
	must[bool](t, d, fmt.Sprintf(`new Promise((r) => {
		const w = %s;
		let k = 0;
		const f = () => (++k >= %d ? r(true) : w.requestAnimationFrame(f));
		w.requestAnimationFrame(f);
	})`, canvasWindowJS, n))
}

func must[T any](t testing.TB, d driver, expr string) T {
	t.Helper()
	v, err := wdEval[T](d, expr)
	if err != nil {
		t.Fatalf("evaluating %s: %v", shorten(expr, 200), err)
	}
	return v
}

func engineSuite(t *testing.T, d driver, want map[string]string) {
	for _, l := range engineLinks {
		wdOpen(t, d, h.base+l)
		if got := wdStable(t, d, factsJSJSON, l); got != want[l] {
			i := 0 // the first byte that differs, and the text around it
			for i < len(got) && i < len(want[l]) && got[i] == want[l][i] {
				i++
			}
			from := max(0, i-200)
			t.Errorf("%s: the facts differ from Chromium's at byte %d:\n got …%s\nwant …%s", l, i, shorten(got[from:], 400), shorten(want[l][from:], 400))
		}
		if errs := must[[]string](t, d, "headlab.errors"); len(errs) > 0 {
			t.Errorf("%s: notices %q", l, errs)
		}
	}

	// A token dragged with the mouse.
	wdOpen(t, d, h.base+engineLinks[0])
	before := must[[]float64](t, d, "headlab.state().tok")
	must[any](t, d, `document.getElementById("canvas").scrollIntoView({ block: "center" })`)
	// Where the token is once the scroll has ended (an engine may scroll
	// smoothly, and the point read at once would be the old one).
	var p [2]float64
	if err := json.Unmarshal([]byte(wdStable(t, d, "JSON.stringify("+pointJS+"(0))", "the token's place")), &p); err != nil {
		t.Fatal(err)
	}
	x, y := int(p[0]+0.5), int(p[1]+0.5)
	// The press, the moves and the release are separate actions with the
	// canvas's animation frames waited for between them (the pointer stays
	// down from one call to the next), so a busy machine's slow frames
	// cannot fold the press and the moves into one update.
	wdPointer(t, d, "moving to token 1", pointerMove(x, y))
	wdFrames(t, d, 2)
	wdPointer(t, d, "pressing on token 1", map[string]any{"type": "pointerDown", "button": 0})
	wdFrames(t, d, 2)
	const steps = 5
	for k := 1; k <= steps; k++ {
		wdPointer(t, d, "dragging token 1", pointerMove(x+40*k/steps, y+30*k/steps))
		wdFrames(t, d, 1)
	}
	wdFrames(t, d, 2)
	wdPointer(t, d, "releasing token 1", map[string]any{"type": "pointerUp", "button": 0})
	_ = d.call("WebDriver:ReleaseActions", map[string]any{}, nil)
	wdSettle(t, d, "the drag")
	after := must[[]float64](t, d, "headlab.state().tok")
	if len(after) < 2 || len(before) < 2 || (after[0] == before[0] && after[1] == before[1]) {
		t.Errorf("dragging token 1 from (%d, %d) did not move it: %v → %v", x, y, before[:2], after[:min(2, len(after))])
	}

	// A step with the keyboard.
	wdOpen(t, d, h.base+engineLinks[2])
	// A click on the scene's title first: the window takes the keyboard.
	title := must[[2]float64](t, d, `(() => { const r = document.querySelector(".intro:not([hidden]) h1").getBoundingClientRect(); return [r.left + 10, r.top + r.height / 2]; })()`)
	wdPointer(t, d, "clicking the title", pointerMove(int(title[0]), int(title[1])),
		map[string]any{"type": "pointerDown", "button": 0}, map[string]any{"type": "pointerUp", "button": 0})
	_ = d.call("WebDriver:ReleaseActions", map[string]any{}, nil)
	key := map[string]any{"actions": []any{map[string]any{
		"type": "key", "id": "keyboard",
		"actions": []any{map[string]any{"type": "keyDown", "value": "\uE014"}, map[string]any{"type": "keyUp", "value": "\uE014"}},
	}}}
	if err := d.call("WebDriver:PerformActions", key, nil); err != nil {
		t.Fatalf("pressing →: %v", err)
	}
	_ = d.call("WebDriver:ReleaseActions", map[string]any{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	if err := wdWait(ctx, d, "headlab.state().step === 6 && location.hash === headlab.link()"); err != nil {
		t.Errorf("→ did not step the run from 5 to 6: %v (step %v)", err, must[int](t, d, "headlab.state().step"))
	}

	// A figure exported.
	png := must[[]int](t, d, `headlab.figure("png").then((b) => [b.length, b[0], b[1], b[2], b[3]])`)
	if len(png) != 5 || png[0] < 1000 || fmt.Sprint(png[1:]) != "[137 80 78 71]" {
		t.Errorf("the PNG export is %v", png)
	}

	// A hostile link: a notice, a safe state, nothing injected.
	hostile := "#v=1&scene=attention&H=NaN&d=1e308&<script>window.__pwned=1</script>=1&theme=%3Cimg%20src%3Dx%20onerror%3Dwindow.__pwned%3D1%3E"
	wdOpen(t, d, h.base+hostile)
	errs := must[[]string](t, d, "headlab.errors")
	if len(errs) == 0 {
		t.Errorf("the hostile link %s gave no notice", hostile)
	}
	if pwned := must[bool](t, d, "!!window.__pwned || !!document.querySelector('#notice-list script, #notice-list img')"); pwned {
		t.Error("the hostile link injected markup")
	}
	if st := must[map[string]any](t, d, "headlab.state()"); st["scene"] != "attention" || st["theme"] == nil || strings.Contains(fmt.Sprint(st), "<") {
		t.Errorf("the hostile link left the state %v", st)
	}
}
