package e2e

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// soakSample is one reading of what a long session could leak.
type soakSample struct {
	Min     float64 // minutes since the start
	WasmMB  float64 `json:"wasm"`    // the canvas program's linear memory
	WorkMB  float64 `json:"worker"`  // the compute worker program's linear memory (its last message's)
	HeapMB  float64 `json:"heap"`    // the page's JS heap in use (Chromium's performance.memory)
	Nodes   float64 `json:"nodes"`   // elements in the page and the canvas's frame
	Notices float64 `json:"notices"` // headlab.errors
	Restart float64 `json:"restart"` // compute workers started after one died
}

const soakSampleJS = `(() => {
	const w = document.getElementById("canvas").contentWindow;
	return {
		wasm: w.headlabWasmBytes ? w.headlabWasmBytes() / 1048576 : 0,
		worker: w.headlabCompute ? w.headlabCompute.wasmBytes / 1048576 : 0,
		heap: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : 0,
		nodes: document.getElementsByTagName("*").length + w.document.getElementsByTagName("*").length,
		notices: headlab.errors.length,
		restart: w.headlabCompute ? w.headlabCompute.restarts : 0,
	};
})()`

// BenchmarkSoak uses one tab as a lecture would for HEADLAB_SOAK_MINUTES
// (default 15) minutes, in rounds of the same actions: the Attention scene
// with tokens dragged, the Atoms scene, a Recovery run stepped with → and
// its seed changed mid-run, a Transformer run stepped, figures exported.
// After every round it samples the canvas's and the compute worker's wasm
// memory, the JS heap, the DOM and the notices. It reports each one's trend
// over the last two thirds of the session (per minute), both programs' wasm
// memory growth from the end of the first round to the end of the third, key presses that did not
// land, and fails on a notice or a restarted worker. A benchmark, not a
// test: run it with -run '^$' -bench Soak -benchtime 1x.
func BenchmarkSoak(b *testing.B) {
	minutes := 15.0
	if s := os.Getenv("HEADLAB_SOAK_MINUTES"); s != "" {
		if m, err := strconv.ParseFloat(s, 64); err == nil && m > 0 {
			minutes = m
		}
	}
	for b.Loop() {
		tb := newTab(b)
		tb.load(h.base + "#v=1&scene=attention&H=3&d=2&seed=1")
		start := time.Now()
		var samples []soakSample
		keys, missed, rounds := 0, 0, 0
		sample := func() {
			s := eval[soakSample](tb, soakSampleJS)
			s.Min = time.Since(start).Minutes()
			samples = append(samples, s)
		}
		// step presses → once and waits for the step to move on by one.
		step := func(what string) {
			before := eval[int](tb, "headlab.state().step")
			last := eval[int](tb, "headlab.facts().steps")
			if before >= last {
				return
			}
			keys++
			tb.do("→", chromedp.KeyEvent(kb.ArrowRight))
			if _, err := evalErr[bool](tb, fmt.Sprintf(`new Promise((r) => { const t0 = performance.now(); const f = () => (headlab.state().step === %d ? r(true) : performance.now() - t0 > 60000 ? r(false) : setTimeout(f, 20)); f(); })`, before+1)); err != nil || eval[int](tb, "headlab.state().step") != before+1 {
				missed++
				b.Logf("%s: → at step %d did not land", what, before)
			}
		}
		for rounds < 3 || time.Since(start).Minutes() < minutes {
			rounds++
			// Attention: drag token 1 back and forth.
			eval[any](tb, `headlab.open("#v=1&scene=attention&H=4&d=2&seed=`+strconv.Itoa(rounds%3)+`"), null`)
			tb.waitSettled("attention")
			for k := range 6 {
				p := tb.point(0)
				tb.mouse(input.DispatchMouseEventTypeMouseMoved, p[0], p[1], false)
				tb.mouse(input.DispatchMouseEventTypeMousePressed, p[0], p[1], true)
				for j := range 10 {
					d := float64(j+1) * 3 * float64(1-2*(k%2))
					tb.mouse(input.DispatchMouseEventTypeMouseMoved, p[0]+d, p[1]+d/2, true)
				}
				tb.mouse(input.DispatchMouseEventTypeMouseReleased, p[0]+30*float64(1-2*(k%2)), p[1], false)
				tb.frames(2)
			}
			// Atoms.
			eval[any](tb, `headlab.open("#v=1&scene=atoms&d=`+strconv.Itoa(3+rounds%3)+`&seed=2"), null`)
			tb.waitSettled("atoms")
			// Recovery: a run stepped, its seed changed mid-run, stepped again.
			eval[any](tb, `headlab.open("#v=1&scene=recovery&H=2&d=2&seed=8&step=0"), null`)
			tb.waitSettled("recovery")
			for range 8 {
				step("recovery")
			}
			eval[any](tb, `headlab.open("#v=1&scene=recovery&H=2&d=3&seed=`+strconv.Itoa(10+rounds%3)+`&step=3"), null`)
			tb.waitSettled("recovery, new seed")
			for range 8 {
				step("recovery, new seed")
			}
			// Transformer.
			eval[any](tb, `headlab.open("#v=1&scene=transformer&H=2&d=3&m=3&K=5&seed=1&step=10"), null`)
			tb.waitSettled("transformer")
			for range 8 {
				step("transformer")
			}
			// Figures.
			for _, f := range []string{"svg", "png", "pdf"} {
				eval[int](tb, `headlab.figure("`+f+`").then((v) => v.length)`)
			}
			sample()
			b.Logf("round %d at %.1f min: %+v", rounds, samples[len(samples)-1].Min, samples[len(samples)-1])
		}
		last := samples[len(samples)-1]
		if last.Notices > 0 {
			b.Errorf("%v notices: %q", last.Notices, eval[[]string](tb, "headlab.errors"))
		}
		if last.Restart > 0 {
			b.Errorf("%v compute workers died and were restarted", last.Restart)
		}
		if missed > 0 {
			b.Errorf("%d of %d key presses did not land", missed, keys)
		}
		from := last.Min / 3
		b.ReportMetric(slope(samples, from, func(s soakSample) float64 { return s.WasmMB }), "wasm-MB/min")
		b.ReportMetric(slope(samples, from, func(s soakSample) float64 { return s.HeapMB }), "heap-MB/min")
		b.ReportMetric(slope(samples, from, func(s soakSample) float64 { return s.Nodes }), "nodes/min")
		b.ReportMetric(slope(samples, from, func(s soakSample) float64 { return s.WorkMB }), "worker-MB/min")
		b.ReportMetric(samples[min(2, len(samples)-1)].WasmMB-samples[0].WasmMB, "wasm-MB-round1-3")
		b.ReportMetric(samples[min(2, len(samples)-1)].WorkMB-samples[0].WorkMB, "worker-MB-round1-3")
		b.ReportMetric(last.WasmMB, "wasm-MB")
		b.ReportMetric(last.WorkMB, "worker-MB")
		b.ReportMetric(float64(rounds), "rounds")
		b.ReportMetric(float64(keys), "keys")
		b.ReportMetric(float64(missed), "keys-missed")
		tb.close()
	}
}

// slope is the least-squares slope of f over the samples from minute from on.
func slope(ss []soakSample, from float64, f func(soakSample) float64) float64 {
	var n, sx, sy, sxx, sxy float64
	for _, s := range ss {
		if s.Min < from {
			continue
		}
		x, y := s.Min, f(s)
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	if n < 2 || n*sxx == sx*sx {
		return 0
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}
