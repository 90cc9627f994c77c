package replay

import (
	"testing"

	"headlab/numerics/experiment"
)

// TestAt replays a whole recovery run (H = 2, d = 2, seed 1) query by
// query: each step's view names the RF and sample of its query, the
// samples of an RF taken only grow and include the current one (a sample
// can come from an earlier query), its fit shows only once all are in, and
// no step outside 1…queries has a view.
func TestAt(t *testing.T) {
	run, err := experiment.Learn(experiment.Pacer{}, experiment.Recovery{H: 2, D: 2, Seed: 1})
	if err != nil || run.Err != nil {
		t.Fatalf("run: %v %v", err, run.Err)
	}
	tr := &run.Result.Trace
	n := len(tr.Queries)
	if _, ok := At(tr, 0); ok {
		t.Fatal("step 0 has a view")
	}
	if _, ok := At(tr, n+1); ok {
		t.Fatal("a step past the end has a view")
	}
	taken := map[int]int{}
	for step := 1; step <= n; step++ {
		v, ok := At(tr, step)
		q := tr.Queries[step-1]
		if !ok || v.Index != q.RF || v.Current != q.Sample || v.RF != &tr.RFs[q.RF] {
			t.Fatalf("step %d: view %+v for query %+v", step, v, q)
		}
		if v.Taken < taken[q.RF] || v.Taken < v.Current+1 {
			t.Fatalf("step %d: %d samples of %s taken, %d before", step, v.Taken, v.RF.Name(), taken[q.RF])
		}
		taken[q.RF] = v.Taken
		if v.Fitted != (v.Taken == len(v.RF.N)) {
			t.Fatalf("step %d: fitted %v with %d of %d samples", step, v.Fitted, v.Taken, len(v.RF.N))
		}
		if int(v.RF.N[v.Current]) != v.N {
			t.Fatalf("step %d: n = %d, sample %g", step, v.N, v.RF.N[v.Current])
		}
	}
}

// TestTransformerSteps replays a run (H = 1, d = 2, m = 2, K = 2, seed 3)
// step by step: the step is clamped to the run, the counts of every step
// only grow and add up to the run's at the end, phase A comes before
// phase B, and phase A at the end has made every query of its trace and
// pairs every head of the odd part.
func TestTransformerSteps(t *testing.T) {
	setup := experiment.Transformer{H: 1, D: 2, M: 2, K: 2, Seed: 3}
	run, err := experiment.LearnTransformer(experiment.Pacer{}, setup)
	if err != nil || run.Err != nil {
		t.Fatalf("run: %v %v", err, run.Err)
	}
	res := run.Result
	end := NewTransformer(setup, 1<<30)
	if end.NetErr != nil || end.Step() != 1<<30 {
		t.Fatalf("before the run: step %d, %v", end.Step(), end.NetErr)
	}
	end.Finish(run)
	if end.Step() != len(res.Steps) || !end.AtEnd() {
		t.Fatalf("step %d of %d", end.Step(), len(res.Steps))
	}
	c := CountSteps(end.Done())
	if c.Queries != res.Queries || c.Head != res.HeadQueries || c.Unit != res.UnitQueries || c.Units != len(res.Net.Units) {
		t.Fatalf("counts %+v against the run's %d = %d + %d queries, %d units", c, res.Queries, res.HeadQueries, res.UnitQueries, len(res.Net.Units))
	}
	p, ok := end.PhaseA()
	if !ok || p.Step() != len(res.Heads.Trace.Queries) || !(p.Error < 1e-9) {
		t.Fatalf("phase A at the end: %v, step %d of %d, error %g", ok, p.Step(), len(res.Heads.Trace.Queries), p.Error)
	}
	if pair, _ := p.Pairing(); len(pair) != len(end.Odd) {
		t.Fatalf("pairing %v of %d heads", pair, len(end.Odd))
	}
	prev, phaseB := Counts{}, false
	for k := 0; k <= len(res.Steps); k++ {
		tr := NewTransformer(setup, k)
		tr.Finish(run)
		c := CountSteps(tr.Done())
		if c.Queries < prev.Queries || c.Units < prev.Units || c.Kinks < prev.Kinks {
			t.Fatalf("step %d: counts %+v after %+v", k, c, prev)
		}
		switch tr.Phase() {
		case "units":
			phaseB = true
		case "heads":
			if phaseB {
				t.Fatalf("step %d: phase A after phase B", k)
			}
		}
		prev = c
	}
}
