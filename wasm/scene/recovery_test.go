package scene

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
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
		bias bool
	}{{1, 1, "paper", false}, {2, 3, "paper", false}, {2, 3, "economy", false}, {3, 2, "paper", false}, {2, 2, "economy", false}, {2, 3, "frugal", false}, {2, 4, "frugal", false},
		{2, 3, "paper", true}, {2, 2, "economy", true}, {2, 3, "frugal", true}} {
		t.Run(fmt.Sprintf("H=%d,d=%d,%s,bias=%v", c.H, c.d, c.mode, c.bias), func(t *testing.T) {
			frag := fmt.Sprintf("#v=1&scene=recovery&H=%d&d=%d&seed=5&mode=%s", c.H, c.d, c.mode)
			extra := 0
			if c.bias {
				frag += "&bias=1"
				m, _ := recovery.ParseMode(c.mode)
				extra = recovery.BiasQueries(m, c.H, c.d)
			}
			r := recoveryAt(t, frag)
			if r.Err != nil {
				t.Fatalf("the run failed: %v", r.Err)
			}
			steps := r.Steps() - extra
			if c.mode == "paper" && steps != recovery.PaperQueries(c.H, c.d) {
				t.Errorf("paper mode: %d steps, want 4Hd²−2H+1 = %d", steps, recovery.PaperQueries(c.H, c.d))
			}
			if c.mode == "economy" && steps < recovery.EconomyQueries(c.H, c.d) {
				t.Errorf("economy mode: %d steps, fewer than 2H(d²+d−1)+1 = %d", steps, recovery.EconomyQueries(c.H, c.d))
			}
			if c.mode == "frugal" && (steps < recovery.FrugalQueries(c.H, c.d) || (r.Result.Fallbacks == 0) != (steps == recovery.FrugalQueries(c.H, c.d))) {
				t.Errorf("frugal mode: %d steps with %d fallbacks, formula 2H(2d−1)+1+(H+1)(d²−d) = %d", steps, r.Result.Fallbacks, recovery.FrugalQueries(c.H, c.d))
			}
			if _, ok := r.ViewAt(0); ok {
				t.Error("step 0 shows a rational function")
			}
			type ask struct {
				a, z []float64
				n    int
				y    float64
			}
			steps += extra
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
			if b, ok := f["biases"].(map[string]any); ok != c.bias {
				t.Errorf("biases in the facts: %v", ok)
			} else if ok {
				if e, _ := b["error"].(float64); b["error"] == nil || e > 1e-7 {
					t.Errorf("bias error %v", b["error"])
				}
				if k, _ := b["recoveredConst"].(float64); math.Abs(k-r.Model.Const) > 1e-9 || r.Model.Const == 0 {
					t.Errorf("C recovered %v, true %v", b["recoveredConst"], r.Model.Const)
				}
			}
			if c.bias {
				names := map[string]bool{}
				for k := 1; k <= steps; k++ {
					v, _ := r.ViewAt(k)
					names[v.RF.Name()] = true
					s := r.State
					s.Step = k
					rk, _ := NewRecovery(s, testLab)
					if d := rk.Describe(); v.RF.Kind == recovery.Constant && !strings.Contains(d, "zero token alone") {
						t.Errorf("step %d describes F(0) as %q", k, d)
					}
				}
				if !names["F(0)"] || !names["RF(−z_1, u_1)"] {
					t.Errorf("the steps do not show F(0) and RF(−z_1, u_1): %v", names)
				}
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
	// H = 6 at d = 2 needs 160 bits (numerics/recovery/ACCURACY.md): float64
	// cannot resolve it, whatever its numerics improve to short of that.
	r := recoveryAt(t, "#v=1&scene=recovery&H=6&d=2&seed=77&step=99999")
	if r.Err == nil {
		t.Fatalf("float64 resolved H = 6, d = 2, seed 77 (error %g): the pinned failing case no longer fails", r.Error)
	}
	f := r.Facts()
	fl, ok := f["failed"].(map[string]any)
	if !ok || fl["message"] == "" {
		t.Fatalf("failed %v", f["failed"])
	}
	if need, _ := fl["needPrec"].(uint); need < 128 {
		t.Errorf("the failed float64 run offers %v bits", fl["needPrec"])
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
	if !st.Done || st.Refused != "" || len(st.Points) != len(experiment.SweepNoise) {
		t.Fatalf("sweep %+v", st)
	}
	var lo, hi experiment.SweepPoint
	for _, p := range st.Points {
		if len(p.Errors) != experiment.SweepSeeds {
			t.Errorf("ε = %g: %d runs", p.X, len(p.Errors))
		}
		switch p.X {
		case 1e-12:
			lo = p
		case 1e-6:
			hi = p
		}
	}
	slope := math.Log10(hi.Median/lo.Median) / 6
	t.Logf("medians %v…%v, slope %.2f, largest H %d (tried %v)", lo.Median, hi.Median, slope, st.Largest, st.Tried())
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
	if experiment.SweepCost(3, 8) <= experiment.SweepCostLimit {
		t.Fatalf("H = 3, d = 8 is within the limit %d", experiment.SweepCostLimit)
	}
	big := recoveryAt(t, "#v=1&scene=recovery&H=3&d=8&seed=21&view=sweep")
	if s := big.Sweep(); !strings.Contains(s.Refused, fmt.Sprint(experiment.SweepCostLimit)) || big.Job() != nil {
		t.Errorf("H = 3, d = 8: refused %q", s.Refused)
	}
}

// TestRecoveryRemote drives a lab without a runner, as the canvas does:
// the job is wanted until its result is delivered, reported progress shows
// in the facts and the description, the delivered run is the one shown,
// and a failure is shown instead of being asked for again, until the lab
// forgets failures.
func TestRecoveryRemote(t *testing.T) {
	lab := NewLab()
	s, _ := link.Parse("#v=1&scene=recovery&H=2&d=3&seed=31&step=4")
	r, err := NewRecovery(s, lab)
	if err != nil {
		t.Fatal(err)
	}
	j := r.Job()
	if j == nil || j.Step() || j.Step() {
		t.Fatal("no job, or it finished without a result")
	}
	w := lab.Wanted()
	key := learnKey(s)
	job, ok := w[key]
	if len(w) != 1 || !ok || job.Kind != experiment.KindRecovery || job.Recovery.Key() != s.Recovery().Key() {
		t.Fatalf("wanted %v", w)
	}
	if len(lab.Wanted()) != 0 {
		t.Fatal("Wanted does not forget")
	}
	p := recovery.Progress{Queries: 9, Planned: recovery.PaperQueries(2, 3), Width: 3, Fraction: 0.25}
	lab.Report(key, experiment.Progress{Fraction: 0.25, Recovery: &p})
	f := r.Facts()
	if rp, ok := f["runProgress"].(map[string]any); !ok || rp["queries"] != 9 || j.Progress() != 0.25 {
		t.Fatalf("facts while computing: %v", f["runProgress"])
	}
	if d := r.Describe(); !strings.Contains(d, fmt.Sprintf("9 of %d queries", p.Planned)) {
		t.Fatalf("description while computing: %q", d)
	}
	res, err := experiment.Run(experiment.Pacer{}, job)
	if err != nil {
		t.Fatal(err)
	}
	lab.Deliver(key, res)
	if !j.Step() || r.Computing() || r.Step() != 4 || r.Err != nil {
		t.Fatalf("after delivery: computing %v, step %d, error %v", r.Computing(), r.Step(), r.Err)
	}
	want, err := recovery.Learn(recovery.LayerOracle(r.True, 0, s.Seed), r.Options)
	if err != nil {
		t.Fatal(err)
	}
	for h := range want.Layer {
		if !mat.Equal(want.Layer[h].W, r.Result.Layer[h].W) || !mat.Equal(want.Layer[h].V, r.Result.Layer[h].V) {
			t.Errorf("head %d differs from Learn's", h)
		}
	}
	// A failed job: shown, not asked for again, until forgotten.
	s.Seed = 32
	r2, _ := NewRecovery(s, lab)
	j2 := r2.Job()
	j2.Step()
	j2.Step()
	lab.Wanted()
	lab.Fail(learnKey(s), "the compute worker stopped")
	if !j2.Step() || r2.Err == nil || !strings.Contains(r2.Err.Error(), "the compute worker stopped") {
		t.Fatalf("after a failure: %v", r2.Err)
	}
	if f := r2.Facts(); f["failed"] == nil {
		t.Fatal("the failure is not in the facts")
	}
	lab.ForgetFailures()
	r3, _ := NewRecovery(s, lab)
	j3 := r3.Job()
	j3.Step()
	j3.Step()
	if _, ok := lab.Wanted()[learnKey(s)]; !ok || !r3.Computing() {
		t.Fatal("a forgotten failure is not asked for again")
	}
}
