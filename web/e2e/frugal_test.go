package e2e

import (
	"fmt"
	"strings"
	"testing"

	"headlab/numerics/recovery"
)

// TestRecoveryFrugal steps a frugal run to its end: at (H, d) = (2, 4)
// with seed 5 no measurement needs more than H+1 samples, so the queries
// are exactly 2H(2d−1)+1+(H+1)(d²−d) = 65, the error is at most 1e-12,
// and the link of a middle step, loaded afresh, reopens that step.
func TestRecoveryFrugal(t *testing.T) {
	const H, d = 2, 4
	base := fmt.Sprintf("#v=1&scene=recovery&mode=frugal&H=%d&d=%d&seed=5", H, d)
	tb := newTab(t)
	tb.load(h.base + base)
	end := recoveryOpen(tb, base+"&step=1000000")
	if end.Failed != nil {
		t.Fatalf("the frugal run failed: %s", end.Failed.Message)
	}
	want := recovery.FrugalQueries(H, d)
	if end.Steps != want || end.Queries != want || end.Step != want {
		t.Errorf("frugal H=%d d=%d: step %d, queries %d of %d, want %d", H, d, end.Step, end.Queries, end.Steps, want)
	}
	if end.Error == nil || !(*end.Error <= 1e-12) {
		t.Errorf("frugal: error at the end %v, want ≤ 1e-12", end.Error)
	}
	if end.MaxLength != 2*H+1 {
		t.Errorf("frugal: longest query %d, want 2H+1 = %d", end.MaxLength, 2*H+1)
	}
	mid := want - 7 // a frugal measurement of the last column
	f := recoveryOpen(tb, fmt.Sprintf("%s&step=%d", base, mid))
	if f.Step != mid || f.Queries != mid {
		t.Errorf("frugal: link to step %d opened step %d (queries %d)", mid, f.Step, f.Queries)
	}
	hash := eval[string](tb, "location.hash")
	if !strings.Contains(hash, fmt.Sprintf("step=%d", mid)) || !strings.Contains(hash, "mode=frugal") {
		t.Fatalf("frugal: the link %q does not hold the mode and step", hash)
	}
	again := newTab(t)
	again.load(h.base + hash)
	g := recoveryOpen(again, hash)
	if g.Step != mid || g.Steps != want {
		t.Errorf("frugal: the link reopened step %d of %d, want %d of %d", g.Step, g.Steps, mid, want)
	}
	tb.noProblems("the frugal recovery scene")
}
