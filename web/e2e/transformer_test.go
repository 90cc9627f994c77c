package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// transformerFacts is the part of the Transformer scene's facts the tests
// read.
type transformerFacts struct {
	Scene          string   `json:"scene"`
	Computing      bool     `json:"computing"`
	Step           int      `json:"step"`
	Steps          int      `json:"steps"`
	Queries        int      `json:"queries"`
	HeadQueries    int      `json:"headQueries"`
	UnitQueries    int      `json:"unitQueries"`
	Units          int      `json:"units"`
	TrueUnits      int      `json:"trueUnits"`
	Error          *float64 `json:"error"`
	Equivalent     *bool    `json:"equivalent"`
	RunQueries     int      `json:"runQueries"`
	RunHeadQueries int      `json:"runHeadQueries"`
	HeadBound      int      `json:"headBound"`
	IdealUnits     int      `json:"idealUnits"`
	Phase          string   `json:"phase"`
	LearnMs        float64  `json:"learnMs"`
	Failed         *struct {
		Message   string `json:"message"`
		Condition string `json:"condition"`
	} `json:"failed"`
}

func transformerFactsOf(tb *tab) transformerFacts {
	tb.tb.Helper()
	raw := eval[json.RawMessage](tb, "headlab.facts()")
	var f transformerFacts
	if err := json.Unmarshal(raw, &f); err != nil {
		tb.tb.Fatalf("facts %s: %v", shorten(string(raw), 300), err)
	}
	return f
}

// transformerWait waits until the scene's run has arrived from the
// compute worker and the address bar holds the scene's link.
func transformerWait(tb *tab, what string) transformerFacts {
	tb.tb.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 4*time.Minute)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`headlab.facts().scene === "transformer" && !headlab.facts().computing && location.hash === headlab.link()`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(4*time.Minute))); err != nil {
		tb.tb.Fatalf("%s: the run did not arrive: %v\npage: %s\nconsole: %s", what, err, tb.describe(), strings.Join(tb.takeProblems(), "\n"))
	}
	return transformerFactsOf(tb)
}

func transformerOpen(tb *tab, fragment string) transformerFacts {
	tb.tb.Helper()
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(fragment)))
	return transformerWait(tb, fragment)
}

// transformerBase is the run the test steps through: H = 2, d = 3, m = 3,
// K = 5, seed 1 (the tour's).
const transformerBase = "#v=1&scene=transformer&H=2&d=3&m=3&K=5&seed=1"

// TestTransformer drives the Transformer scene: the run computed in the
// compute worker, links to step 0, a middle step and the end with their
// facts, the result view, the arrow keys, and a link that reopens the same
// step in a fresh page. With HEADLAB_SHOTS set it writes a screenshot of
// each view there.
func TestTransformer(t *testing.T) {
	tb := newTab(t)
	tb.load(h.base + transformerBase)
	first := transformerWait(tb, "the first load")
	t.Logf("the run in the browser's compute worker: %.0f ms (H=2 d=3 m=3 K=5)", first.LearnMs)

	end := transformerOpen(tb, transformerBase+"&step=1000000")
	if end.Failed != nil {
		t.Fatalf("the run failed: %s", end.Failed.Message)
	}
	if end.Step != end.Steps || end.Steps < 10 {
		t.Errorf("step 10⁶ opened step %d of %d: a step beyond the end clamps to it", end.Step, end.Steps)
	}
	if !strings.Contains(eval[string](tb, "location.hash"), fmt.Sprintf("step=%d", end.Steps)) {
		t.Errorf("the link does not hold the clamped step: %s", eval[string](tb, "location.hash"))
	}
	if end.Queries != end.RunQueries || end.HeadQueries+end.UnitQueries != end.Queries || end.HeadQueries != end.RunHeadQueries {
		t.Errorf("at the end: queries %d = %d + %d, the run's %d (heads %d)", end.Queries, end.HeadQueries, end.UnitQueries, end.RunQueries, end.RunHeadQueries)
	}
	if end.HeadQueries != end.HeadBound {
		t.Errorf("phase A made %d oracle calls; 2·(the schedule's count) is %d", end.HeadQueries, end.HeadBound)
	}
	if end.Units != 5 || end.TrueUnits != 5 {
		t.Errorf("units %d of %d", end.Units, end.TrueUnits)
	}
	if end.Error == nil || !(*end.Error < 1e-20) || end.Equivalent == nil || !*end.Equivalent {
		t.Errorf("error %v, equivalent %v: want a held-out |ΔF| below 1e-20 and equivalence", end.Error, end.Equivalent)
	}
	tb.frames(5) // the canvas has drawn the step
	tb.shoot("transformer-end")

	zero := transformerOpen(tb, transformerBase+"&step=0")
	if zero.Step != 0 || zero.Queries != 0 || zero.Units != 0 || zero.Error != nil || zero.Phase != "" {
		t.Errorf("step 0: %+v", zero)
	}
	midStep := end.Steps/2 + end.Steps/4 // in phase B for this run
	mid := transformerOpen(tb, transformerBase+fmt.Sprintf("&step=%d", midStep))
	if mid.Step != midStep || mid.Queries <= 0 || mid.Queries >= end.Queries || mid.HeadQueries+mid.UnitQueries != mid.Queries || mid.Error != nil {
		t.Errorf("step %d: %+v", midStep, mid)
	}
	tb.frames(5) // the canvas has drawn the step
	tb.shoot("transformer-phase-b")
	a := transformerOpen(tb, transformerBase+"&step=20")
	if a.Phase != "heads" || a.UnitQueries != 0 || a.HeadQueries <= 0 {
		t.Errorf("step 20 is in phase A: %+v", a)
	}
	tb.frames(5) // the canvas has drawn the step
	tb.shoot("transformer-phase-a")

	// The arrow keys step, the link follows.
	transformerOpen(tb, transformerBase+"&step=40")
	tb.focusPage()
	press := func(k string, want int) {
		t.Helper()
		tb.do("pressing a key", chromedp.KeyEvent(k))
		tb.waitFor(fmt.Sprintf("the step to become %d", want), fmt.Sprintf(
			`headlab.state().step === %d && headlab.facts().step === %d && (location.hash.includes("step=%d&") || location.hash.endsWith("step=%d")) && location.hash === headlab.link()`,
			want, want, want, want))
	}
	press(kb.ArrowRight, 41)
	press(kb.ArrowRight, 42)
	press(kb.ArrowLeft, 41)
	press(kb.End, end.Steps)
	press(kb.ArrowRight, end.Steps)

	// The link reopens the same step, in a fresh page.
	transformerOpen(tb, transformerBase+fmt.Sprintf("&step=%d", midStep))
	l := eval[string](tb, "headlab.link()")
	again := newTab(t)
	again.load(h.base + l)
	got := transformerWait(again, "the reopened link")
	if got.Step != mid.Step || got.Queries != mid.Queries || got.Units != mid.Units || got.UnitQueries != mid.UnitQueries {
		t.Errorf("the link %s reopened step %d (%d queries, %d units), want step %d (%d, %d)", l, got.Step, got.Queries, got.Units, mid.Step, mid.Queries, mid.Units)
	}
	again.noProblems("the reopened transformer link")
	again.close()

	res := transformerOpen(tb, transformerBase+"&view=result")
	if res.Error == nil || res.Equivalent == nil || res.Queries != end.Queries || res.Units != end.Units {
		t.Errorf("the result view: %+v", res)
	}
	tb.frames(5) // the canvas has drawn the step
	tb.shoot("transformer-result")

	// The run at the page's limits, timed in the worker (logged, not
	// asserted: the machine may be busy).
	for _, lim := range []string{"#v=1&scene=transformer&H=2&d=4&m=6&K=8&seed=1", "#v=1&scene=transformer&H=3&d=4&m=6&K=8&seed=1"} {
		f := transformerOpen(tb, lim)
		outcome := "recovered"
		if f.Failed != nil {
			outcome = "condition " + f.Failed.Condition
		}
		t.Logf("%s: %.0f ms in the compute worker, %d steps, %s", lim, f.LearnMs, f.Steps, outcome)
	}

	// Changing the set-up while a run computes cancels its job in the
	// compute worker; the new set-up's run is what the page shows.
	const slow = "#v=1&scene=transformer&H=3&d=4&m=6&K=8&seed=4242"
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(slow)))
	tb.pollFor("the slow run to start", computeJS+`.log.some((e) => e.key.includes("seed=4242") && e.op === "running")`)
	next := transformerOpen(tb, "#v=1&scene=transformer&H=1&d=2&m=2&K=3&seed=4243")
	if eval[float64](tb, "headlab.state().seed") != 4243 || next.Steps == 0 {
		t.Errorf("after changing the set-up: link %s, facts %+v", eval[string](tb, "headlab.link()"), next)
	}
	tb.pollFor("the slow run to be cancelled", computeJS+`.log.some((e) => e.key.includes("seed=4242") && (e.op === "cancelled" || e.op === "done"))`)
	for _, e := range computeLog(tb) {
		if strings.Contains(e.Key, "seed=4242") {
			t.Logf("the replaced run's job: %s after %.0f ms", e.Op, e.Ms)
		}
	}

	// A set-up beyond the limits is clamped with a notice naming it.
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString("#v=1&scene=transformer&H=2&d=3&m=3&K=12&seed=1")))
	tb.waitFor("a notice naming K", `headlab.errors.some((e) => String(e).includes("K up to 8") || String(e).includes("maximum 8"))`)
	tb.takeProblems()
}
