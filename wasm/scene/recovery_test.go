package scene

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
	"headlab/web/link"
)

// recoveryAt returns the computed Recovery scene of a link.
func recoveryAt(t *testing.T, fragment string) *Recovery {
	t.Helper()
	s, notes := link.Parse(fragment)
	if len(notes) > 0 {
		t.Fatalf("%s: notices %v", fragment, notes)
	}
	sc, err := New(s, testLab)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := sc.(*Recovery)
	if !ok {
		t.Fatalf("%s: scene %T", fragment, sc)
	}
	r.Compute()
	return r
}

// TestRecoveryReplay steps through whole runs and checks the step model
// against the run: the step views, replayed as an oracle (query k answered
// with the sample the view of step k+1 shows, after checking that the
// learner asks for exactly the tokens the view draws), make Learn
// reproduce the final layer bit for bit; the counters follow the steps.
func TestRecoveryReplay(t *testing.T) {
	for _, c := range []struct {
		H, d int
		mode string
	}{{1, 1, "paper"}, {2, 3, "paper"}, {2, 3, "economy"}, {3, 2, "paper"}, {2, 2, "economy"}} {
		t.Run(fmt.Sprintf("H=%d,d=%d,%s", c.H, c.d, c.mode), func(t *testing.T) {
			r := recoveryAt(t, fmt.Sprintf("#v=1&scene=recovery&H=%d&d=%d&seed=5&mode=%s", c.H, c.d, c.mode))
			if r.Err != nil {
				t.Fatalf("the run failed: %v", r.Err)
			}
			steps := r.Steps()
			if c.mode == "paper" && steps != recovery.PaperQueries(c.H, c.d) {
				t.Errorf("paper mode: %d steps, want 4Hd²−2H+1 = %d", steps, recovery.PaperQueries(c.H, c.d))
			}
			if c.mode == "economy" && steps < recovery.EconomyQueries(c.H, c.d) {
				t.Errorf("economy mode: %d steps, fewer than 2H(d²+d−1)+1 = %d", steps, recovery.EconomyQueries(c.H, c.d))
			}
			if _, ok := r.ViewAt(0); ok {
				t.Error("step 0 shows a rational function")
			}
			type ask struct {
				a, z []float64
				n    int
				y    float64
			}
			var asks []ask
			longest := 0
			for k := 1; k <= steps; k++ {
				v, ok := r.ViewAt(k)
				if !ok {
					t.Fatalf("step %d has no view", k)
				}
				rf := v.RF
				if rf.Query[v.Current] != k-1 {
					t.Fatalf("step %d shows sample %d of %s, made by query %d", k, v.Current, rf.Name(), rf.Query[v.Current])
				}
				for i, q := range rf.Query {
					if (i < v.Taken) != (q < k) {
						t.Fatalf("step %d: sample %d of %s (query %d) taken=%v", k, i, rf.Name(), q, i < v.Taken)
					}
				}
				asks = append(asks, ask{rf.A, rf.Z, v.N, rf.F[v.Current]})
				longest = max(longest, v.N+1)
				s := r.State
				s.Step = k
				rk, err := NewRecovery(s, testLab)
				if err != nil {
					t.Fatal(err)
				}
				f := rk.Facts()
				if f["queries"] != k || f["step"] != k || f["steps"] != steps || f["maxLength"] != longest {
					t.Fatalf("step %d: facts queries %v step %v steps %v maxLength %v (want %d, %d)", k, f["queries"], f["step"], f["steps"], f["maxLength"], longest, steps)
				}
				if _, ok := f["error"]; ok != (k == steps) {
					t.Fatalf("step %d of %d: error reported = %v", k, steps, ok)
				}
			}
			if longest != r.Result.MaxLength || longest > 2*c.H+1 {
				t.Errorf("longest query %d, run %d, bound 2H+1 = %d", longest, r.Result.MaxLength, 2*c.H+1)
			}
			k := 0
			replay := func(X *mat.Dense) float64 {
				if k >= len(asks) {
					t.Fatalf("the learner asks query %d beyond the %d steps", k, len(asks))
				}
				want := asks[k]
				rows, _ := X.Dims()
				if rows != want.n+1 {
					t.Fatalf("query %d: %d tokens, the view shows %d", k, rows, want.n+1)
				}
				for i := 0; i < rows; i++ {
					tok := want.a
					if i == rows-1 {
						tok = want.z
					}
					for j, x := range X.RawRowView(i) {
						if x != tok[j] {
							t.Fatalf("query %d token %d differs from the view's", k, i)
						}
					}
				}
				k++
				return want.y
			}
			res, err := recovery.Learn(replay, r.Options)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if k != steps {
				t.Errorf("replay made %d queries, %d steps", k, steps)
			}
			if len(res.Layer) != len(r.Result.Layer) {
				t.Fatalf("replay found %d heads, the run %d", len(res.Layer), len(r.Result.Layer))
			}
			for h := range res.Layer {
				if !mat.Equal(res.Layer[h].W, r.Result.Layer[h].W) || !mat.Equal(res.Layer[h].V, r.Result.Layer[h].V) {
					t.Errorf("head %d differs after the replay", h)
				}
			}
			end := r.State
			end.Step = steps
			re, _ := NewRecovery(end, testLab)
			f := re.Facts()
			if e, ok := f["error"].(float64); !ok || e > 1e-9 {
				t.Errorf("error at the end %v", f["error"])
			}
			if e, _ := attention.RelativeError(factsLayer(t, f["recovered"]), attention.Canonical(r.True, 1e-9)); e > 1e-9 {
				t.Errorf("the recovered layer in the facts is off by %v", e)
			}
			if _, err := json.Marshal(f); err != nil {
				t.Errorf("facts do not marshal: %v", err)
			}
		})
	}
}

// factsLayer reads heads back from layerFacts.
func factsLayer(t *testing.T, v any) attention.Layer {
	heads, ok := v.([]map[string]any)
	if !ok {
		t.Fatalf("heads %T", v)
	}
	var l attention.Layer
	for _, hd := range heads {
		w := hd["W"].([][]float64)
		d := len(w)
		W := mat.NewDense(d, d, nil)
		for i := range w {
			W.SetRow(i, w[i])
		}
		l = append(l, attention.Head{W: W, V: mat.NewVecDense(d, hd["v"].([]float64))})
	}
	return l
}

// TestRecoveryClamp opens a step beyond the run's end: it clamps to the
// last step with a notice, both when the run is cached and when the Job
// computes it.
func TestRecoveryClamp(t *testing.T) {
	frag := "#v=1&scene=recovery&H=2&d=2&seed=4242&step=99999"
	s, _ := link.Parse(frag)
	r, err := NewRecovery(s, testLab)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Computing() {
		t.Fatal("a run never made before is cached")
	}
	j := r.Job()
	if j == nil {
		t.Fatal("no job for an uncached run")
	}
	if j.Step() {
		t.Fatal("the job finished in its first slice, before a frame could say it computes")
	}
	if !r.Computing() || len(r.Notices()) != 0 {
		t.Fatal("the first slice computed")
	}
	for n := 0; !j.Step(); n++ {
		if n > 100000 {
			t.Fatal("the job does not finish")
		}
	}
	want := recovery.PaperQueries(2, 2)
	check := func(r *Recovery, how string) {
		if r.Step() != want || r.Link().Step != want || r.Facts()["step"] != want {
			t.Errorf("%s: step %d, link step %d, want %d", how, r.Step(), r.Link().Step, want)
		}
		ns := r.Notices()
		if len(ns) != 1 || ns[0].Key != "step" || ns[0].Value != "99999" || !strings.Contains(ns[0].Message, fmt.Sprint(want)) {
			t.Errorf("%s: notices %v", how, ns)
		}
		if !strings.Contains(r.Link().Link(), fmt.Sprintf("step=%d", want)) {
			t.Errorf("%s: link %s", how, r.Link().Link())
		}
	}
	check(r, "computed by the job")
	cached, _ := NewRecovery(s, testLab)
	if cached.Computing() || cached.Job() != nil {
		t.Fatal("the run was not cached")
	}
	check(cached, "cached")
	// A step inside the run is kept without notice.
	s.Step = 7
	in, _ := NewRecovery(s, testLab)
	if in.Step() != 7 || len(in.Notices()) != 0 {
		t.Errorf("step 7: %d, notices %v", in.Step(), in.Notices())
	}
}

// TestRecoveryJobSlices computes a run through the Job a checkpoint at a
// time (a lab whose slices are empty): the scene says it computes, with
// progress that only grows, in its facts and its description; a scene for
// another step of the same run, made half way, carries on with the run
// rather than starting again; and the run is Learn's, bit for bit.
func TestRecoveryJobSlices(t *testing.T) {
	lab := NewLab()
	lab.recovery.slice = 0
	s, _ := link.Parse("#v=1&scene=recovery&H=2&d=3&seed=31&step=4")
	r, err := NewRecovery(s, lab)
	if err != nil {
		t.Fatal(err)
	}
	j := r.Job()
	if j == nil || j.Step() {
		t.Fatal("no job, or it finished in its first slice")
	}
	if p := r.RunProgress(); p.Queries != 0 || p.Planned != recovery.PaperQueries(2, 3) || p.Width != 3 {
		t.Fatalf("progress before the run: %+v", p)
	}
	var last recovery.Progress
	check := func(r *Recovery, j Job) {
		t.Helper()
		p := r.RunProgress()
		if p.Fraction < last.Fraction || p.Queries < last.Queries || p.Columns < last.Columns || p.Fraction > 1 || p.Queries > p.Planned {
			t.Fatalf("progress %+v after %+v", p, last)
		}
		if jp := j.Progress(); jp != p.Fraction {
			t.Fatalf("the job reports %v, the run %v", jp, p.Fraction)
		}
		f := r.Facts()
		rp, ok := f["runProgress"].(map[string]any)
		if f["computing"] != true || !ok || rp["queries"] != p.Queries || rp["planned"] != p.Planned {
			t.Fatalf("facts while computing: computing %v, runProgress %v", f["computing"], f["runProgress"])
		}
		if d := r.Describe(); !strings.Contains(d, fmt.Sprintf("%d of %d queries", p.Queries, p.Planned)) {
			t.Fatalf("description while computing: %q", d)
		}
		last = p
	}
	for n := 0; n < 100; n++ {
		if j.Step() {
			t.Fatal("the run finished within 100 checkpoints")
		}
		check(r, j)
	}
	if last.Queries == 0 {
		t.Fatal("no query made in 100 checkpoints")
	}
	// The user steps on while the run computes.
	s.Step = 5
	r2, err := NewRecovery(s, lab)
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Computing() {
		t.Fatal("the unfinished run counts as cached")
	}
	j2 := r2.Job()
	if j2 == nil || j2.Step() {
		t.Fatal("no job for the new step, or it finished in its first slice")
	}
	check(r2, j2) // the run carries on: its progress is no less
	for n := 0; !j2.Step(); n++ {
		if n > 1000000 {
			t.Fatal("the job does not finish")
		}
		check(r2, j2)
	}
	if r2.Computing() || r2.Step() != 5 || r2.Err != nil {
		t.Fatalf("after the job: computing %v, step %d, error %v", r2.Computing(), r2.Step(), r2.Err)
	}
	if _, ok := r2.Facts()["runProgress"]; ok {
		t.Error("runProgress in the facts of a computed run")
	}
	if p := r2.RunProgress(); p.Fraction != 1 || p.Queries != r2.Steps() {
		t.Errorf("progress of the computed run: %+v", p)
	}
	want, err := recovery.Learn(recovery.LayerOracle(r2.True, 0, s.Seed), r2.Options)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Layer) != len(r2.Result.Layer) || want.Queries != r2.Result.Queries {
		t.Fatalf("Learn finds %d heads in %d queries, the job %d in %d", len(want.Layer), want.Queries, len(r2.Result.Layer), r2.Result.Queries)
	}
	for h := range want.Layer {
		if !mat.Equal(want.Layer[h].W, r2.Result.Layer[h].W) || !mat.Equal(want.Layer[h].V, r2.Result.Layer[h].V) {
			t.Errorf("head %d differs from Learn's", h)
		}
	}
	// The old scene's job finishes at once from the cache.
	for n := 0; !j.Step(); n++ {
		if n > 1 {
			t.Fatal("the first scene's job does not take the cached run")
		}
	}
	if r.Computing() || r.Step() != 4 {
		t.Errorf("the first scene: computing %v, step %d", r.Computing(), r.Step())
	}
}

// TestRecoveryPendingBound leaves runs unfinished under more states than
// the lab keeps: the oldest is stopped and dropped, and opening its state
// again starts it afresh and finishes it.
func TestRecoveryPendingBound(t *testing.T) {
	lab := NewLab()
	lab.recovery.slice = 0
	var scenes []*Recovery
	for seed := 41; seed < 41+maxPending+1; seed++ {
		s, _ := link.Parse(fmt.Sprintf("#v=1&scene=recovery&H=2&d=2&seed=%d", seed))
		r, err := NewRecovery(s, lab)
		if err != nil {
			t.Fatal(err)
		}
		j := r.Job()
		for n := 0; n < 20; n++ {
			if j.Step() {
				t.Fatal("a run finished within 20 checkpoints")
			}
		}
		scenes = append(scenes, r)
	}
	if n := len(lab.recovery.pending); n != maxPending {
		t.Errorf("%d runs pending, want %d", n, maxPending)
	}
	if p := scenes[0].RunProgress(); p.Queries != 0 {
		t.Errorf("the dropped run still reports progress %+v", p)
	}
	if p := scenes[maxPending].RunProgress(); p.Queries == 0 {
		t.Errorf("the latest run reports no progress")
	}
	j := scenes[0].Job()
	for n := 0; !j.Step(); n++ {
		if n > 1000000 {
			t.Fatal("the restarted run does not finish")
		}
	}
	if scenes[0].Err != nil || scenes[0].Error > 1e-6 {
		t.Errorf("the restarted run: %v, error %v", scenes[0].Err, scenes[0].Error)
	}
}

// TestRecoveryLinkRows checks the matching the step view explains: in
// every link RF of a paper-mode run each pole's p equals the sum of the p
// of the measurements it links for the head it was matched to, and its r
// the sum of their r (MATH.md §3.3).
func TestRecoveryLinkRows(t *testing.T) {
	r := recoveryAt(t, "#v=1&scene=recovery&H=3&d=2&seed=11")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	links := 0
	for k, rf := range r.Result.Trace.RFs {
		rows := r.LinkRows(k)
		if rf.Kind == recovery.Measurement {
			if rows != nil {
				t.Errorf("%s: link rows for a measurement", rf.Name())
			}
			continue
		}
		links++
		if len(rows) != 3 {
			t.Fatalf("%s: %d rows", rf.Name(), len(rows))
		}
		seen := map[int]bool{}
		for _, row := range rows {
			seen[row.Head] = true
			if len(row.Terms) != 2 {
				t.Errorf("%s: %d terms", rf.Name(), len(row.Terms))
			}
			if math.Abs(row.P-row.Sum) > 1e-6*(1+math.Abs(row.P)) || math.Abs(row.R-row.RSum) > 1e-6*(1+math.Abs(row.R)) {
				t.Errorf("%s head %d: p %v vs Σ %v, r %v vs Σ %v", rf.Name(), row.Head, row.P, row.Sum, row.R, row.RSum)
			}
		}
		if len(seen) != 3 {
			t.Errorf("%s: heads %v", rf.Name(), seen)
		}
	}
	if links != 2*2-1 {
		t.Errorf("%d links, want d²−1 = 3", links)
	}
}

// TestRecoveryFailure checks that a run the float64 numbers cannot resolve
// says where and why, and reports no error or recovered layer.
func TestRecoveryFailure(t *testing.T) {
	r := recoveryAt(t, "#v=1&scene=recovery&H=3&d=3&seed=3&noise=0.01&step=99999")
	if r.Err == nil {
		t.Skip("this run resolved; the numerics improved: pick a harder case")
	}
	f := r.Facts()
	fl, ok := f["failed"].(map[string]any)
	if !ok || fl["message"] == "" {
		t.Fatalf("failed %v", f["failed"])
	}
	if _, ok := f["error"]; ok {
		t.Error("a failed run reports an error")
	}
	if _, ok := f["recovered"]; ok {
		t.Error("a failed run reports a layer")
	}
	if !strings.Contains(r.Describe(), "could not") && r.State.View == "result" {
		t.Error(r.Describe())
	}
}

// TestRecoveryCanonical checks that duplicated and cancelling heads are
// merged before learning: the learner is told the canonical count and
// recovers it.
func TestRecoveryCanonical(t *testing.T) {
	r := recoveryAt(t, "#v=1&scene=recovery&H=2&d=2&seed=8&dup=1&cancel=1&step=99999")
	if len(r.True) != 2+1+2 || len(r.Canonical) != 2 || r.Heads() != 2 {
		t.Fatalf("true %d heads, canonical %d, told %d", len(r.True), len(r.Canonical), r.Heads())
	}
	if r.Err != nil || r.Error > 1e-9 {
		t.Fatalf("err %v, error %v", r.Err, r.Error)
	}
}

// TestRecoverySweep runs a whole noise sweep through the job and checks
// the error grows like ε: the log–log slope of the median between 1e-12
// and 1e-6 is near 1, and the scan over H recovers at least H = 1.
func TestRecoverySweep(t *testing.T) {
	r := recoveryAt(t, "#v=1&scene=recovery&H=1&d=2&seed=21&view=sweep")
	j := r.Job()
	if j == nil {
		t.Fatal("no sweep job")
	}
	last := -1.0
	for n := 0; !j.Step(); n++ {
		p := j.Progress()
		if p < last || p > 1 {
			t.Fatalf("progress %v after %v", p, last)
		}
		last = p
		if n > 1000 {
			t.Fatal("the sweep does not finish")
		}
	}
	st := r.Sweep()
	if !st.Done || st.Refused != "" || len(st.Points) != len(sweepNoise) {
		t.Fatalf("sweep %+v", st)
	}
	var lo, hi SweepPoint
	for _, p := range st.Points {
		if len(p.Errors) != SweepSeeds {
			t.Errorf("ε = %g: %d runs", p.Eps, len(p.Errors))
		}
		switch p.Eps {
		case 1e-12:
			lo = p
		case 1e-6:
			hi = p
		}
	}
	slope := math.Log10(hi.Median/lo.Median) / 6
	t.Logf("medians %v…%v, slope %.2f, largest H %d (tried %v)", lo.Median, hi.Median, slope, st.Largest, st.Tried)
	if !(slope > 0.6 && slope < 1.4) {
		t.Errorf("log–log slope %v between ε = 1e-12 and 1e-6", slope)
	}
	if st.Largest < 1 {
		t.Errorf("largest H recovered at 1e-6: %d", st.Largest)
	}
	if _, err := json.Marshal(r.Facts()); err != nil {
		t.Error(err)
	}
	// A size beyond the limit is refused with a message naming it.
	if SweepCost(3, 8) <= SweepCostLimit {
		t.Fatalf("H = 3, d = 8 is within the limit %d", SweepCostLimit)
	}
	big := recoveryAt(t, "#v=1&scene=recovery&H=3&d=8&seed=21&view=sweep")
	if s := big.Sweep(); !strings.Contains(s.Refused, fmt.Sprint(SweepCostLimit)) || big.Job() != nil {
		t.Errorf("H = 3, d = 8: refused %q", s.Refused)
	}
}

// learnError is the error of one run of the sweep made whole by
// recovery.Learn: the largest relative error of the recovered layer
// against the canonical true one, NaN when the run fails.
func learnError(t link.State, eps float64) float64 {
	t.Noise = eps
	layer, err := trueLayer(t)
	if err != nil {
		return math.NaN()
	}
	res, err := recovery.Learn(recovery.LayerOracle(layer, eps, t.Seed), t.LearnOptions(layer))
	if err != nil {
		return math.NaN()
	}
	e, err := attention.RelativeError(res.Layer, attention.Canonical(layer, CanonicalTol))
	if err != nil || !finite(e) {
		return math.NaN()
	}
	return e
}

// sameSweep says where two sweeps differ, bit for bit ("" when they do
// not): the errors per ε and seed, and the scan over H.
func sameSweep(a, b *sweep) string {
	for i := range sweepNoise {
		if len(a.errs[i]) != len(b.errs[i]) {
			return fmt.Sprintf("ε = %g: %d runs against %d", sweepNoise[i], len(a.errs[i]), len(b.errs[i]))
		}
		for k := range a.errs[i] {
			if math.Float64bits(a.errs[i][k]) != math.Float64bits(b.errs[i][k]) {
				return fmt.Sprintf("ε = %g, seed %d: %v against %v", sweepNoise[i], k, a.errs[i][k], b.errs[i][k])
			}
		}
	}
	if !slices.Equal(a.hs, b.hs) || !slices.Equal(a.hOK, b.hOK) || a.largest != b.largest || a.limitH != b.limitH || a.hDone != b.hDone || a.next != b.next {
		return fmt.Sprintf("scan: H %v recovered %v largest %d limit %d, against H %v recovered %v largest %d limit %d",
			a.hs, a.hOK, a.largest, a.limitH, b.hs, b.hOK, b.largest, b.limitH)
	}
	return ""
}

// TestRecoverySweepSliced computes noise sweeps through the job a
// checkpoint at a time (a lab whose slices are empty) and checks that no
// job step makes a whole run (a run is always started by one step and
// finished by a later one), that a sweep whose run under way is stopped
// (more sweeps than the lab keeps runs for) carries on, and that the
// numbers are those of the same sweep with each run made whole by
// recovery.Learn, bit for bit: same runs, same seeds, same order.
func TestRecoverySweepSliced(t *testing.T) {
	for _, frag := range []string{
		"#v=1&scene=recovery&H=3&d=2&seed=21&view=sweep",                  // refused while runs were made whole in a frame
		"#v=1&scene=recovery&H=1&H0=2&d=3&seed=8&mode=economy&view=sweep", // a bound on H, economy mode
	} {
		t.Run(frag, func(t *testing.T) {
			s, notes := link.Parse(frag)
			if len(notes) > 0 {
				t.Fatal(notes)
			}
			lab := NewLab()
			lab.recovery.slice = 0
			r, err := NewRecovery(s, lab)
			if err != nil {
				t.Fatal(err)
			}
			r.Compute()
			j := r.Job()
			if j == nil {
				t.Fatal("no sweep job")
			}
			l := lab.recovery
			sw := l.sweepFor(s)
			runs := func() int { // runs recorded
				if len(sw.hs) == 0 {
					return sw.next
				}
				return sw.next + (len(sw.hs)-1)*SweepHeadSeeds + sw.hNext
			}
			steps, stopped := 0, false
			for {
				before, started := runs(), sw.cur != nil
				done := j.Step()
				steps++
				if runs() != before && !started {
					t.Fatalf("step %d made run %d whole", steps, before+1)
				}
				if done {
					break
				}
				// Half way through a run, two other sweeps start runs: this
				// one's is stopped, and made again from its start.
				if !stopped && sw.next == 7 && sw.cur != nil && sw.cur.fraction() > 0.3 {
					for _, seed := range []uint64{101, 102} {
						o := s
						o.Seed = seed
						l.mu.Lock()
						l.stepSweep(l.sweepFor(o), 0)
						l.mu.Unlock()
					}
					if sw.cur != nil || len(l.live) != maxPending {
						t.Fatalf("after two more sweeps: this one's run under way %v, %d live", sw.cur != nil, len(l.live))
					}
					stopped = true
				}
				if steps > 10000000 {
					t.Fatal("the sweep does not finish")
				}
			}
			if !stopped {
				t.Error("the sweep's run was never stopped")
			}
			if !sw.done() || sw.cur != nil || slices.Contains(l.live, sw) {
				t.Errorf("after the job: done %v, run under way %v", sw.done(), sw.cur != nil)
			}
			whole := newRecoveryLab().sweepFor(s)
			for {
				ts, eps, ok := whole.plan()
				if !ok {
					break
				}
				whole.record(learnError(ts, eps))
			}
			if d := sameSweep(sw, whole); d != "" {
				t.Errorf("sliced and whole sweeps differ: %s", d)
			}
			t.Logf("%d job steps for %d runs; tried H %v, largest %d", steps, runs(), sw.hs, sw.largest)
		})
	}
}
