package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"headlab/numerics/experiment"
)

// benchRuns are the recovery runs timed in the page's compute worker and
// under node (BenchmarkLearn and BenchmarkLearnWarm in numerics/experiment,
// GOOS=js; its learnBench), seed 1 each.
var benchRuns = [][2]int{{3, 8}, {4, 8}, {8, 3}}

// BenchmarkComputeLearn times recovery runs in the page's compute worker
// (the job's time as the worker measures it, worker-ms; the wall time from
// opening the link to the result shown, wall-ms) and natively here
// (native-ms). Compare worker-ms with
//
//	GOOS=js GOARCH=wasm go test -run '^$' -bench Learn -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" ./numerics/experiment/
//
// for the same runs under node.
func BenchmarkComputeLearn(b *testing.B) {
	for _, c := range benchRuns {
		H, d := c[0], c[1]
		b.Run(fmt.Sprintf("H=%d,d=%d", H, d), func(b *testing.B) {
			frag := fmt.Sprintf("#v=1&scene=recovery&H=%d&d=%d&seed=1", H, d)
			var worker, wall, native float64
			for b.Loop() {
				tb := newTab(b)
				tb.load(h.base + "#v=1&scene=recovery&H=1&d=1")
				start := time.Now()
				eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(frag)))
				tb.pollFor("the run", `!headlab.facts().computing && location.hash === headlab.link()`)
				wall = float64(time.Since(start).Microseconds()) / 1000
				for _, e := range computeLog(tb) {
					if strings.Contains(e.Key, fmt.Sprintf("H=%d d=%d seed=1 ", H, d)) && e.Op == "done" {
						worker = e.Ms
					}
				}
				tb.close()
				t0 := time.Now()
				if _, err := experiment.Learn(experiment.Pacer{}, experiment.Recovery{H: H, D: d, Seed: 1}); err != nil {
					b.Fatal(err)
				}
				native = float64(time.Since(t0).Microseconds()) / 1000
			}
			b.ReportMetric(worker, "worker-ms")
			b.ReportMetric(wall, "wall-ms")
			b.ReportMetric(native, "native-ms")
		})
	}
}

// dragFrames drags the Attention scene's query around a circle for about
// 3 s with real mouse events and returns the canvas frame's
// requestAnimationFrame rate and its longest gap between frames (ms).
func dragFrames(tb *tab) (fps, gap float64) {
	st := tb.snap().State
	q := tb.point(st.N - 1)
	box := eval[[6]float64](tb, canvasBoxJS)
	r := math.Min(60, math.Min(box[2], box[3])/5)
	cx, cy := box[0]+box[2]/2, box[1]+box[3]/2
	eval[bool](tb, `(() => { const w = document.getElementById("canvas").contentWindow; w.__n = 0; w.__gap = 0; w.__stop = false;
		let last = performance.now(); w.__t0 = last;
		const f = (t) => { w.__n++; w.__gap = Math.max(w.__gap, t - last); last = t; if (!w.__stop) w.requestAnimationFrame(f); };
		w.requestAnimationFrame(f); return true; })()`)
	tb.mouse(input.DispatchMouseEventTypeMouseMoved, q[0], q[1], false)
	tb.frames(2)
	tb.mouse(input.DispatchMouseEventTypeMousePressed, q[0], q[1], true)
	tb.frames(2)
	var x, y float64
	t0 := time.Now()
	for n := 0; time.Since(t0) < 3*time.Second; n++ {
		a := float64(n) * 0.15
		x, y = cx+r*math.Cos(a), cy+r*math.Sin(a)
		tb.mouse(input.DispatchMouseEventTypeMouseMoved, x, y, true)
	}
	out := eval[[3]float64](tb, `(() => { const w = document.getElementById("canvas").contentWindow; w.__stop = true;
		return [w.__n, performance.now() - w.__t0, w.__gap]; })()`)
	tb.mouse(input.DispatchMouseEventTypeMouseReleased, x, y, false)
	tb.frames(2)
	return out[0] / (out[1] / 1000), out[2]
}

// BenchmarkRecoveryFrameGap drags the largest Attention scene (N = 64,
// H = 8, heat map) idle, then again while the compute worker runs a
// recovery run of seconds (H = 4, d = 32, seed 1: about 10 s natively, longer than the drag; started through the worker's
// client as the Recovery scene would), and reports the canvas frame's
// requestAnimationFrame rate and longest frame gap for both, and their
// ratio (targets: the rate within 10% of idle, no gap over 50 ms).
func BenchmarkRecoveryFrameGap(b *testing.B) {
	const link = "#v=1&scene=attention&H=8&d=2&N=64&seed=3&heat=1"
	job := experiment.Job{Kind: experiment.KindRecovery, Recovery: &experiment.Recovery{H: 4, D: 32, Seed: 1}}
	var idleFPS, idleGap, runFPS, runGap float64
	for b.Loop() {
		tb := newTab(b)
		tb.load(h.base + link)
		idleFPS, idleGap = dragFrames(tb)
		id := startJob(tb, "bench", job)
		tb.pollFor("the worker's run to be under way", computeJS+`.log.some((e) => e.key === "bench" && e.fraction > 0)`)
		runFPS, runGap = dragFrames(tb)
		if still := eval[bool](tb, computeJS+`.log.some((e) => e.key === "bench" && e.op === "running")`); !still {
			b.Log("the run ended before the drag did: the numbers are partly idle", eval[string](tb, "JSON.stringify("+computeJS+".log)"))
		}
		eval[bool](tb, fmt.Sprintf(`(%s.cancel(%d), true)`, computeJS, id))
		tb.close()
	}
	b.ReportMetric(idleFPS, "idle-raf-fps")
	b.ReportMetric(idleGap, "idle-gap-ms")
	b.ReportMetric(runFPS, "run-raf-fps")
	b.ReportMetric(runGap, "run-gap-ms")
	b.ReportMetric(runFPS/idleFPS, "run/idle")
}

// BenchmarkComputeLearnIdle runs the same recovery runs as
// BenchmarkComputeLearn through the worker's client while the canvas shows
// the (idle) Attention scene, so that nothing draws meanwhile, and tells
// the browser's warm-up from the worker's speed. With the browser's cache
// emptied it opens the page and runs the job six times: cold-ms is the
// first run, which pays for the browser compiling the functions it calls,
// first quickly and then, as they prove hot, optimised; warm-ms is the
// fastest of the last three, when that is done. It then opens the page
// twice more: cached-ms is the first run of the third visit, when the
// browser takes the optimised code it kept for the wasm. Compare
// them with the same runs under node (BenchmarkLearn and
// BenchmarkLearnWarm in numerics/experiment; README.md, Performance).
func BenchmarkComputeLearnIdle(b *testing.B) {
	for _, c := range benchRuns {
		H, d := c[0], c[1]
		b.Run(fmt.Sprintf("H=%d,d=%d", H, d), func(b *testing.B) {
			job := experiment.Job{Kind: experiment.KindRecovery, Recovery: &experiment.Recovery{H: H, D: d, Seed: 1}}
			var cold, warm, cached float64
			for b.Loop() {
				tb := newTab(b)
				tb.load(h.base + "#v=1&scene=attention")
				if _, err := chromedp.Call(tb.ctx, network.ClearBrowserCache, cdp.Empty{}); err != nil {
					b.Fatal(err)
				}
				var first [3]float64
				for visit := range 3 {
					tb.load(h.base + "#v=1&scene=attention")
					runs := 1
					if visit == 0 {
						runs = 6
					}
					var ms []float64
					for r := range runs {
						key := fmt.Sprintf("idle %d %d", visit, r)
						startJob(tb, key, job)
						tb.pollFor("the run", computeJS+fmt.Sprintf(`.log.some((e) => e.key === %q && e.op === "done")`, key))
						for _, e := range computeLog(tb) {
							if e.Key == key && e.Op == "done" {
								ms = append(ms, e.Ms)
							}
						}
					}
					if len(ms) != runs {
						b.Fatalf("visit %d: %d of %d runs reported a time", visit, len(ms), runs)
					}
					first[visit] = ms[0]
					if visit == 0 {
						cold, warm = ms[0], slices.Min(ms[3:])
					}
				}
				cached = first[2]
				b.Logf("first runs of the three visits: %.0f, %.0f, %.0f ms; warm %.0f ms", first[0], first[1], first[2], warm)
				tb.close()
			}
			b.ReportMetric(cold, "cold-ms")
			b.ReportMetric(warm, "warm-ms")
			b.ReportMetric(cached, "cached-ms")
		})
	}
}
