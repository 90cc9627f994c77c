package recovery

import (
	"errors"
	"math"
	"runtime"
	"testing"

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

// TestLearnPaused pauses runs at every checkpoint and checks that they
// give Learn's result bit for bit, pause at least at every query, and
// report progress that only grows, within its bounds; the economy run
// falls back to links, so it plans more queries as it goes.
func TestLearnPaused(t *testing.T) {
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
			var last Progress
			pauses, grew := 0, false
			got, err := LearnPaused(LayerOracle(c.layer, 0, 1), c.opt, func(p Progress) bool {
				if pauses == 0 && (p.Planned != plannedQueries(c.opt) || p.Width != c.opt.Width) {
					t.Errorf("first progress %+v", p)
				}
				pauses++
				if p.Fraction < last.Fraction || p.Queries < last.Queries || p.Columns < last.Columns || p.Planned < last.Planned || (last.Final && !p.Final) {
					t.Fatalf("progress went back: %+v after %+v", p, last)
				}
				if p.Fraction < 0 || p.Fraction >= 1 || p.Queries > p.Planned || p.Columns > p.Width {
					t.Fatalf("progress %+v out of bounds", p)
				}
				grew = grew || (last.Planned > 0 && p.Planned > last.Planned)
				last = p
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if where := sameResult(got, want); where != "" {
				t.Errorf("the paused run differs from Learn in its %s", where)
			}
			if pauses < want.Queries {
				t.Errorf("%d pauses for %d queries: a run pauses after every query", pauses, want.Queries)
			}
			if c.opt.Mode == Economy && !grew {
				t.Error("the fallback links were never planned")
			}
		})
	}
}

// TestLearnPausedStop stops a run half way: it returns ErrStopped and no
// result, and leaves no goroutine behind.
func TestLearnPausedStop(t *testing.T) {
	before := runtime.NumGoroutine()
	pauses := 0
	res, err := LearnPaused(LayerOracle(attention.Random(2, 3, 5), 0, 1), DefaultOptions(2, 3), func(Progress) bool {
		pauses++
		return pauses < 50
	})
	if !errors.Is(err, ErrStopped) || res.Heads != 0 || len(res.Layer) != 0 {
		t.Errorf("a stopped run: %v, %d heads", err, res.Heads)
	}
	if pauses != 50 {
		t.Errorf("the run paused %d times after it was stopped at the 50th", pauses)
	}
	if n := runtime.NumGoroutine(); n != before {
		t.Errorf("%d goroutines after the run, %d before", n, before)
	}
	if _, err := LearnPaused(LayerOracle(attention.Random(1, 1, 1), 0, 1), Options{Width: 0, Heads: 1}, func(Progress) bool { return true }); err == nil || errors.Is(err, ErrStopped) {
		t.Errorf("options Learn refuses: %v", err)
	}
}

// BenchmarkLearnPaused measures the run of BenchmarkLearnPaper paused at
// every checkpoint, the cost of its checkpoints.
func BenchmarkLearnPaused(b *testing.B) {
	const H, d = 3, 8
	layer := attention.Random(H, d, 42)
	opt := DefaultOptions(H, d)
	opt.Seed = 3
	for b.Loop() {
		if _, err := LearnPaused(LayerOracle(layer, 0, 1), opt, func(Progress) bool { return true }); err != nil {
			b.Fatal(err)
		}
	}
}
