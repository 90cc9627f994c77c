package fusion

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// smallFit returns options small enough for a quick test under wasm.
func smallFit(restarts, iterations int) FitOptions {
	o := DefaultFitOptions()
	o.Train, o.Test, o.Restarts, o.Iterations = 200, 400, restarts, iterations
	return o
}

// TestFitGradient checks the analytic gradient of the fit's loss against
// central differences.
func TestFitGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 0x1))
	d, k := 3, 4
	q, tq := sampleQueries(d, 50, 3, rng)
	theta := make([]float64, k*d+2*k)
	for i := range theta {
		theta[i] = rng.NormFloat64()
	}
	w := fitWork{score: make([]float64, k)}
	grad := make([]float64, len(theta))
	w.objective(grad, theta, q, tq, d, k)
	scratch := make([]float64, len(theta))
	for i := range theta {
		const h = 1e-6
		x := theta[i]
		theta[i] = x + h
		up := w.objective(scratch, theta, q, tq, d, k)
		theta[i] = x - h
		down := w.objective(scratch, theta, q, tq, d, k)
		theta[i] = x
		if fd := (up - down) / (2 * h); math.Abs(fd-grad[i]) > 1e-7*(1+math.Abs(fd)) {
			t.Errorf("∂loss/∂θ_%d: analytic %v, differences %v", i, grad[i], fd)
		}
	}
}

// TestFitFullAtoms is the sanity check: with k = 2^d atoms the exact head
// exists, and the optimiser finds one to rounding level.
func TestFitFullAtoms(t *testing.T) {
	opt := smallFit(2, 600)
	r, err := FitFewer(2, 4, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !(r.TestRMS < 1e-8 && r.TestMax < 1e-7) {
		t.Errorf("k = 2^d: held-out RMS %.3g, max %.3g, want ~0; runs %+v", r.TestRMS, r.TestMax, r.Runs)
	}
	if len(r.Head) != 4 || r.Head.Dim() != 2 {
		t.Errorf("fitted head has %d atoms of width %d", len(r.Head), r.Head.Dim())
	}
	// The reported error is the head's own.
	f, err := NewFitter(2, 4, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rms, _ := headErrors(r.Head, f.testQ, f.testT, 2); rms != r.TestRMS {
		t.Errorf("reported held-out RMS %v, recomputed %v", r.TestRMS, rms)
	}
}

// TestFitFewerAtoms runs the experiment with k < 2^d: it reports a clearly
// nonzero error (what the theorem predicts; the value is not asserted), no
// worse than the best constant's, and a one-atom head is a constant.
func TestFitFewerAtoms(t *testing.T) {
	r, err := FitFewer(2, 3, smallFit(2, 300))
	if err != nil {
		t.Fatal(err)
	}
	if !(r.TestRMS > 1e-6) || !(r.TestRMS < r.ConstantRMS) || !(r.TestMax >= r.TestRMS) {
		t.Errorf("k = 3 < 4: held-out RMS %.3g, max %.3g, constant %.3g", r.TestRMS, r.TestMax, r.ConstantRMS)
	}
	if r.Note != FitNote || !strings.Contains(r.Note, "not a proof") || !r.Complete || len(r.Runs) != 2 {
		t.Errorf("result is not labelled or complete: %+v", r)
	}
	one, err := FitFewer(2, 1, smallFit(1, 50))
	if err != nil {
		t.Fatal(err)
	}
	// ConstantRMS is the least RMS of any constant on the held-out queries.
	if !(one.TestRMS >= one.ConstantRMS*(1-1e-12)) || one.TestRMS > 1.1*one.ConstantRMS {
		t.Errorf("k = 1: held-out RMS %v, best constant %v", one.TestRMS, one.ConstantRMS)
	}
}

// TestFitterSteps checks that stepping by hand gives exactly FitFewer's
// numbers, with progress rising from 0 to 1.
func TestFitterSteps(t *testing.T) {
	opt := smallFit(2, 80)
	want, err := FitFewer(2, 2, opt)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFitter(2, 2, opt)
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Progress(); p != 0 {
		t.Errorf("initial progress %v", p)
	}
	if r := f.Result(); r.Head != nil || r.Complete || !math.IsNaN(r.TestRMS) {
		t.Errorf("result before any restart: %+v", r)
	}
	last, steps := 0.0, 0
	for !f.Step() {
		steps++
		p := f.Progress()
		if p < last || p > 1 {
			t.Fatalf("progress went from %v to %v", last, p)
		}
		last = p
	}
	if f.Progress() != 1 || !f.Step() || steps < 10 {
		t.Errorf("after %d steps: progress %v", steps, f.Progress())
	}
	got := f.Result()
	if got.TestRMS != want.TestRMS || got.TrainRMS != want.TrainRMS || len(got.Runs) != len(want.Runs) {
		t.Errorf("stepped result %+v, FitFewer %+v", got, want)
	}
	for i := range got.Head {
		if got.Head[i].Bias != want.Head[i].Bias || !equalKeys(got.Head[i].Key, want.Head[i].Key) {
			t.Fatalf("atom %d differs", i)
		}
	}
}

func TestFitErrors(t *testing.T) {
	good := DefaultFitOptions()
	bad := []FitOptions{{}}
	for _, mod := range []func(*FitOptions){
		func(o *FitOptions) { o.Train = 0 },
		func(o *FitOptions) { o.Test = MaxFitQueries + 1 },
		func(o *FitOptions) { o.Radius = math.NaN() },
		func(o *FitOptions) { o.Radius = -1 },
		func(o *FitOptions) { o.Restarts = 0 },
		func(o *FitOptions) { o.Iterations = -5 },
		func(o *FitOptions) { o.Tolerance = math.Inf(1) },
		func(o *FitOptions) { o.Memory = 0 },
	} {
		o := good
		mod(&o)
		bad = append(bad, o)
	}
	for i, o := range bad {
		if _, err := NewFitter(2, 2, o); err == nil {
			t.Errorf("options %d (%+v) accepted", i, o)
		}
	}
	for _, dk := range [][2]int{{0, 1}, {MaxFitDim + 1, 2}, {2, 0}, {2, 5}, {-1, -1}} {
		if _, err := FitFewer(dk[0], dk[1], good); err == nil {
			t.Errorf("FitFewer(d = %d, k = %d) accepted", dk[0], dk[1])
		}
	}
}
