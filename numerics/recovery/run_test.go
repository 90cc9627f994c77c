package recovery

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
)

// sameResult reports where two results differ bit for bit ("" when they
// do not): the layer, the self-check and every answer and fit of the
// trace.
func sameResult(a, b Result) string {
	same := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	switch {
	case a.Queries != b.Queries || a.MaxLength != b.MaxLength || a.Heads != b.Heads:
		return "counts"
	case !same([]float64{a.Residual, a.Estimate, a.Cond, a.Scale}, []float64{b.Residual, b.Estimate, b.Cond, b.Scale}):
		return "self-check"
	case len(a.Layer) != len(b.Layer) || len(a.Trace.RFs) != len(b.Trace.RFs) || len(a.Trace.Queries) != len(b.Trace.Queries):
		return "sizes"
	}
	for h := range a.Layer {
		if !same(a.Layer[h].W.RawMatrix().Data, b.Layer[h].W.RawMatrix().Data) || !same(a.Layer[h].V.RawVector().Data, b.Layer[h].V.RawVector().Data) {
			return "layer"
		}
	}
	for k, rf := range a.Trace.RFs {
		o := b.Trace.RFs[k]
		if !same(rf.F, o.F) || !same(rf.P, o.P) || !same(rf.R, o.R) || !same(rf.HeadP, o.HeadP) || !same(rf.HeadR, o.HeadR) {
			return "RF " + rf.Name()
		}
	}
	return ""
}

// TestRun makes runs a checkpoint at a time (a budget of zero) and checks
// that they give Learn's result bit for bit, are split at least at every
// query, and report progress that only grows, within its bounds, to done;
// the economy run falls back to links, so it plans more queries as it goes.
func TestRun(t *testing.T) {
	fbLayer, fbOpt := fallbackCase()
	cases := []struct {
		name  string
		layer attention.Layer
		opt   Options
	}{
		{"paper H=3 d=4", attention.Random(3, 4, 11), DefaultOptions(3, 4)},
		{"economy fallback", fbLayer, fbOpt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, wantErr := Learn(LayerOracle(c.layer, 0, 1), c.opt)
			if wantErr != nil {
				t.Fatal(wantErr)
			}
			r := Start(LayerOracle(c.layer, 0, 1), c.opt)
			if _, err := r.Result(); !errors.Is(err, ErrUnfinished) {
				t.Errorf("result before the run: %v", err)
			}
			last := r.Progress()
			if last.Queries != 0 || last.Fraction != 0 || last.Planned != plannedQueries(c.opt) || last.Width != c.opt.Width {
				t.Errorf("progress before the run: %+v", last)
			}
			slices, grew := 0, false
			for !r.Step(0) {
				slices++
				p := r.Progress()
				if p.Fraction < last.Fraction || p.Queries < last.Queries || p.Columns < last.Columns || p.Planned < last.Planned || (last.Final && !p.Final) {
					t.Fatalf("progress went back: %+v after %+v", p, last)
				}
				if p.Fraction < 0 || p.Fraction >= 1 || p.Queries > p.Planned || p.Columns > p.Width {
					t.Fatalf("progress %+v out of bounds", p)
				}
				grew = grew || p.Planned > last.Planned
				last = p
			}
			got, err := r.Result()
			if err != nil {
				t.Fatal(err)
			}
			if where := sameResult(got, want); where != "" {
				t.Errorf("the sliced run differs from Learn in its %s", where)
			}
			if slices < want.Queries {
				t.Errorf("%d slices for %d queries: a run is suspended after every query", slices, want.Queries)
			}
			p := r.Progress()
			if p.Fraction != 1 || p.Queries != want.Queries || p.Planned != want.Queries || p.Columns != p.Width || !p.Final {
				t.Errorf("progress when done: %+v", p)
			}
			if c.opt.Mode == Economy && !grew {
				t.Error("the fallback links were never planned")
			}
			if !r.Step(0) || !r.Done() {
				t.Error("a finished run steps again")
			}
		})
	}
}

// TestRunStop abandons a run half way: the goroutine holding it ends, and
// the run reports itself unfinished from then on.
func TestRunStop(t *testing.T) {
	before := runtime.NumGoroutine()
	r := Start(LayerOracle(attention.Random(2, 3, 5), 0, 1), DefaultOptions(2, 3))
	for i := 0; i < 50; i++ {
		if r.Step(0) {
			t.Fatal("the run finished within 50 checkpoints")
		}
	}
	if n := runtime.NumGoroutine(); n <= before {
		t.Fatalf("%d goroutines while the run is suspended, %d before: the count cannot show Stop releasing it", n, before)
	}
	r.Stop()
	if n := runtime.NumGoroutine(); n != before {
		t.Errorf("%d goroutines after Stop, %d before the run", n, before)
	}
	if !r.Step(0) || r.Done() {
		t.Error("a stopped run steps on, or says it is done")
	}
	if _, err := r.Result(); !errors.Is(err, ErrUnfinished) {
		t.Errorf("result of a stopped run: %v", err)
	}
	r.Stop() // a second Stop does nothing
}

// TestRunPanic runs with an oracle that panics at its seventh query: the
// run ends with an error naming the panic, never as a finished run with an
// empty result.
func TestRunPanic(t *testing.T) {
	inner := LayerOracle(attention.Random(2, 3, 5), 0, 1)
	calls := 0
	oracle := func(X *mat.Dense) float64 {
		if calls++; calls == 7 {
			panic("the oracle broke")
		}
		return inner(X)
	}
	r := Start(oracle, DefaultOptions(2, 3))
	for i := 0; !r.Step(0); i++ {
		if i > 10000 {
			t.Fatal("the run does not end")
		}
	}
	res, err := r.Result()
	if err == nil || !strings.Contains(err.Error(), "the oracle broke") {
		t.Errorf("error %v, want one naming the panic", err)
	}
	if res.Heads != 0 || len(res.Layer) != 0 {
		t.Errorf("a failed run returned %d heads", res.Heads)
	}
}

// TestRunInvalid starts a run with options Learn refuses: its first step
// ends it with Learn's error.
func TestRunInvalid(t *testing.T) {
	r := Start(LayerOracle(attention.Random(1, 1, 1), 0, 1), Options{Width: 0, Heads: 1})
	if !r.Step(0) {
		t.Fatal("a run with width 0 does not end at once")
	}
	if _, err := r.Result(); err == nil || errors.Is(err, ErrUnfinished) {
		t.Errorf("error %v", err)
	}
	if p := r.Progress(); p.Fraction != 1 || p.Planned != 0 {
		t.Errorf("progress %+v", p)
	}
}

// BenchmarkRunSliced measures the run of BenchmarkLearnPaper made in
// slices of 5 ms, the cost of its checkpoints and of suspending it.
func BenchmarkRunSliced(b *testing.B) {
	const H, d = 3, 8
	layer := attention.Random(H, d, 42)
	opt := DefaultOptions(H, d)
	opt.Seed = 3
	for b.Loop() {
		r := Start(LayerOracle(layer, 0, 1), opt)
		for !r.Step(5e6) {
		}
		if _, err := r.Result(); err != nil {
			b.Fatal(err)
		}
	}
}
