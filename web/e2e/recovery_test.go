package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
	"headlab/numerics/recovery"
	"headlab/web/link"
)

// recoveryFacts is the part of the Recovery scene's facts the tests read.
type recoveryFacts struct {
	Scene     string   `json:"scene"`
	Computing bool     `json:"computing"`
	Step      int      `json:"step"`
	Steps     int      `json:"steps"`
	Queries   int      `json:"queries"`
	Bound     int      `json:"bound"`
	MaxLength int      `json:"maxLength"`
	Error     *float64 `json:"error"`
	LearnMs   float64  `json:"learnMs"`
	Progress  *float64 `json:"progress"`
	Residual  *float64 `json:"residual"`
	Estimate  *float64 `json:"estimate"`
	Found     int      `json:"found"`
	RunProg   *struct {
		Queries  int     `json:"queries"`
		Planned  int     `json:"planned"`
		Columns  int     `json:"columns"`
		Width    int     `json:"width"`
		Fraction float64 `json:"fraction"`
	} `json:"runProgress"`
	Failed *struct {
		Message string `json:"message"`
	} `json:"failed"`
	Recovered []struct {
		W [][]float64 `json:"W"`
		V []float64   `json:"v"`
	} `json:"recovered"`
	Sweep *struct {
		Done     bool       `json:"done"`
		Progress float64    `json:"progress"`
		Median   []*float64 `json:"median"`
		LargestH int        `json:"largestH"`
		Slowest  float64    `json:"slowestMs"`
		Refused  string     `json:"refused"`
	} `json:"sweep"`
}

func recoveryFactsOf(tb *tab) recoveryFacts {
	tb.tb.Helper()
	raw := eval[json.RawMessage](tb, "headlab.facts()")
	var f recoveryFacts
	if err := json.Unmarshal(raw, &f); err != nil {
		tb.tb.Fatalf("facts %s: %v", shorten(string(raw), 300), err)
	}
	return f
}

// recoveryOpen applies a link in the loaded page and waits until the run
// is computed; it returns the facts.
func recoveryOpen(tb *tab, fragment string) recoveryFacts {
	tb.tb.Helper()
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(fragment)))
	ctx, cancel := context.WithTimeout(tb.ctx, 2*time.Minute)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!headlab.facts().computing && location.hash === headlab.link()`,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		tb.tb.Fatalf("%s: the run did not finish: %v\npage: %s", fragment, err, tb.describe())
	}
	return recoveryFactsOf(tb)
}

// TestRecovery drives the Recovery scene: links to step 0, a middle step
// and the end for (H, d) = (1, 1), (2, 3), (3, 4) in both modes, with the
// counter and the recovered layer checked against the true one; stepping
// with the arrow keys; and a noise sweep that leaves the page responsive.
func TestRecovery(t *testing.T) {
	tb := newTab(t)
	tb.load(h.base + "#v=1&scene=recovery&H=1&d=1")
	t.Run("links", func(t *testing.T) { recoveryLinks(tb.in(t)) })
	t.Run("keys", func(t *testing.T) { recoveryKeys(tb.in(t)) })
	t.Run("sweep", func(t *testing.T) { recoverySweep(tb.in(t)) })
	tb.noProblems("the recovery scene")
}

func recoveryLinks(tb *tab) {
	for _, c := range [][2]int{{1, 1}, {2, 3}, {3, 4}} {
		H, d := c[0], c[1]
		for _, mode := range []string{"paper", "economy"} {
			base := fmt.Sprintf("#v=1&scene=recovery&H=%d&d=%d&seed=3&mode=%s", H, d, mode)
			end := recoveryOpen(tb, base+"&step=1000000")
			if end.Failed != nil {
				tb.tb.Errorf("%s: the run failed: %s", base, end.Failed.Message)
				continue
			}
			what := fmt.Sprintf("H=%d d=%d %s", H, d, mode)
			if mode == "paper" && (end.Steps != recovery.PaperQueries(H, d) || end.Bound != end.Steps) {
				tb.tb.Errorf("%s: %d steps, bound %d, want 4Hd²−2H+1 = %d", what, end.Steps, end.Bound, recovery.PaperQueries(H, d))
			}
			if end.Step != end.Steps || end.Queries != end.Steps {
				tb.tb.Errorf("%s: step 10⁶ opened step %d, queries %d of %d: a step beyond the end clamps to the end", what, end.Step, end.Queries, end.Steps)
			}
			if !strings.Contains(eval[string](tb, "location.hash"), fmt.Sprintf("step=%d", end.Steps)) {
				tb.tb.Errorf("%s: the link does not hold the clamped step: %s", what, eval[string](tb, "location.hash"))
			}
			if end.MaxLength > 2*H+1 || end.MaxLength < 1 {
				tb.tb.Errorf("%s: longest query %d, bound 2H+1 = %d", what, end.MaxLength, 2*H+1)
			}
			if end.Error == nil || *end.Error > 1e-6 {
				tb.tb.Errorf("%s: error at the end %v", what, end.Error)
			}
			// The layer shown against the true one, computed here natively.
			s, _ := link.Parse(base)
			want := attention.Canonical(s.Recovery().TrueLayer(), 1e-9)
			var got attention.Layer
			for _, hd := range end.Recovered {
				W := mat.NewDense(d, d, nil)
				for i := range hd.W {
					W.SetRow(i, hd.W[i])
				}
				got = append(got, attention.Head{W: W, V: mat.NewVecDense(d, hd.V)})
			}
			if e, err := attention.RelativeError(got, want); err != nil || e > 1e-6 {
				tb.tb.Errorf("%s: the recovered layer shown is off the true one by %v (%v)", what, e, err)
			}
			for _, step := range []int{0, end.Steps / 2} {
				f := recoveryOpen(tb, fmt.Sprintf("%s&step=%d", base, step))
				if f.Step != step || f.Queries != step || f.Steps != end.Steps {
					tb.tb.Errorf("%s step %d: facts step %d queries %d steps %d", what, step, f.Step, f.Queries, f.Steps)
				}
				if f.Error != nil {
					tb.tb.Errorf("%s step %d: error %v reported before the end", what, step, *f.Error)
				}
				if (step == 0) != (f.MaxLength == 0) {
					tb.tb.Errorf("%s step %d: longest query %d", what, step, f.MaxLength)
				}
			}
			// The panel's step text follows.
			if txt := eval[string](tb, `document.getElementById("rec-step-text").textContent`); !strings.HasPrefix(txt, fmt.Sprintf("step %d of %d", end.Steps/2, end.Steps)) {
				tb.tb.Errorf("%s: the panel says %q", what, txt)
			}
			// The counter counts the step's queries while stepping, and the
			// whole run's in the result view, whatever the step.
			const used = `document.querySelector("#rec-counter dd").textContent`
			if txt, want := eval[string](tb, used), fmt.Sprintf("%d of %d", end.Steps/2, end.Steps); txt != want {
				tb.tb.Errorf("%s step %d: the counter says %q queries used, want %q", what, end.Steps/2, txt, want)
			}
			recoveryOpen(tb, fmt.Sprintf("%s&step=%d&view=result", base, end.Steps/2))
			if txt, want := eval[string](tb, used), fmt.Sprintf("%d of %d", end.Steps, end.Steps); txt != want {
				tb.tb.Errorf("%s, result view at step %d: the counter says %q queries used, want %q", what, end.Steps/2, txt, want)
			}
		}
	}
}

// recoveryKeys steps with real key events on the page: → and ← move the
// step by one, End and Home jump, and the link follows.
func recoveryKeys(tb *tab) {
	f := recoveryOpen(tb, "#v=1&scene=recovery&H=2&d=3&seed=3&step=5")
	tb.focusPage()
	press := func(k string, want int) {
		tb.tb.Helper()
		tb.do("pressing a key", chromedp.KeyEvent(k))
		inLink := fmt.Sprintf(`location.hash.includes("step=%d&") || location.hash.endsWith("step=%d")`, want, want)
		if want == 0 {
			inLink = `!location.hash.includes("step=")` // the default is left out
		}
		tb.waitFor(fmt.Sprintf("the step to become %d", want),
			fmt.Sprintf(`headlab.state().step === %d && headlab.facts().step === %d && (%s) && location.hash === headlab.link()`, want, want, inLink))
	}
	press(kb.ArrowRight, 6)
	press(kb.ArrowRight, 7)
	press(kb.ArrowLeft, 6)
	press(kb.End, f.Steps)
	press(kb.ArrowRight, f.Steps) // nothing beyond the end
	press(kb.Home, 0)
	press(kb.ArrowLeft, 0)
}

// sweepH and sweepD are the size at which the browser test runs a noise sweep:
// H = 3, d = 3, which the page refused while the sweep made each of its
// runs whole within one frame (H²·(4Hd²−2H+1) = 927 was over that limit
// of 300); each run is now made a slice per frame.
const sweepH, sweepD = 3, 3

// sweepWatch is a noise sweep watched in the page: the progress seen, the
// gaps between the host page's animation frames while it computed, the
// facts at its end and the wall time.
type sweepWatch struct {
	seen []float64
	gaps []float64
	f    recoveryFacts
	wall time.Duration
}

// longest is the longest gap between the host page's frames.
func (w sweepWatch) longest() float64 {
	m := 0.0
	for _, g := range w.gaps {
		m = math.Max(m, g)
	}
	return m
}

// watchSweep computes the run of H heads at width d with a seed no other
// test uses (so nothing is cached), then opens its noise sweep and polls
// the facts until the sweep is done, recording the host page's frame
// gaps meanwhile.
func watchSweep(tb *tab, H, d int, timeout time.Duration) sweepWatch {
	tb.tb.Helper()
	seed := 424242 + 100*H + d // no other test uses it, so nothing is cached
	tb.tb.Logf("seed %d", seed)
	recoveryOpen(tb, fmt.Sprintf("#v=1&scene=recovery&H=%d&d=%d&seed=%d", H, d, seed))
	eval[bool](tb, `(() => { window.__gaps = []; window.__stop = false; let last = performance.now();
		const f = (t) => { window.__gaps.push(t - last); last = t; if (!window.__stop) requestAnimationFrame(f); };
		requestAnimationFrame(f); return true; })()`)
	start := time.Now()
	eval[json.RawMessage](tb, `headlab.open(headlab.link().replace("view=steps", "") + "&view=sweep")`)
	var w sweepWatch
	deadline := start.Add(timeout)
	for time.Now().Before(deadline) {
		w.f = recoveryFactsOf(tb)
		if w.f.Sweep == nil {
			tb.tb.Fatalf("no sweep in the facts\npage: %s", tb.describe())
		}
		w.seen = append(w.seen, w.f.Sweep.Progress)
		if w.f.Sweep.Done {
			break
		}
		tb.sleep(50 * time.Millisecond)
	}
	w.wall = time.Since(start)
	w.gaps = eval[[]float64](tb, `(() => { window.__stop = true; return window.__gaps.slice(2); })()`)
	return w
}

// recoverySweep runs a noise sweep at a size the page once refused and
// checks that progress increases to the end (the gaps between the host
// page's frames meanwhile are logged; BenchmarkRecoveryFrameGap measures
// them). A size beyond SweepCostLimit is still refused, with a message
// naming the limit, in the facts and the panel.
func recoverySweep(tb *tab) {
	eval[bool](tb, `(() => { window.__gaps = []; window.__stop = false; let last = performance.now();
		const f = (t) => { window.__gaps.push(t - last); last = t; if (!window.__stop) requestAnimationFrame(f); };
		requestAnimationFrame(f); return true; })()`)
	tb.sleep(2 * time.Second)
	idle := eval[[]float64](tb, `(() => { window.__stop = true; return window.__gaps.slice(2); })()`)
	mx := 0.0
	for _, g := range idle {
		mx = math.Max(mx, g)
	}
	tb.tb.Logf("idle: %d frames in 2 s, longest gap %.1f ms", len(idle), mx)
	if c := experiment.SweepCost(sweepH, sweepD); c <= 300 || c > experiment.SweepCostLimit {
		tb.tb.Fatalf("H = %d, d = %d (cost %d) is no size that was refused before and is computed now (limit %d)", sweepH, sweepD, c, experiment.SweepCostLimit)
	}
	w := watchSweep(tb, sweepH, sweepD, 3*time.Minute)
	f := w.f
	if !f.Sweep.Done || f.Sweep.Refused != "" {
		tb.tb.Fatalf("the sweep did not finish: progress %v, refused %q", w.seen, f.Sweep.Refused)
	}
	// The sweep is sliced: it was seen part done before it finished (a
	// sweep done in one frame would jump from nothing to done).
	part := false
	for i, p := range w.seen {
		part = part || (p > 0 && p < 1)
		if i > 0 && p < w.seen[i-1] {
			tb.tb.Errorf("progress went back: %v", w.seen)
			break
		}
	}
	if !part {
		tb.tb.Errorf("progress seen %v: the sweep was never seen part done", w.seen)
	}
	longest := w.longest()
	tb.tb.Logf("sweep at H=%d d=%d: %.1f s wall (polled every 50 ms), %d progress readings; %d host frames, longest gap %.1f ms; slowest run %.1f ms in its slices; largest H at 1e-6: %d",
		sweepH, sweepD, w.wall.Seconds(), len(w.seen), len(w.gaps), longest, f.Sweep.Slowest, f.Sweep.LargestH)
	// The sweep runs in the compute worker, so the host page's frame gaps
	// measure the machine, not the page: BenchmarkRecoveryFrameGap
	// measures them (the house rule: speed by benchmarks, not timed tests).
	if f.Sweep.LargestH < 1 {
		tb.tb.Errorf("largest H recovered at 1e-6: %d", f.Sweep.LargestH)
	}
	// Beyond the limit: refused at once, saying why, in the panel too.
	H, d := 4, 16
	if c := experiment.SweepCost(H, d); c <= experiment.SweepCostLimit {
		tb.tb.Fatalf("H = %d, d = %d (cost %d) is within the limit %d", H, d, c, experiment.SweepCostLimit)
	}
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(fmt.Sprintf("#v=1&scene=recovery&H=%d&d=%d&seed=5&view=sweep", H, d))))
	tb.waitFor("the sweep beyond the limit to be refused", `headlab.facts().sweep && headlab.facts().sweep.refused`)
	refused := recoveryFactsOf(tb).Sweep.Refused
	if !strings.Contains(refused, fmt.Sprint(experiment.SweepCostLimit)) {
		tb.tb.Errorf("the refusal does not name the limit %d: %q", experiment.SweepCostLimit, refused)
	}
	tb.waitFor("the panel to show the refusal", fmt.Sprintf(`document.body.innerText.includes(%s)`, jsString(refused)))
}

// BenchmarkRecoverySweep measures a whole noise sweep in the browser (wall
// time from opening the sweep view to done, polled every 50 ms, with the
// page drawing meanwhile) at the default size and at two of the largest
// sizes experiment.SweepCostLimit lets the page run (H = 4, d = 4 the slowest
// measured), with the longest gap between the host page's frames and the
// slowest run, which no frame computes whole.
func BenchmarkRecoverySweep(b *testing.B) {
	for _, c := range [][2]int{{3, 2}, {2, 11}, {4, 4}} {
		H, d := c[0], c[1]
		b.Run(fmt.Sprintf("H=%d,d=%d", H, d), func(b *testing.B) {
			var w sweepWatch
			for b.Loop() {
				tb := newTab(b)
				tb.load(h.base + "#v=1&scene=recovery&H=1&d=1")
				w = watchSweep(tb, H, d, 10*time.Minute)
				tb.close()
			}
			if !w.f.Sweep.Done {
				b.Fatalf("the sweep did not finish: %q", w.f.Sweep.Refused)
			}
			b.ReportMetric(w.wall.Seconds(), "sweep-s")
			b.ReportMetric(w.longest(), "gap-ms")
			b.ReportMetric(w.f.Sweep.Slowest, "slowest-run-ms")
		})
	}
}

// TestRecoveryNoFreeze opens the last step of a run of seconds (H = 3,
// d = 8, 763 queries) in a fresh page, so that nothing is cached, and
// checks that the run, computed in the compute worker, is seen part done,
// with progress that only grows (the host page's frame gaps meanwhile are
// logged; BenchmarkRecoveryFrameGap measures them). The finished run shows the numbers of recovery.Learn
// run here natively, bit for bit: the recovered layer, its self-check and
// its error.
func TestRecoveryNoFreeze(t *testing.T) {
	const H, d = 3, 8
	steps := recovery.PaperQueries(H, d)
	frag := fmt.Sprintf("#v=1&scene=recovery&H=%d&d=%d&seed=1&step=%d", H, d, steps)
	tb := newTab(t)
	tb.load(h.base + "#v=1&scene=recovery&H=1&d=1")
	gapsJS := `(() => { window.__gaps = []; window.__stop = false; let last = performance.now();
		const f = (t) => { window.__gaps.push(t - last); last = t; if (!window.__stop) requestAnimationFrame(f); };
		requestAnimationFrame(f); return true; })()`
	stopJS := `(() => { window.__stop = true; return window.__gaps.slice(2); })()`
	longestOf := func(gaps []float64) float64 {
		m := 0.0
		for _, g := range gaps {
			m = math.Max(m, g)
		}
		return m
	}
	eval[bool](tb, gapsJS)
	tb.sleep(500 * time.Millisecond)
	start := time.Now()
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(frag)))
	var seen []float64
	var texts []string
	var f recoveryFacts
	deadline := time.Now().Add(2 * time.Minute)
	for {
		f = recoveryFactsOf(tb)
		if !f.Computing {
			break
		}
		if f.RunProg == nil || f.Progress == nil {
			tb.tb.Fatalf("facts while computing carry no runProgress or progress\npage: %s", tb.describe())
		}
		seen = append(seen, *f.Progress)
		texts = append(texts, fmt.Sprintf("%d/%d queries, %d/%d columns", f.RunProg.Queries, f.RunProg.Planned, f.RunProg.Columns, f.RunProg.Width))
		if time.Now().After(deadline) {
			tb.tb.Fatalf("the run did not finish in 2 minutes: progress %v\npage: %s", seen, tb.describe())
		}
		tb.sleep(50 * time.Millisecond)
	}
	wall := time.Since(start)
	gaps := eval[[]float64](tb, stopJS)
	longest := longestOf(gaps)
	// The same page with nothing running, for scale.
	eval[bool](tb, gapsJS)
	tb.sleep(time.Second)
	idle := longestOf(eval[[]float64](tb, stopJS))
	tb.tb.Logf("H=%d d=%d: run finished in %.0f ms in the browser (wall, polled every 50 ms; %.0f ms computing in its slices); %d host frames, longest gap %.1f ms (idle afterwards %.1f ms); progress seen %v",
		H, d, float64(wall.Microseconds())/1000, f.LearnMs, len(gaps), longest, idle, seen)
	if len(texts) > 0 {
		tb.tb.Logf("first and last progress seen: %s … %s", texts[0], texts[len(texts)-1])
	}
	// The run is sliced: it was seen part done (a run done in one frame
	// would jump from nothing to done), and its progress only grew.
	part := false
	for i, p := range seen {
		part = part || (p > 0 && p < 1)
		if i > 0 && p < seen[i-1] {
			tb.tb.Errorf("progress went back: %v", seen)
			break
		}
	}
	if !part {
		tb.tb.Errorf("progress seen %v: the run was never seen part done", seen)
	}

	// The numbers are Learn's, bit for bit.
	s, _ := link.Parse(frag)
	layer := s.Recovery().TrueLayer()
	res, err := recovery.Learn(recovery.LayerOracle(layer, s.Noise, s.Seed), s.Recovery().Options(layer))
	if err != nil {
		tb.tb.Fatalf("natively the run fails: %v", err)
	}
	if f.Failed != nil {
		tb.tb.Fatalf("the run failed in the page: %s", f.Failed.Message)
	}
	if f.Steps != res.Queries || f.Step != res.Queries || f.Queries != res.Queries || f.Found != res.Heads {
		tb.tb.Errorf("step %d of %d, queries %d, %d heads found; natively %d queries, %d heads", f.Step, f.Steps, f.Queries, f.Found, res.Queries, res.Heads)
	}
	if f.Residual == nil || *f.Residual != res.Residual || f.Estimate == nil || *f.Estimate != res.Estimate {
		tb.tb.Errorf("self-check: residual %v, estimate %v; natively %v, %v", f.Residual, f.Estimate, res.Residual, res.Estimate)
	}
	want, err := attention.RelativeError(res.Layer, attention.Canonical(layer, 1e-9))
	if err != nil || f.Error == nil || *f.Error != want {
		tb.tb.Errorf("error %v, natively %v (%v)", f.Error, want, err)
	}
	if len(f.Recovered) != len(res.Layer) {
		tb.tb.Fatalf("%d heads shown, natively %d", len(f.Recovered), len(res.Layer))
	}
	for hd, got := range f.Recovered {
		w, v := res.Layer[hd].W, res.Layer[hd].V
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				if got.W[i][j] != w.At(i, j) {
					tb.tb.Errorf("head %d: W[%d][%d] = %v, natively %v", hd+1, i, j, got.W[i][j], w.At(i, j))
				}
			}
			if got.V[i] != v.AtVec(i) {
				tb.tb.Errorf("head %d: v[%d] = %v, natively %v", hd+1, i, got.V[i], v.AtVec(i))
			}
		}
	}
	tb.noProblems("the recovery scene computing a large run")
}

// BenchmarkRecoveryLearn measures the time to run the whole schedule in
// the browser for (H, d) = (3, 8) and (4, 16), as the page measures it
// (the time spent in the run's slices, frames between them not counted),
// and the same run natively here, with their ratio.
func BenchmarkRecoveryLearn(b *testing.B) {
	for _, c := range [][2]int{{3, 8}, {4, 16}} {
		H, d := c[0], c[1]
		b.Run(fmt.Sprintf("H=%d,d=%d", H, d), func(b *testing.B) {
			var browser, native float64
			failed := ""
			for b.Loop() {
				tb := newTab(b)
				seed := time.Now().UnixNano()%1000000 + 1000 // never cached
				frag := fmt.Sprintf("#v=1&scene=recovery&H=%d&d=%d&seed=%d", H, d, seed)
				tb.load(h.base + "#v=1&scene=recovery&H=1&d=1")
				f := recoveryOpen(tb, frag)
				browser = f.LearnMs
				if f.Failed != nil {
					failed = f.Failed.Message
				}
				tb.close()
				s, _ := link.Parse(frag)
				l := s.Recovery().TrueLayer()
				start := time.Now()
				recovery.Learn(recovery.LayerOracle(l, s.Noise, s.Seed), s.Recovery().Options(l))
				native = float64(time.Since(start).Microseconds()) / 1000
			}
			b.ReportMetric(browser, "browser-ms")
			b.ReportMetric(native, "native-ms")
			b.ReportMetric(browser/native, "ratio")
			if failed != "" {
				b.Logf("the run could not be resolved (it is timed to where it stopped): %s", failed)
			}
		})
	}
}

// TestStepAfterRun presses → the moment a run has finished, before the
// page's throttled sync (app.js, SYNC_EVERY) has caught up with it: the
// press must land. It was dropped as "computing" while the stepper read
// the facts of the last sync (BenchmarkSoak saw one such press in 2,640).
func TestStepAfterRun(t *testing.T) {
	tb := newTab(t)
	tb.load(h.base + "#v=1&scene=recovery&H=1&d=1")
	for seed := 20; seed < 26; seed++ {
		eval[any](tb, fmt.Sprintf(`headlab.open("#v=1&scene=recovery&H=2&d=3&seed=%d&step=3"), null`, seed))
		tb.focusPage()
		// A tight loop, so that → follows the run's end within milliseconds.
		if !eval[bool](tb, `new Promise((r) => { const t0 = performance.now(); const f = () => (!headlab.facts().computing ? r(true) : performance.now() - t0 > 120000 ? r(false) : setTimeout(f, 1)); f(); })`) {
			t.Fatalf("seed %d: the run did not finish within 2 minutes", seed)
		}
		tb.do("pressing →", chromedp.KeyEvent(kb.ArrowRight))
		tb.waitFor(fmt.Sprintf("seed %d: the step to become 4", seed), `headlab.state().step === 4 && headlab.facts().step === 4`)
	}
}
