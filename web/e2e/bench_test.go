package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// timingHooks runs in every frame before the frame's own scripts (through
// Page.addScriptToEvaluateOnNewDocument) and stamps, on the top page's
// clock, when the wasm starts compiling, when it is instantiated and when
// the Go program's main installs window.headlabCanvas.
const timingHooks = `(() => {
	let top_;
	try { top_ = window.top; void top_.document; } catch (e) { return; }
	const stamp = (k) => { const t = (top_.__hlTimes = top_.__hlTimes || {}); if (!(k in t)) t[k] = top_.performance.now(); };
	for (const name of ["instantiateStreaming", "instantiate"]) {
		const f = WebAssembly[name];
		if (typeof f !== "function") continue;
		WebAssembly[name] = function (...args) {
			stamp("compile");
			return f.apply(this, args).then((r) => { stamp("instantiated"); return r; });
		};
	}
	if (window !== top_) {
		let v;
		Object.defineProperty(window, "headlabCanvas", { configurable: true, get() { return v; }, set(x) { v = x; stamp("main"); } });
	}
})()`

// phases are the stamps of timingHooks, in ms from the navigation.
type phases struct {
	Compile      float64 `json:"compile"`
	Instantiated float64 `json:"instantiated"`
	Main         float64 `json:"main"`
	Ready        float64 `json:"-"`
}

// timedLoad loads url in tb (hooks installed) and returns its phases.
func timedLoad(tb *tab, url, ready string) phases {
	tb.tb.Helper()
	ms, err := tb.loadErr(url, ready)
	if err != nil {
		tb.tb.Fatalf("loading %s: %v\nconsole: %q", url, err, tb.takeProblems())
	}
	p := eval[phases](tb, `Object.assign({}, window.__hlTimes, window.minimalMain ? {main: window.minimalMain} : {})`)
	p.Ready = ms
	return p
}

func (t *tab) hook() {
	t.tb.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: timingHooks}); err != nil {
		t.tb.Fatalf("installing the timing hooks: %v", err)
	}
}

const (
	headlabReady = "window.headlab && window.headlab.ready === true"
	minimalReady = "window.minimalReady === true"
)

// BenchmarkReady measures the time from navigation to the first frame:
// headlab's window.headlab.ready against a minimal ebiten program that only
// clears the screen (wasm/minimal, built here and served like the site),
// on a first visit (a fresh browser context, empty cache) and on a repeat
// visit (HTTP cache warm). The ratios headlab/minimal are the targets
// (≤ 1.3). headlab's time is split into phases: the wasm's compilation
// starts (compile-ms), it is instantiated (inst-ms), Go's main runs after
// package initialisation (main-ms), and the first frame is drawn.
func BenchmarkReady(b *testing.B) {
	minimal := serveBaseline(b, minimalPkg, false).url
	const repeats = 3
	var hc, mc, hw, mw []float64
	var hp, mp []phases
	for b.Loop() {
		for _, c := range []struct {
			url, ready string
			cold, warm *[]float64
		}{{h.base + "#v=1&scene=attention", headlabReady, &hc, &hw}, {minimal, minimalReady, &mc, &mw}} {
			tb := newTab(b, chromedp.WithNewBrowserContext())
			tb.hook()
			p := timedLoad(tb, c.url, c.ready)
			*c.cold = append(*c.cold, p.Ready)
			for range repeats {
				p := timedLoad(tb, c.url, c.ready)
				*c.warm = append(*c.warm, p.Ready)
				if c.ready == headlabReady {
					hp = append(hp, p)
				} else {
					mp = append(mp, p)
				}
			}
			tb.close()
		}
	}
	b.ReportMetric(median(hc), "headlab-first-ms")
	b.ReportMetric(median(mc), "minimal-first-ms")
	b.ReportMetric(median(hc)/median(mc), "first-ratio")
	b.ReportMetric(median(hw), "headlab-ms")
	b.ReportMetric(median(mw), "minimal-ms")
	b.ReportMetric(median(hw)/median(mw), "ratio")
	hComp, hInst, hMain := split(hp)
	mComp, mInst, mMain := split(mp)
	b.ReportMetric(median(hComp), "compile-ms")
	b.ReportMetric(median(hInst), "inst-ms")
	b.ReportMetric(median(hMain), "main-ms")
	b.Logf("first visit: headlab %v ms, minimal %v ms; repeat visits: headlab %v ms, minimal %v ms", round(hc), round(mc), round(hw), round(mw))
	b.Logf("phases of repeat visits, ms from navigation (medians):\n"+
		"  headlab: wasm compile starts %4.0f, instantiated %4.0f, Go main %4.0f, first frame %4.0f\n"+
		"  minimal: wasm compile starts %4.0f, instantiated %4.0f, Go main %4.0f, first frame %4.0f",
		median(hComp), median(hInst), median(hMain), median(hw), median(mComp), median(mInst), median(mMain), median(mw))
}

// split returns the phases' stamps as three series.
func split(ps []phases) (compile, inst, main []float64) {
	for _, p := range ps {
		compile, inst, main = append(compile, p.Compile), append(inst, p.Instantiated), append(main, p.Main)
	}
	return compile, inst, main
}

// firstVisitLinks are the views whose first visits BenchmarkFirstVisitBytes
// measures: the chooser a link-less visit opens, and a link to each scene.
var firstVisitLinks = []struct{ name, link, then string }{
	{"landing", "", ""},
	{"attention", "#v=1&scene=attention", ""},
	{"atoms", "#v=1&scene=atoms", ""},
	{"recovery", "#v=1&scene=recovery", ""},
	// The chooser, then Recovery: the lean canvas and then the compute
	// worker's own program (wasm/README.md, "Two builds of the canvas").
	{"landing-recovery", "", `headlab.open("#v=1&scene=recovery")`},
}

// BenchmarkFirstVisitBytes measures the bytes a first visit downloads: in
// a fresh browser context, every request finished once the page is ready
// and no request has been in flight for a second (so a worker the scene
// starts at once is counted). It reports, for each view of firstVisitLinks
// and for the bare ebiten page (wasm/bare, built here of the same ebiten
// version, drawing one triangle and one label in the Go font as the canvas
// does), the brotli total from the site's .br files for those requests
// (<view>-br-bytes; a browser sends Accept-Encoding: br only over HTTPS in
// some versions, and the log says which encoding was served), and the
// ratios to the bare page (<view>-ratio; targets ≤ 1.10 for the landing and
// the attention link) and, for the recovery link, the excess over it in MB
// (recovery-over-bare-MB; target ≤ 0.8; landing-recovery-over-bare-MB for
// a visit that opens Recovery from the chooser, the same target). The bare page is the floor as
// ebiten ships: unpatched. The same page built against ebiten patched as
// the canvas is (wasm/ebitenpatch) is reported beside it
// (bare-patched-br-bytes), the floor the patch moves to.
func BenchmarkFirstVisitBytes(b *testing.B) {
	bare := serveBaseline(b, barePkg, false)
	barePatched := serveBaseline(b, barePkg, true)
	got := map[string]float64{}
	for b.Loop() {
		got["bare"] = firstVisit(b, bare.url, "window.bareReady === true", "", bare.url, bare.dir, nil)
		got["bare-patched"] = firstVisit(b, barePatched.url, "window.bareReady === true", "", barePatched.url, barePatched.dir, nil)
		for _, v := range firstVisitLinks {
			got[v.name] = firstVisit(b, h.base+v.link, headlabReady, v.then, h.base, h.site, h.served)
		}
	}
	b.ReportMetric(got["bare"], "bare-br-bytes")
	b.ReportMetric(got["bare-patched"], "bare-patched-br-bytes")
	for _, v := range firstVisitLinks {
		b.ReportMetric(got[v.name], v.name+"-br-bytes")
		if strings.HasSuffix(v.name, "recovery") {
			b.ReportMetric((got[v.name]-got["bare"])/1e6, v.name+"-over-bare-MB")
		} else {
			b.ReportMetric(got[v.name]/got["bare"], v.name+"-ratio")
		}
	}
}

// quietFor is how long no request may be in flight before a first visit
// counts as done.
const quietFor = time.Second

// requests records the requests a server served, in order, and when it
// was last busy. It sees what the page's Network events may not: the
// requests of the page's Web Workers (the compute worker's wasm).
type requests struct {
	mu       sync.Mutex
	uris     []string // request URIs (path and query)
	inflight int
	last     time.Time
}

func (r *requests) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.uris = append(r.uris, req.URL.RequestURI())
		r.inflight++
		r.last = time.Now()
		r.mu.Unlock()
		defer func() {
			r.mu.Lock()
			r.inflight--
			r.last = time.Now()
			r.mu.Unlock()
		}()
		next.ServeHTTP(w, req)
	})
}

// mark returns the number of requests served so far, for since.
func (r *requests) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.uris)
}

// since returns the request URIs served after mark m.
func (r *requests) since(m int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.uris[m:])
}

// quiet reports whether no request has been in flight for d.
func (r *requests) quiet(d time.Duration) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inflight == 0 && time.Since(r.last) >= d
}

// firstVisit loads url in a fresh browser context, waits for ready, runs
// then (a script, if any), waits for the network to fall quiet, logs every request, and returns the brotli
// bytes of the requests (from the .br files under dir, the folder base
// serves). With served, the recorder of base's server, the requests the
// server saw and the page's Network events did not (a worker's) count too,
// and the network is quiet only when that server is.
func firstVisit(b *testing.B, url, ready, then, base, dir string, served *requests) float64 {
	b.Helper()
	tb := newTab(b, chromedp.WithNewBrowserContext())
	defer tb.close()
	mark := 0
	if served != nil {
		mark = served.mark()
	}
	var mu sync.Mutex
	urls := map[network.RequestID]string{}
	encs := map[network.RequestID]string{}
	sizes := map[network.RequestID]float64{}
	inflight := map[network.RequestID]bool{}
	last := time.Now()
	if err := chromedp.Listen(tb.ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			urls[ev.RequestID] = ev.Request.URL
			inflight[ev.RequestID] = true
		case *network.EventResponseReceived:
			encs[ev.RequestID] = headerValue(ev.Response.Headers, "Content-Encoding")
		case *network.EventLoadingFinished:
			sizes[ev.RequestID] = ev.EncodedDataLength
			delete(inflight, ev.RequestID)
		case *network.EventLoadingFailed:
			delete(inflight, ev.RequestID)
		default:
			return
		}
		last = time.Now()
	}); err != nil {
		b.Fatal(err)
	}
	if _, err := tb.loadErr(url, ready); err != nil {
		b.Fatalf("loading %s: %v\nconsole: %q", url, err, tb.takeProblems())
	}
	if then != "" {
		eval[json.RawMessage](tb, then)
	}
	for deadline := time.Now().Add(readyTimeout); ; {
		// With served, base's own requests are judged by its server: a
		// worker's script is announced in the page's events and finished in
		// the worker's, so the page never hears its end (each such visit
		// waited out readyTimeout).
		mu.Lock()
		quiet := time.Since(last) >= quietFor
		for id := range inflight {
			if served == nil || !strings.HasPrefix(urls[id], base) {
				quiet = false
			}
		}
		mu.Unlock()
		if served != nil {
			quiet = quiet && served.quiet(quietFor)
		}
		if quiet || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	type row struct {
		n, br   float64
		enc, up string
	}
	var rows []row
	var total, brTotal float64
	for id, n := range sizes {
		u := urls[id]
		if !strings.HasPrefix(u, base) {
			continue // about:blank, data: URLs
		}
		total += n
		br := siteBrotliSize(dir, strings.TrimPrefix(u, base))
		brTotal += br
		rows = append(rows, row{n, br, cmpOr(encs[id], "none"), "/" + strings.TrimPrefix(u, base)})
	}
	if served != nil {
		seen := map[string]bool{}
		for _, r := range rows {
			seen[r.up] = true
		}
		for _, u := range served.since(mark) {
			if seen[u] {
				continue
			}
			seen[u] = true
			br := siteBrotliSize(dir, strings.TrimPrefix(u, "/"))
			brTotal += br
			rows = append(rows, row{0, br, "a worker's: served, not in the page's events", u})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].br > rows[j].br })
	var lines []string
	for _, r := range rows {
		lines = append(lines, fmt.Sprintf("%s %.0f B (%s; .br %.0f B)", r.up, r.n, r.enc, r.br))
	}
	b.Logf("first visit of %s: %d requests, %.0f bytes on the wire, %.0f bytes brotli\n  %s",
		shorten(url, 120), len(rows), total, brTotal, strings.Join(lines, "\n  "))
	return brTotal
}

// siteBrotliSize returns the size of the .br variant of the file rel (a
// URL path relative to the site's root, with any query) under dir, or of
// the file itself when it has none (0 when it is not there).
func siteBrotliSize(dir, rel string) float64 {
	pu, err := url.Parse(rel)
	if err != nil {
		return 0
	}
	name := pu.Path
	if name == "" || strings.HasSuffix(name, "/") {
		name += "index.html"
	}
	p := filepath.Join(dir, filepath.FromSlash(name))
	if fi, err := os.Stat(p + ".br"); err == nil {
		return float64(fi.Size())
	}
	if fi, err := os.Stat(p); err == nil {
		return float64(fi.Size())
	}
	return 0
}

func headerValue(hdr network.Headers, key string) string {
	for k, v := range hdr {
		if strings.EqualFold(k, key) {
			return fmt.Sprint(v)
		}
	}
	return ""
}

// dragLinks are the views BenchmarkDragFPS drags in: the largest attention
// scene, the same without its heat map, and a sparse one (one head, four
// tokens, no heat map) that draws almost nothing.
var dragLinks = []struct{ name, link string }{
	{"", "#v=1&scene=attention&H=8&d=2&N=64&seed=3&heat=1"},
	{"noheat-", "#v=1&scene=attention&H=8&d=2&N=64&seed=3&heat=0"},
	{"sparse-", "#v=1&scene=attention&H=1&d=2&N=4&seed=3&heat=0"},
}

// BenchmarkDragFPS drags the query around a circle with real mouse events
// for about 3 s in each of dragLinks (the scene is always drawn
// anti-aliased, by the fringes of the feathered batch of wasm/shapes), and the
// same drag over two baseline pages built in the same run: the minimal
// ebiten page (wasm/minimal, of ebiten as go.mod pins it, filling its
// canvas every frame: the floor of any ebiten page that draws every frame)
// and the floor page (wasm/floor, of the patched ebiten the canvas ships,
// drawing the largest view's primitives and nothing else in the same calls
// whenever its query moved: the floor of that view's drag). Both baseline
// canvases are set to the size of headlab's. It reports, for the largest
// view, ebiten's ActualFPS at the end (fps), the canvas frame's
// requestAnimationFrame rate over the drag (raf-fps), the mouse events the
// page accepted per second (moves/s) and, before the drag, ActualFPS
// (idle-fps) and the rAF rate over 2 s (idle-raf-fps); the rAF rate of the
// other two views (noheat-raf-fps, sparse-raf-fps), of the minimal page
// (minimal-raf-fps) and of the floor page (floor-raf-fps); raf-fps over
// minimal-raf-fps (ratio, target ≥ 0.75) and over floor-raf-fps
// (floor-ratio: near 1 when the drag costs what its drawing costs); and
// the WebGL work of a drawn frame, counted by glCountHook, of headlab's
// largest view and of the floor page (gl-draws and gl-tris, floor-gl-draws
// and floor-gl-tris: medians over the drag's drawn frames). Medians over
// -benchtime rounds, the views and the baseline pages interleaved in each.
// It fails when the floor page did not get ready or did not draw during
// its drag, or when its frames' triangles are not within 10% of headlab's.
func BenchmarkDragFPS(b *testing.B) {
	minimal := serveBaseline(b, minimalPkg, false).url
	floor := serveBaseline(b, floorPkg, true).url
	var fps, moves, idle, idleRAF, mini, flo []float64
	var gl, floorGL []glFrame
	raf := make([][]float64, len(dragLinks))
	var canvas [2]float64 // headlab's canvas, CSS pixels
	for b.Loop() {
		for k, v := range dragLinks {
			tb := newTab(b)
			tb.script(glCountHook)
			tb.load(h.base + v.link)
			if k == 0 {
				idleRAF = append(idleRAF, eval[float64](tb, rafRateJS(canvasWindowJS, 2000)))
				idle = append(idle, eval[float64](tb, "headlab.fps()"))
			}
			// The whole canvas in the viewport first: the press focuses
			// it, which would scroll it there under the drag, and the
			// circle would be drawn about another point.
			eval[bool](tb, `(document.getElementById("canvas").scrollIntoView({ block: "center", behavior: "instant" }), true)`)
			tb.framesIn("window", 2)
			st := tb.snap().State
			q := tb.point(st.N - 1)
			box := eval[[6]float64](tb, canvasBoxJS)
			canvas = [2]float64{box[2], box[3]}
			r := math.Min(60, math.Min(box[2], box[3])/5)
			d := circleDrag(tb, canvasWindowJS, q, [2]float64{box[0] + box[2]/2, box[1] + box[3]/2}, r)

			if now := eval[[6]float64](tb, canvasBoxJS); math.Abs(now[0]-box[0]) > 1 || math.Abs(now[1]-box[1]) > 1 {
				b.Errorf("%s: the canvas moved during the drag, from (%.0f, %.0f) to (%.0f, %.0f): the circle was not about its centre", v.link, box[0], box[1], now[0], now[1])
			}
			raf[k] = append(raf[k], d.raf)
			if k == 0 {
				fps = append(fps, d.fps)
				moves = append(moves, d.moves)
				gl = append(gl, d.gl...)
			}
			tb.waitFor("the link to follow the drag", "location.hash === headlab.link()")

			if after := tb.snap(); slices.Equal(after.State.Tok, st.Tok) {
				b.Errorf("%s: the drag moved nothing: was the query at (%.0f, %.0f) pressed?", v.link, q[0], q[1])
			}
			tb.close()
		}
		// The minimal page's canvas at the size of headlab's.
		tb := newTab(b)
		timedLoad(tb, minimal, minimalReady)
		c := sizeCanvas(tb, canvas)
		mini = append(mini, circleDrag(tb, "window", c, c, math.Min(60, math.Min(c[0], c[1])*2/5)).raf)
		tb.close()
		// The floor page, the same.
		tb = newTab(b)
		tb.script(glCountHook)
		if _, err := tb.loadErr(floor, floorReady); err != nil {
			b.Fatalf("the floor page did not get ready: %v\nconsole: %q", err, tb.takeProblems())
		}
		c = sizeCanvas(tb, canvas)
		before := eval[float64](tb, "window.floorDrawn")

		d := circleDrag(tb, "window", c, c, math.Min(60, math.Min(c[0], c[1])*2/5))
		if drawn := eval[float64](tb, "window.floorDrawn") - before; drawn < d.frames/4 {
			b.Errorf("the floor page drew %.0f frames of the %.0f its drag ran: its query did not follow the drag", drawn, d.frames)
		}
		flo = append(flo, d.raf)

		floorGL = append(floorGL, d.gl...)
		tb.close()
	}
	b.ReportMetric(median(fps), "fps")
	b.ReportMetric(median(raf[0]), "raf-fps")
	b.ReportMetric(median(moves), "moves/s")
	b.ReportMetric(median(idle), "idle-fps")
	b.ReportMetric(median(idleRAF), "idle-raf-fps")
	for k, v := range dragLinks[1:] {
		b.ReportMetric(median(raf[k+1]), v.name+"raf-fps")
	}
	b.ReportMetric(median(mini), "minimal-raf-fps")
	b.ReportMetric(median(flo), "floor-raf-fps")
	b.ReportMetric(median(raf[0])/median(mini), "ratio")
	b.ReportMetric(median(raf[0])/median(flo), "floor-ratio")
	hd, ht := glMedians(gl)
	fd, ft := glMedians(floorGL)
	b.ReportMetric(hd, "gl-draws")
	b.ReportMetric(ht, "gl-tris")
	b.ReportMetric(fd, "floor-gl-draws")
	b.ReportMetric(ft, "floor-gl-tris")
	b.Logf("rAF rates (per round): headlab %v, minimal %v, floor %v; drawn frames: headlab %d, floor %d", round(raf[0]), round(mini), round(flo), len(gl), len(floorGL))

	if math.IsNaN(ht) || math.IsNaN(ft) || math.Abs(ht-ft) > 0.1*ht {
		b.Errorf("a drawn frame's triangles: headlab %.0f, floor %.0f: the floor page does not draw what the canvas draws", ht, ft)
	}
}

const floorReady = "window.floorReady === true"

// sizeCanvas sets a baseline page's canvas (which fills its body) to size
// (CSS pixels), waits until it has that size, and returns its centre.
func sizeCanvas(tb *tab, size [2]float64) [2]float64 {
	tb.tb.Helper()
	got := eval[[2]float64](tb, sizeCanvasJS(size))
	return [2]float64{got[0] / 2, got[1] / 2}
}

// sizeCanvasJS sets the body, which a baseline page's canvas fills, to
// size (CSS pixels) and resolves to the canvas's size once it has it.
func sizeCanvasJS(size [2]float64) string {
	return fmt.Sprintf(`new Promise((r) => {
		document.body.style.width = "%[1]gpx"; document.body.style.height = "%[2]gpx";
		const c = document.querySelector("canvas");
		const f = () => (c.clientWidth === %[1]g && c.clientHeight === %[2]g ? r([c.clientWidth, c.clientHeight]) : requestAnimationFrame(f));
		requestAnimationFrame(f);
	})`, size[0], size[1])
}

// glCountHook runs in every frame of a tab before the frame's scripts
// (tab.script) and counts, in window.__gl, the WebGL 2 draw calls and the
// triangles they draw. It wraps the context's prototype, which ebiten
// reads its functions from when it makes its context.
const glCountHook = `(() => {
	const P = window.WebGL2RenderingContext && WebGL2RenderingContext.prototype;
	if (!P) return;
	const s = (window.__gl = { draws: 0, tris: 0 });
	const wrap = (name, n) => {
		const f = P[name];
		P[name] = function (...a) {
			s.draws++;
			if (a[0] === 0x0004) s.tris += a[n] / 3; // TRIANGLES
			return f.apply(this, a);
		};
	};
	wrap("drawElements", 1);
	wrap("drawArrays", 2);
})()`

// script has src run in every frame of the tab's documents from the next
// navigation on, before the frames' own scripts.
func (t *tab) script(src string) {
	t.tb.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src}); err != nil {
		t.tb.Fatalf("adding a script to the tab's documents: %v", err)
	}
}

// glFrame is the WebGL work of one animation frame: draw calls, triangles.
type glFrame struct{ draws, tris float64 }

// glMedians returns the median draw calls and triangles of the frames
// that drew the scene: those with more triangles than the fewest any
// frame of the drag drew (the frames that only present the kept screen).
func glMedians(fs []glFrame) (draws, tris float64) {
	if len(fs) == 0 {
		return math.NaN(), math.NaN()
	}
	least := fs[0].tris
	for _, f := range fs {
		least = math.Min(least, f.tris)
	}
	var ds, ts []float64
	for _, f := range fs {
		if f.tris > least {
			ds, ts = append(ds, f.draws), append(ts, f.tris)
		}
	}
	return median(ds), median(ts)
}

// rafRateJS counts win's requestAnimationFrame callbacks for ms
// milliseconds and resolves to their rate per second.
func rafRateJS(win string, ms int) string {
	return fmt.Sprintf(`new Promise((r) => {
		const w = %s, t0 = performance.now();
		let n = 0;
		const f = () => (++n, performance.now() - t0 < %d ? w.requestAnimationFrame(f) : r(n / ((performance.now() - t0) / 1000)));
		w.requestAnimationFrame(f);
	})`, win, ms)
}

// dragged is what circleDrag measured.
type dragged struct {
	raf    float64   // win's requestAnimationFrame rate over the drag
	frames float64   // win's animation frames over the drag
	fps    float64   // headlab.fps() at the end, 0 where there is none
	moves  float64   // mouse events dispatched per second
	gl     []glFrame // each frame's WebGL work, where glCountHook counts it
}

// circleDrag presses the left button at from, moves the mouse for about 3 s
// around a circle of radius r about centre, 0.15 rad a step, and
// releases it, counting win's animation frames meanwhile.
func circleDrag(tb *tab, win string, from, centre [2]float64, r float64) dragged {
	tb.tb.Helper()
	eval[bool](tb, framesJS(win))
	tb.mouse(input.DispatchMouseEventTypeMouseMoved, from[0], from[1], false)
	tb.framesIn(win, 2)
	tb.mouse(input.DispatchMouseEventTypeMousePressed, from[0], from[1], true)
	tb.framesIn(win, 2)
	n := 0
	x, y := from[0], from[1]
	eval[bool](tb, countFramesJS(win))
	t0 := time.Now()
	for time.Since(t0) < 3*time.Second {
		a := float64(n) * 0.15
		x, y = centre[0]+r*math.Cos(a), centre[1]+r*math.Sin(a)
		tb.mouse(input.DispatchMouseEventTypeMouseMoved, x, y, true)
		n++
	}
	elapsed := time.Since(t0).Seconds()
	var d dragged
	d.fps = eval[float64](tb, "window.headlab ? headlab.fps() : 0")
	f := eval[[2]float64](tb, countedFramesJS(win))
	for _, g := range eval[[][2]float64](tb, fmt.Sprintf(`%s.__glFrames`, win)) {
		d.gl = append(d.gl, glFrame{g[0], g[1]})
	}
	tb.mouse(input.DispatchMouseEventTypeMouseReleased, x, y, false)
	tb.framesIn(win, 2)
	d.frames = f[0]
	d.raf = f[0] / (f[1] / 1000)
	d.moves = float64(n) / elapsed
	return d
}

// framesJS starts a requestAnimationFrame callback in win that counts the
// frames (win.__frames) and, while win.__counting, each frame's WebGL work
// where glCountHook counts it (win.__glFrames).
func framesJS(win string) string {
	return fmt.Sprintf(`(() => {
		const w = %s;
		w.__frames = 0; w.__glFrames = [];
		let d = 0, t = 0;
		const f = () => {
			w.__frames++;
			if (w.__gl && w.__counting) w.__glFrames.push([w.__gl.draws - d, w.__gl.tris - t]);
			if (w.__gl) (d = w.__gl.draws), (t = w.__gl.tris);
			w.requestAnimationFrame(f);
		};
		w.requestAnimationFrame(f);
		w.__t0 = performance.now();
		return true;
	})()`, win)
}

// countFramesJS restarts framesJS's count from now and turns on the
// count of WebGL work.
func countFramesJS(win string) string {
	return fmt.Sprintf(`(() => { const w = %s; w.__frames = 0; w.__t0 = performance.now(); w.__counting = true; return true; })()`, win)
}

// countedFramesJS stops the count of WebGL work and returns the frames
// counted since countFramesJS and the milliseconds they took.
func countedFramesJS(win string) string {
	return fmt.Sprintf(`(() => { const w = %s; w.__counting = false; return [w.__frames, performance.now() - w.__t0]; })()`, win)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func round(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x)
	}
	return out
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
