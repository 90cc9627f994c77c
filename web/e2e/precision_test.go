package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// precisionSeed draws an H = 6, d = 2 layer float64 cannot resolve (held
// out from the numerics tests, which use their own seeds).
const precisionSeed = 77

// TestRecoveryPrecision opens a run float64 cannot resolve: the scene says
// so and offers the precision it needs; taking the offer recomputes the run
// in the compute worker at that precision, which recovers the layer, and
// the link carries prec.
func TestRecoveryPrecision(t *testing.T) {
	t.Logf("seed %d", precisionSeed)
	tb := newTab(t)
	defer tb.close()
	tb.load(h.base + fmt.Sprintf("#v=1&scene=recovery&H=6&d=2&seed=%d&view=result", precisionSeed))
	tb.waitFor("the float64 run to end unresolved", "headlab.facts().failed && headlab.facts().failed.needPrec > 0")
	need := eval[float64](tb, "headlab.facts().failed.needPrec")
	if msg := eval[string](tb, `document.getElementById("rec-status").textContent`); len(msg) == 0 {
		t.Errorf("no status shown for the unresolved run")
	}
	tb.waitFor("the offer to recompute", `!document.getElementById("rec-recompute").hidden`)
	tb.click("#rec-recompute")
	tb.waitFor("the extended run to end", "headlab.state().prec > 0 && typeof headlab.facts().error === 'number'")
	if got := eval[float64](tb, "headlab.state().prec"); got != need {
		t.Errorf("prec = %v, the offer was %v", got, need)
	}
	if e := eval[float64](tb, "headlab.facts().error"); !(e <= 1e-12) {
		t.Errorf("at %v bits the largest relative error is %g", need, e)
	}
	if link := eval[string](tb, "headlab.link()"); !strings.Contains(link, fmt.Sprintf("prec=%d", int(need))) {
		t.Errorf("the link %s does not carry prec", link)
	}
	tb.noProblems("recomputing in extended precision")
}
