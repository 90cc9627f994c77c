package e2e

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"
	"time"
)

// BenchmarkDragFPSFirefox is BenchmarkDragFPS's drag of its largest view
// in Firefox ESR under Xvfb, where WebGL is Mesa's llvmpipe (headless
// Firefox has no WebGL 2), against the same two baseline pages, built in
// the same run and dragged in the same browser in each round: the minimal
// page (wasm/minimal) and the floor page (wasm/floor), their canvases set
// to the size of headlab's. The drag is real input: Marionette's pointer
// actions (WebDriver:PerformActions), which Firefox dispatches as widget
// events, moves of 16 ms around the circle, 0.15 rad a step, for about
// 3 s (Firefox takes one move a frame). It reports each page's requestAnimationFrame rate over the
// drag (ff-raf-fps, ff-minimal-raf-fps, ff-floor-raf-fps; and
// ff-sparse-raf-fps, BenchmarkDragFPS's sparse view: the host page's and
// the canvas's own cost with almost nothing drawn), headlab's over
// the minimal page's (ff-ratio) and over the floor page's (ff-floor-ratio),
// and the moves dispatched per second (ff-moves/s); medians over
// -benchtime rounds. It fails when the drag moved no token of headlab's
// or the floor page did not draw during it. Without Firefox or Xvfb it is
// skipped with one line, unless HEADLAB_REQUIRE_TOOLS is set.
func BenchmarkDragFPSFirefox(b *testing.B) {
	requireTool(b, "Xvfb", "xvfb")
	bin, missing := engines[0].find()
	if missing != "" {
		if os.Getenv("HEADLAB_REQUIRE_TOOLS") != "" {
			b.Fatalf("%s is missing; ./build.sh test installs it", missing)
		}
		b.Skipf("%s is missing", missing)
	}
	minimal := serveBaseline(b, minimalPkg, false).url
	floor := serveBaseline(b, floorPkg, true).url
	d := startFirefox(b, bin[0])
	defer d.close()
	if err := d.call("WebDriver:SetTimeouts", map[string]any{"script": int(stepTimeout / time.Millisecond)}, nil); err != nil {
		b.Fatalf("timeouts: %v", err)
	}
	if err := d.call("WebDriver:SetWindowRect", map[string]any{"x": 0, "y": 0, "width": 1200, "height": 1000}, nil); err != nil {
		b.Logf("sizing the window: %v", err)
	}
	var raf, sparse, mini, flo, moves []float64
	var canvas [2]float64 // headlab's canvas, CSS pixels
	for b.Loop() {
		for _, v := range []struct {
			link string
			raf  *[]float64
		}{{dragLinks[0].link, &raf}, {dragLinks[2].link, &sparse}} {
			box, f, n := wdDragHeadlab(b, d, v.link)
			*v.raf = append(*v.raf, f)
			if v.raf == &raf {
				moves = append(moves, n)
				canvas = box
			}
		}

		wdOpenBaseline(b, d, minimal, minimalReady)
		size := must[[2]float64](b, d, sizeCanvasJS(canvas))
		c := [2]float64{size[0] / 2, size[1] / 2}
		f, _ := wdCircleDrag(b, d, "window", c, c, math.Min(60, math.Min(size[0], size[1])/5))
		mini = append(mini, f)

		wdOpenBaseline(b, d, floor, floorReady)
		size = must[[2]float64](b, d, sizeCanvasJS(canvas))
		c = [2]float64{size[0] / 2, size[1] / 2}
		drawn := must[float64](b, d, "window.floorDrawn")
		f, _ = wdCircleDrag(b, d, "window", c, c, math.Min(60, math.Min(size[0], size[1])/5))
		if now := must[float64](b, d, "window.floorDrawn"); now-drawn < f {
			// f frames a second over about 3 s: at least a third drawn.
			b.Errorf("the floor page drew %.0f frames during its drag at %.1f fps: its query did not follow the drag", now-drawn, f)
		}
		flo = append(flo, f)
	}
	b.ReportMetric(median(raf), "ff-raf-fps")
	b.ReportMetric(median(sparse), "ff-sparse-raf-fps")
	b.ReportMetric(median(mini), "ff-minimal-raf-fps")
	b.ReportMetric(median(flo), "ff-floor-raf-fps")
	b.ReportMetric(median(raf)/median(mini), "ff-ratio")
	b.ReportMetric(median(raf)/median(flo), "ff-floor-ratio")
	b.ReportMetric(median(moves), "ff-moves/s")
	b.Logf("Firefox rAF rates (per round): headlab %v, sparse view %v, minimal %v, floor %v", round(raf), round(sparse), round(mini), round(flo))
}

// wdDragHeadlab opens link, drags its query as wdCircleDrag does, about the
// canvas's centre, checks that the drag moved it, and returns the canvas's
// size (CSS pixels), the rAF rate and the moves per second.
func wdDragHeadlab(b *testing.B, d driver, link string) (canvas [2]float64, raf, moves float64) {
	b.Helper()
	wdOpen(b, d, h.base+link)
	must[any](b, d, `document.getElementById("canvas").scrollIntoView({ block: "center", behavior: "instant" })`)
	before := must[[]float64](b, d, "headlab.state().tok")
	var q [2]float64 // the query, once the scroll has ended
	if err := json.Unmarshal([]byte(wdStable(b, d, "JSON.stringify("+pointJS+"(headlab.state().N - 1))", "the query's place")), &q); err != nil {
		b.Fatal(err)
	}
	box := must[[6]float64](b, d, canvasBoxJS)
	r := math.Min(60, math.Min(box[2], box[3])/5)
	raf, moves = wdCircleDrag(b, d, canvasWindowJS, q, [2]float64{box[0] + box[2]/2, box[1] + box[3]/2}, r)
	wdSettle(b, d, "the drag")
	if after := must[[]float64](b, d, "headlab.state().tok"); slices.Equal(after, before) {
		b.Errorf("%s: the drag moved nothing: was the query at (%.0f, %.0f) pressed?", link, q[0], q[1])
	}
	return [2]float64{box[2], box[3]}, raf, moves
}

// wdOpenBaseline loads a baseline page's url in a fresh document and
// waits for its ready predicate.
func wdOpenBaseline(tb testing.TB, d driver, url, ready string) {
	tb.Helper()
	for _, u := range []string{"about:blank", url} {
		if err := d.call("WebDriver:Navigate", map[string]any{"url": u}, nil); err != nil {
			tb.Fatalf("opening %s: %v", u, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if err := wdWait(ctx, d, ready); err != nil {
		tb.Fatalf("%s did not get ready: %v", url, err)
	}
}

// wdCircleDrag is circleDrag through Marionette's pointer actions: it
// presses the left button at from, moves the pointer around a circle of
// radius r about centre for about 3 s, a move every 16 ms, and releases
// it. It returns win's requestAnimationFrame rate over the moves and the
// moves dispatched per second.
func wdCircleDrag(tb testing.TB, d driver, win string, from, centre [2]float64, r float64) (raf, moves float64) {
	tb.Helper()
	const step, dur = 16, 3000 // ms
	act := func(actions ...map[string]any) {
		tb.Helper()
		list := make([]any, len(actions))
		for i, a := range actions {
			list[i] = a
		}
		perform := map[string]any{"actions": []any{map[string]any{
			"type": "pointer", "id": "mouse", "parameters": map[string]any{"pointerType": "mouse"}, "actions": list,
		}}}
		if err := d.call("WebDriver:PerformActions", perform, nil); err != nil {
			tb.Fatalf("pointer actions: %v", err)
		}
	}
	move := func(x, y float64, ms int) map[string]any {
		return map[string]any{"type": "pointerMove", "duration": ms, "x": int(math.Round(x)), "y": int(math.Round(y)), "origin": "viewport"}
	}
	must[bool](tb, d, framesJS(win))
	act(move(from[0], from[1], 0), map[string]any{"type": "pause", "duration": 100},
		map[string]any{"type": "pointerDown", "button": 0}, map[string]any{"type": "pause", "duration": 100})
	must[bool](tb, d, countFramesJS(win))
	// In chunks of ten moves, until the time is up: Firefox takes a move
	// a frame, however short its duration.
	n := 0
	t0 := time.Now()
	for time.Since(t0) < dur*time.Millisecond {
		var chunk []map[string]any
		for range 10 {
			a := float64(n) * 0.15
			chunk = append(chunk, move(centre[0]+r*math.Cos(a), centre[1]+r*math.Sin(a), step))
			n++
		}
		act(chunk...)
	}
	elapsed := time.Since(t0).Seconds()
	f := must[[2]float64](tb, d, countedFramesJS(win))
	act(map[string]any{"type": "pointerUp", "button": 0})
	_ = d.call("WebDriver:ReleaseActions", map[string]any{}, nil)
	return f[0] / (f[1] / 1000), float64(n) / elapsed
}
