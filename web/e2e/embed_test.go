package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"headlab/web/link"
)

// The embedded scenes of the reveal.js deck: the Recovery scene three
// steps before its last (the paper's schedule at H = 2, d = 2 has
// 4Hd² − 2H + 1 = 29 steps), and the Attention scene, which has none.
const (
	embedRecovery  = "#v=1&scene=recovery&H=2&d=2&seed=8&step=26&embed=1"
	embedSteps     = 29
	embedAttention = "#v=1&scene=attention&H=3&d=2&seed=4&embed=1"
)

// revealDir finds reveal.js's dist folder: HEADLAB_REVEAL, else
// build/node_modules/reveal.js/dist in the module's root (./build.sh test
// installs it there). Without it the test skips, unless
// HEADLAB_REQUIRE_TOOLS is set.
func revealDir(tb testing.TB) string {
	tb.Helper()
	var tried []string
	if p := os.Getenv("HEADLAB_REVEAL"); p != "" {
		tried = append(tried, p)
	}
	if root, err := moduleRoot(); err == nil {
		tried = append(tried, filepath.Join(root, "build", "node_modules", "reveal.js", "dist"))
	}
	for _, p := range tried {
		if _, err := os.Stat(filepath.Join(p, "reveal.js")); err == nil {
			return p
		}
	}
	if os.Getenv("HEADLAB_REQUIRE_TOOLS") != "" {
		tb.Fatalf("reveal.js is missing (looked in %q); ./build.sh test installs it", tried)
	}
	tb.Skipf("reveal.js is missing (looked in %q); ./build.sh test installs it", tried)
	return ""
}

// hostScript records every headlab message the host page receives, with
// the index of the frame it came from, in window.received.
const hostScript = `<script>
window.received = [];
addEventListener("message", (e) => {
  if (!e.data || e.data.headlab !== 1) return;
  const i = [...document.querySelectorAll("iframe")].findIndex((f) => f.contentWindow === e.source);
  received.push({ frame: i, origin: e.origin, ...e.data });
});
</script>`

// embedHost serves the framing pages from an origin of their own (another
// port): deck.html, a reveal.js deck with two headlab slides, and
// host.html, an empty page the tests add frames to.
func embedHost(tb testing.TB, reveal string) string {
	tb.Helper()
	mux := http.NewServeMux()
	mux.Handle("/reveal/", http.StripPrefix("/reveal/", http.FileServer(http.Dir(reveal))))
	frame := func(l string) string {
		return `<iframe src="` + html.EscapeString(h.base+l) + `" width="960" height="540" title="headlab" allow="fullscreen; clipboard-write"></iframe>`
	}
	deck := `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>deck</title>
<link rel="stylesheet" href="/reveal/reveal.css"><link rel="stylesheet" href="/reveal/theme/white.css">
` + hostScript + `</head><body><div class="reveal"><div class="slides">
<section><h2>A lecture</h2></section>
<section>` + frame(embedRecovery) + `</section>
<section>` + frame(embedAttention) + `</section>
<section><h2>The end</h2></section>
</div></div>
<script src="/reveal/reveal.js"></script>
<script src="` + h.base + `static/headlab-reveal.js"></script>
<script>Reveal.initialize({ width: 1000, height: 600, margin: 0.02, hash: false, transition: "none", plugins: [HeadlabReveal] }).then(() => (window.deckReady = true));</script>
</body></html>`
	mux.HandleFunc("/deck.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(deck))
	})
	plain := readmeHostPage(tb)
	mux.HandleFunc("/plain.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>plain</title>` +
			hostScript + `</head><body>` + plain + `</body></html>`))
	})
	mux.HandleFunc("/host.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>host</title>` + hostScript +
			`<style>body { margin: 0; } iframe { border: 0; display: block; }</style></head><body></body></html>`))
	})
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	if strings.HasPrefix(h.base, srv.URL) {
		tb.Fatal("the framing pages' origin is headlab's")
	}
	return srv.URL
}

// readmeHostPage returns README.md's ten-line host page (the html block of
// "In slides and course pages"), its iframe opening embedRecovery here.
func readmeHostPage(tb testing.TB) string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		tb.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## In slides and course pages\n")
	_, block, ok2 := strings.Cut(sec, "```html\n")
	block, _, ok3 := strings.Cut(block, "```")
	const src = `src="https://…/#v=1&scene=recovery&embed=1"`
	if !ok || !ok2 || !ok3 || !strings.Contains(block, src) {
		tb.Fatalf("README.md's section In slides and course pages has no html block with an iframe %s", src)
	}
	if n := strings.Count(block, "\n") - 3; n > 10 { // the iframe and the script tags aside
		tb.Errorf("README.md's host page has %d lines of script, more than ten", n)
	}
	return strings.Replace(block, src, `src="`+html.EscapeString(h.base+embedRecovery)+`"`, 1)
}

// addFrameJS adds an iframe of src, w×h, with allow (none when empty), to
// the host page and returns its index.
func addFrameJS(src string, w, hgt int, allow string) string {
	return fmt.Sprintf(`(() => {
		const f = document.createElement("iframe");
		f.src = %q; f.width = %d; f.height = %d; f.title = "headlab";
		if (%q) f.allow = %q;
		document.body.append(f);
		return document.querySelectorAll("iframe").length - 1;
	})()`, src, w, hgt, allow, allow)
}

// lastReportJS is the last ready report frame i sent, or null.
func lastReportJS(i int) string {
	return fmt.Sprintf(`(received.filter((m) => m.frame === %d && m.ready === true).pop() || null)`, i)
}

// contexts records the tab's JavaScript execution contexts, to evaluate in
// a cross-origin frame, which the host page cannot reach.
type contexts struct {
	mu   sync.Mutex
	list []*runtime.ExecutionContextDescription
}

func (c *contexts) record(ev any) {
	if e, ok := ev.(*runtime.EventExecutionContextCreated); ok {
		c.mu.Lock()
		c.list = append(c.list, e.Context)
		c.mu.Unlock()
	}
}

// frameContext waits until one of the tab's default contexts whose origin
// is headlab's holds the predicate, and returns it.
func (c *contexts) frameContext(t *tab, what, predicate string) runtime.ExecutionContextID {
	t.tb.Helper()
	origin := strings.TrimSuffix(h.base, "/")
	deadline := time.Now().Add(readyTimeout)
	for {
		c.mu.Lock()
		list := append([]*runtime.ExecutionContextDescription(nil), c.list...)
		c.mu.Unlock()
		for i := len(list) - 1; i >= 0; i-- {
			cx := list[i]
			if cx.Origin != origin || !strings.Contains(string(cx.AuxData), `"isDefault":true`) {
				continue
			}
			if ok, err := frameEvalErr[bool](t, cx.ID, "!!("+predicate+")"); err == nil && ok {
				return cx.ID
			}
		}
		if time.Now().After(deadline) {
			t.tb.Fatalf("no headlab frame where %s (%s)", what, predicate)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func frameEvalErr[T any](t *tab, id runtime.ExecutionContextID, expr string) (T, error) {
	var v T
	ctx, cancel := context.WithTimeout(t.ctx, stepTimeout)
	defer cancel()
	yes := true
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: id, ReturnByValue: &yes, AwaitPromise: &yes})
	if err != nil {
		return v, err
	}
	if res.ExceptionDetails != nil {
		return v, fmt.Errorf("%s", res.ExceptionDetails.Text+" "+res.Result.Description)
	}
	if len(res.Result.Value) == 0 {
		return v, nil
	}
	err = json.Unmarshal([]byte(res.Result.Value), &v)
	return v, err
}

func frameEval[T any](t *tab, id runtime.ExecutionContextID, expr string) T {
	t.tb.Helper()
	v, err := frameEvalErr[T](t, id, expr)
	if err != nil {
		t.tb.Fatalf("evaluating %s in the frame: %v", shorten(expr, 200), err)
	}
	return v
}

// newHostTab opens a tab on the framing origin's page, recording its
// execution contexts.
func newHostTab(t *testing.T, url string) (*tab, *contexts) {
	t.Helper()
	tb := newTab(t)
	cx := &contexts{}
	if err := chromedp.Listen(tb.ctx, cx.record); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.loadErr(url, "document.readyState === 'complete'"); err != nil {
		t.Fatalf("loading %s: %v", url, err)
	}
	return tb, cx
}

// TestEmbed frames the page from another origin, as a lecturer's slides
// or a course page do (README.md, "In slides and course pages"): a
// reveal.js deck whose → steps the Recovery scene and then moves on, the
// reports the host receives, the embed code, the notices of a frame not
// allowed the clipboard or full screen, the layout at 960×540 and 400×300
// in both themes, and hostile messages.
func TestEmbed(t *testing.T) {
	host := embedHost(t, revealDir(t))

	t.Run("deck", func(t *testing.T) {
		tb, _ := newHostTab(t, host+"/deck.html")
		deckSteps(t, tb.waitFor, func(expr string) string { return eval[string](tb, expr) }, func(what string) {
			tb.do(what, chromedp.KeyEvent(kb.ArrowRight))
		})
		eval[bool](tb, "(Reveal.slide(1), true)")
		tb.waitFor("the Recovery slide again", "Reveal.getIndices().h === 1")
		tb.shoot("embed-deck")
		// The reported link reopens the same view.
		l := eval[string](tb, lastReportJS(0)+".link")
		page := newTab(t)
		page.load(h.base + l)
		page.waitSettled(l)
		if got := eval[string](page, "headlab.link()"); got != l {
			t.Errorf("the reported link %s reopens as %s", l, got)
		}
		if got := eval[int](page, "headlab.state().step"); got != embedSteps {
			t.Errorf("the reported link %s reopens at step %d, want %d", l, got, embedSteps)
		}
		tb.noProblems("the deck")
	})

	// The deck in Firefox ESR and WebKitGTK, under Xvfb (TestEngines).
	for _, e := range engines {
		t.Run("deck/"+e.name, func(t *testing.T) {
			requireTool(t, "Xvfb", "xvfb")
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
			if err := d.call("WebDriver:SetWindowRect", map[string]any{"x": 0, "y": 0, "width": 1200, "height": 900}, nil); err != nil {
				t.Logf("sizing the window: %v", err)
			}
			for _, u := range []string{"about:blank", host + "/deck.html"} {
				if err := d.call("WebDriver:Navigate", map[string]any{"url": u}, nil); err != nil {
					t.Fatalf("opening %s: %v", u, err)
				}
			}
			wait := func(what, predicate string) {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
				defer cancel()
				if err := wdWait(ctx, d, predicate); err != nil {
					got, _ := wdEval[string](d, "JSON.stringify(window.received ? received.slice(-4) : null)")
					t.Fatalf("waiting for %s: %v; last messages %s", what, err, shorten(got, 800))
				}
			}
			get := func(expr string) string { return must[string](t, d, expr) }
			right := func(what string) {
				key := map[string]any{"actions": []any{map[string]any{
					"type": "key", "id": "keyboard",
					"actions": []any{map[string]any{"type": "keyDown", "value": "\uE014"}, map[string]any{"type": "keyUp", "value": "\uE014"}},
				}}}
				if err := d.call("WebDriver:PerformActions", key, nil); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				_ = d.call("WebDriver:ReleaseActions", map[string]any{}, nil)
			}
			deckSteps(t, wait, get, right)

			// The layout in a frame of another origin, read inside it.
			for _, c := range []struct {
				w, h  int
				theme string
			}{{960, 540, "light"}, {400, 300, "dark"}} {
				name := fmt.Sprintf("embed-%dx%d-%s", c.w, c.h, c.theme)
				for _, u := range []string{"about:blank", host + "/host.html"} {
					if err := d.call("WebDriver:Navigate", map[string]any{"url": u}, nil); err != nil {
						t.Fatalf("opening %s: %v", u, err)
					}
				}
				view := strings.Replace(embedRecovery, "step=26", "step=5", 1) + "&theme=" + c.theme
				must[int](t, d, addFrameJS(h.base+view, c.w, c.h, "fullscreen; clipboard-write"))
				wait("the framed page's report", lastReportJS(0))
				if err := d.call("WebDriver:SwitchToFrame", map[string]any{"id": 0}, nil); err != nil {
					t.Fatalf("switching to the frame: %v", err)
				}
				wait(name+" settled", settledJS+" && document.body.classList.contains('embed')")
				if p := must[[]string](t, d, embedLayoutJS); len(p) > 0 {
					t.Errorf("%s: %s", name, strings.Join(p, "; "))
				}
				if errs := must[[]string](t, d, "headlab.errors"); len(errs) > 0 {
					t.Errorf("%s: notices %q", name, errs)
				}
				t.Logf("%s: the canvas lays its scene out in %s", name, must[string](t, d, `(() => { const w = document.getElementById("canvas").contentWindow; return w.innerWidth + "×" + w.innerHeight; })()`))
				if err := d.call("WebDriver:SwitchToParentFrame", map[string]any{}, nil); err != nil {
					t.Fatalf("switching back: %v", err)
				}
			}
		})
	}

	// The README's host page: → steps the scene to its last step, then
	// is the page's own.
	t.Run("plain host page", func(t *testing.T) {
		tb, _ := newHostTab(t, host+"/plain.html")
		tb.waitFor("the scene's report", lastReportJS(0))
		for k := 1; k <= 4; k++ {
			tb.focusPage()
			tb.do("pressing →", chromedp.KeyEvent(kb.ArrowRight))
			want := min(embedSteps-3+k, embedSteps)
			tb.waitFor(fmt.Sprintf("step %d", want), fmt.Sprintf("%s.step === %d", lastReportJS(0), want))
		}
		tb.sleep(time.Second) // a step too many would be reported by now
		if got := eval[int](tb, lastReportJS(0)+".step"); got != embedSteps {
			t.Errorf("after four → the scene is at step %d, want its last, %d", got, embedSteps)
		}
		tb.noProblems("the README's host page")
	})

	// A deck opened from a file (file:, which frame-ancestors * does not
	// cover) frames the page too.
	t.Run("from a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "deck.html")
		page := `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>file</title>` + hostScript +
			`</head><body><iframe src="` + html.EscapeString(h.base+embedAttention) + `" width="800" height="450"></iframe></body></html>`
		if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		tb, _ := newHostTab(t, "file://"+file)
		tb.waitFor("the scene's report to a deck opened from a file", lastReportJS(0))
		tb.noProblems("a deck opened from a file")
	})

	t.Run("embed code", func(t *testing.T) {
		tb := newTab(t)
		const view = "#v=1&scene=recovery&H=2&d=2&seed=8&step=3&theme=dark"
		tb.load(h.base + view)
		tb.waitSettled(view)
		// The clipboard as the page sees it: what it writes is kept.
		eval[bool](tb, `(() => { window.copied = null; navigator.clipboard.writeText = (s) => { window.copied = s; return Promise.resolve(); }; return true; })()`)
		tb.focusPage()
		tb.do("pressing ?", chromedp.KeyEvent("?"))
		eval[bool](tb, `(() => { document.getElementById("embed").open = true; document.getElementById("embed-copy").click(); return true; })()`)
		tb.waitFor("the embed code copied", "window.copied !== null")
		s, notes := link.Parse(eval[string](tb, "headlab.link()"))
		if len(notes) > 0 {
			t.Fatalf("the page's link gives notices: %v", notes)
		}
		s.Embed = true
		want := `<iframe src="` + html.EscapeString(h.base+s.Link()) + `" width="800" height="450" title="headlab: Recovery" loading="lazy" allow="fullscreen; clipboard-write"></iframe>`
		if got := eval[string](tb, "window.copied"); got != want {
			t.Errorf("the copied embed code is\n %s\nwant\n %s", got, want)
		}
		if got := eval[string](tb, `document.getElementById("embed-code").value`); got != want {
			t.Errorf("the embed code shown is\n %s\nwant\n %s", got, want)
		}
		tb.noProblems("the embed code")
	})

	t.Run("not allowed", func(t *testing.T) {
		tb, cx := newHostTab(t, host+"/host.html")
		const view = "#v=1&scene=recovery&H=2&d=2&seed=8"
		eval[int](tb, addFrameJS(h.base+view, 1000, 800, ""))
		tb.waitFor("the framed page's report", lastReportJS(0))
		id := cx.frameContext(tb, "the page is ready", "window.headlab && headlab.ready && !document.body.classList.contains('embed')")
		for _, b := range []struct{ button, notice string }{
			{"copy-link", `Copying is not allowed in this frame: the page that embeds headlab did not give its iframe allow="clipboard-write"`},
			{"present", `Full screen is not allowed in this frame: the page that embeds headlab did not give its iframe allow="fullscreen"`},
		} {
			// A real click, at the button's place in the host's viewport.
			r := frameEval[[2]float64](tb, id, fmt.Sprintf(`(() => { const r = document.getElementById(%q).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, b.button))
			tb.mouse(input.DispatchMouseEventTypeMouseMoved, r[0], r[1], false)
			tb.mouse(input.DispatchMouseEventTypeMousePressed, r[0], r[1], true)
			tb.mouse(input.DispatchMouseEventTypeMouseReleased, r[0], r[1], false)
			ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
			for {
				got := frameEval[[]string](tb, id, "headlab.errors")
				if strings.Contains(strings.Join(got, "\n"), b.notice) {
					break
				}
				if ctx.Err() != nil {
					t.Errorf("%s in a frame without allow: notices %q, want one saying %q", b.button, got, b.notice)
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			cancel()
		}
		tb.noProblems("the frame without allow")
	})

	t.Run("layout", func(t *testing.T) {
		for _, size := range [][2]int{{960, 540}, {400, 300}} {
			for _, theme := range []string{"light", "dark"} {
				name := fmt.Sprintf("embed-%dx%d-%s", size[0], size[1], theme)
				t.Run(name, func(t *testing.T) {
					tb, cx := newHostTab(t, host+"/host.html")
					view := strings.Replace(embedRecovery, "step=26", "step=5", 1) + "&theme=" + theme
					eval[int](tb, addFrameJS(h.base+view, size[0], size[1], "fullscreen; clipboard-write"))
					tb.waitFor("the framed page's report", lastReportJS(0))
					id := cx.frameContext(tb, "the page has settled in embed mode", settledJS+" && document.body.classList.contains('embed')")
					if p := frameEval[[]string](tb, id, embedLayoutJS); len(p) > 0 {
						t.Errorf("%s: %s", name, strings.Join(p, "; "))
					}
					// The height an auto-sized iframe is asked to take: the canvas
					// at 16:9 of the width with its controls, at least 300.
					tb.waitFor("a height message", "received.some((m) => m.frame === 0 && m.height !== undefined)")
					hgt := eval[int](tb, "received.filter((m) => m.frame === 0 && m.height !== undefined).pop().height")
					if min := max(300, size[0]*9/16); hgt < min || hgt > min+80 {
						t.Errorf("%s: the page asks for a height of %d px, want %d plus its controls", name, hgt, min)
					}
					tb.shoot(name)
					tb.noProblems(name)
				})
			}
		}
	})

	// The wheel scrolls the host page until a click gives the canvas the
	// focus, and with it the keyboard.
	t.Run("wheel and offline", func(t *testing.T) {
		tb, cx := newHostTab(t, host+"/host.html")
		eval[bool](tb, `(document.body.style.height = "3000px", true)`)
		view := strings.Replace(embedRecovery, "step=26", "step=5", 1)
		eval[int](tb, addFrameJS(h.base+view, 800, 450, ""))
		tb.waitFor("the framed page's report", lastReportJS(0))
		id := cx.frameContext(tb, "the page has settled", settledJS)
		// The wheel over the canvas scrolls the host page while the canvas
		// has not the focus.
		wheel := func() {
			ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
			defer cancel()
			if _, err := chromedp.Call(ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{
				Type: input.DispatchMouseEventTypeMouseWheel, X: 400, Y: 200, DeltaX: 1, DeltaY: 120}); err != nil {
				t.Fatalf("the wheel: %v", err)
			}
		}
		wheel()
		tb.waitFor("the host page to scroll", "scrollY > 0")
		// A click gives the scene the keyboard, and the wheel.
		at := eval[[2]float64](tb, `(() => { const r = document.querySelector("iframe").getBoundingClientRect(); return [r.left + 400, r.top + 150]; })()`)
		tb.mouse(input.DispatchMouseEventTypeMouseMoved, at[0], at[1], false)
		tb.mouse(input.DispatchMouseEventTypeMousePressed, at[0], at[1], true)
		tb.mouse(input.DispatchMouseEventTypeMouseReleased, at[0], at[1], false)
		tb.do("pressing → in the scene", chromedp.KeyEvent(kb.ArrowRight))
		tb.waitFor("step 6", lastReportJS(0)+".step === 6")
		y := eval[float64](tb, "scrollY") // the focus may have scrolled the frame into view
		ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
		if _, err := chromedp.Call(ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{
			Type: input.DispatchMouseEventTypeMouseWheel, X: at[0], Y: at[1], DeltaX: 1, DeltaY: 120}); err != nil {
			t.Fatalf("the wheel: %v", err)
		}
		cancel()
		tb.sleep(time.Second) // a scroll would have happened by now
		if got := eval[float64](tb, "scrollY"); got != y {
			t.Errorf("the wheel over the canvas with the focus scrolled the host page from %v to %v", y, got)
		}
		// The service worker, in a frame of another origin: kept (in the
		// storage the browser gives that frame), or a notice says why not.
		kept := frameEval[bool](tb, id, `navigator.serviceWorker ? navigator.serviceWorker.getRegistration().then((r) => !!r, () => false) : false`)
		if !kept && !strings.Contains(strings.Join(frameEval[[]string](tb, id, "headlab.errors"), "\n"), "cannot be kept for use offline") {
			t.Error("the framed page has no service worker and does not say why")
		}
		t.Logf("service worker in a frame of another origin: registered %v", kept)
		tb.noProblems("the wheel")
	})

	t.Run("hostile", func(t *testing.T) {
		tb, cx := newHostTab(t, host+"/host.html")
		view := strings.Replace(embedRecovery, "step=26", "step=5", 1)
		eval[int](tb, addFrameJS(h.base+view, 960, 540, ""))
		tb.waitFor("the framed page's report", lastReportJS(0))
		id := cx.frameContext(tb, "the page is ready", "window.headlab && headlab.ready")
		before := frameEval[int](tb, id, "headlab.errors.length")
		// Messages not for headlab: ignored without a word.
		eval[bool](tb, `(() => { const w = frames[0];
			for (const m of ["slide:start", "", 7, null, [1, 2], { method: "play" }, { headlab: undefined }.x, { event: "command" }]) w.postMessage(m, "*");
			return true; })()`)
		// From a window that is not the framing page (a sibling frame):
		// ignored, whatever it asks.
		eval[bool](tb, `(() => { const s = document.createElement("iframe"); s.srcdoc = "<p>sibling</p>"; document.body.append(s);
			return new Promise((r) => s.addEventListener("load", () => { s.contentWindow.parent.frames[0].postMessage({ headlab: 1, open: "#v=1&scene=atoms" }, "*"); r(true); })); })()`)
		// For headlab but wrong: refused with a notice each.
		refused := []string{
			`{ headlab: 2, open: "#v=1" }`,
			`{ headlab: "1", key: "ArrowRight" }`,
			`{ headlab: 1 }`,
			`{ headlab: 1, open: "#v=1", key: "End" }`,
			`{ headlab: 1, open: 42 }`,
			`{ headlab: 1, open: { toString: 1 } }`,
			`{ headlab: 1, key: "f" }`,
			`{ headlab: 1, key: "q" }`,
			`{ headlab: 1, key: "<img src=x onerror=window.__pwned=1>" }`,
			`{ headlab: 1, open: "#" + "x".repeat(3 << 20) }`,
		}
		for _, m := range refused {
			eval[bool](tb, "(frames[0].postMessage("+m+", '*'), true)")
		}
		ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
		defer cancel()
		for frameEval[int](tb, id, "headlab.errors.length") < before+len(refused) && ctx.Err() == nil {
			time.Sleep(100 * time.Millisecond)
		}
		notes := frameEval[[]string](tb, id, "headlab.errors")
		if n := len(notes) - before; n != len(refused) {
			t.Errorf("%d refused messages gave %d notices: %q", len(refused), n, notes[before:])
		}
		for _, n := range notes[before:] {
			if !strings.HasPrefix(n, "A message from the page that embeds headlab was refused: ") || len(n) > 300 {
				t.Errorf("a refusal's notice reads %q", shorten(n, 400))
			}
		}
		// A hostile link in open: the link parser's notices, a safe state.
		eval[bool](tb, `(frames[0].postMessage({ headlab: 1, open: "#v=1&scene=attention&H=NaN&d=1e308&<script>window.__pwned=1</script>=1&theme=%3Cimg%20src%3Dx%20onerror%3Dwindow.__pwned%3D1%3E&embed=1" }, "*"), true)`)
		tb.waitFor("the hostile link's report", lastReportJS(0)+".link.includes('scene=attention')")
		// A flood of keys: refused past the queue, and the page still answers.
		eval[bool](tb, `(() => { for (let i = 0; i < 5000; i++) frames[0].postMessage({ headlab: 1, key: "ArrowRight" }, "*"); return true; })()`)
		eval[bool](tb, `(frames[0].postMessage({ headlab: 1, open: "#v=1&scene=recovery&H=2&d=2&seed=8&step=7&embed=1" }, "*"), true)`)
		tb.waitFor("the page to answer after the flood", lastReportJS(0)+".link.includes('scene=recovery')")
		tb.sleep(time.Second) // keys sent before the open would step it on by now
		if got := eval[string](tb, lastReportJS(0)+".link"); !strings.Contains(got, "step=7&") {
			t.Errorf("after the flood of keys and an open at step 7 the view is %s", got)
		}
		if n := frameEval[int](tb, id, `headlab.errors.filter((e) => e.includes("keys are waiting")).length`); n != 1 {
			t.Errorf("the flood of keys gave %d notices, want 1", n)
		}
		if pwned := frameEval[bool](tb, id, "!!window.__pwned || !!document.querySelector('#notice-list script, #notice-list img')"); pwned {
			t.Error("a message injected markup")
		}
		if st := frameEval[string](tb, id, "headlab.state().scene"); st != "recovery" {
			t.Errorf("the scene is %s after the messages", st)
		}
		if frameEval[bool](tb, id, "!!document.fullscreenElement") {
			t.Error("a message made the page full screen")
		}
		if got := eval[int](tb, `received.filter((m) => m.open !== undefined || m.key !== undefined).length`); got != 0 {
			t.Errorf("the page echoed %d messages", got)
		}
		tb.shoot("embed-notices")
		tb.noProblems("the hostile messages")
	})
}

// deckSteps drives the reveal.js deck: on the Recovery slide → steps the
// scene three times while the deck stays, then moves the deck on; on the
// Attention slide, which has no steps, → moves it at once. wait waits for
// a predicate in the host page, get reads an expression there, right
// presses → in it.
func deckSteps(t *testing.T, wait func(what, predicate string), get func(expr string) string, right func(what string)) {
	t.Helper()
	wait("the deck and both scenes ready", "window.deckReady && "+lastReportJS(0)+" && "+lastReportJS(1))
	if got := get(`JSON.stringify([` + lastReportJS(0) + `.step, ` + lastReportJS(0) + `.steps])`); got != fmt.Sprintf("[%d,%d]", embedSteps-3, embedSteps) {
		t.Fatalf("the Recovery frame reports [step, steps] %s, want [%d,%d]", got, embedSteps-3, embedSteps)
	}
	get(`(Reveal.slide(1), document.activeElement && document.activeElement.blur && document.activeElement.blur(), "")`)
	wait("the Recovery slide", "Reveal.getIndices().h === 1")
	for k := 1; k <= 3; k++ {
		right(fmt.Sprintf("pressing → (%d)", k))
		wait(fmt.Sprintf("step %d", embedSteps-3+k), fmt.Sprintf(`(%s.step === %d) && Reveal.getIndices().h === 1`, lastReportJS(0), embedSteps-3+k))
	}
	right("pressing → at the last step")
	wait("the next slide", "Reveal.getIndices().h === 2")
	if got := get(`String(` + lastReportJS(0) + `.step)`); got != fmt.Sprint(embedSteps) {
		t.Errorf("the Recovery scene is at step %s after the deck moved on, want %d", got, embedSteps)
	}
	right("pressing → on the Attention slide")
	wait("the slide after the Attention scene", "Reveal.getIndices().h === 3")
	if got := get(`String(` + lastReportJS(0) + `.link)`); !strings.Contains(got, "scene=recovery") || !strings.Contains(got, fmt.Sprintf("step=%d", embedSteps)) || !strings.Contains(got, "embed=1") {
		t.Errorf("the Recovery frame's last link is %s", got)
	}
}

// embedLayoutJS lists what overflows or is cut in embed mode: the page
// scrolls, a control of the bar or the link to the full page is outside
// the frame or clipped, or the canvas is small.
const embedLayoutJS = `(() => {
	const p = [];
	const de = document.documentElement, W = de.clientWidth, H = de.clientHeight;
	if (de.scrollWidth > W || de.scrollHeight > H) p.push("the page scrolls: " + de.scrollWidth + "×" + de.scrollHeight + " in " + W + "×" + H);
	const seen = [...document.querySelectorAll(".panel *, #embed-open")].filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== "hidden" && !e.closest("[hidden]"));
	if (!seen.some((e) => e.id === "rec-next")) p.push("no next-step button");
	if (!seen.some((e) => e.id === "embed-open")) p.push("no link to the full page");
	const open = document.getElementById("embed-open").getBoundingClientRect();
	for (const e of seen) {
		const r = e.getBoundingClientRect();
		if (e.id !== "embed-open" && r.width && r.height && r.left < open.right && open.left < r.right && r.top < open.bottom && open.top < r.bottom) p.push((e.id || e.tagName) + " overlaps the link to the full page");
	}
	for (const e of seen) {
		const r = e.getBoundingClientRect();
		if (r.width === 0 || r.height === 0) continue;
		if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5) p.push((e.id || e.tagName) + " is outside the frame: " + [r.left, r.top, r.right, r.bottom].map(Math.round));
		if ((e.tagName === "BUTTON" || e.tagName === "A") && (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1) && getComputedStyle(e).display !== "inline") p.push((e.id || e.tagName) + " is cut");
	}
	for (const s of [".topbar", ".intro:not([hidden])", ".foot"]) {
		const e = document.querySelector(s);
		if (e && e.getClientRects().length) p.push(s + " is shown");
	}
	const frame = document.getElementById("canvas"), c = frame.getBoundingClientRect();
	if (c.width < W - 1 || c.height < 0.6 * H || c.right > W + 0.5 || c.bottom > H + 0.5) p.push("the canvas takes " + [c.left, c.top, c.right, c.bottom].map(Math.round) + " in " + W + "×" + H);
	const inner = frame.contentWindow;
	if (inner.innerWidth < 560 || inner.innerHeight < 350) p.push("the canvas lays its scene out in " + inner.innerWidth + "×" + inner.innerHeight + ", less than 560×350");
	return p;
})()`
