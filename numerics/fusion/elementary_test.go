package fusion

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"headlab/numerics/internal/xmath"
)

func TestSigmoid(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 0x5))
	for i := 0; i < 1000; i++ {
		x := 40 * rng.NormFloat64()
		if s := Sigmoid(x) + Sigmoid(-x); math.Abs(s-1) > 4.5e-16 {
			t.Fatalf("σ(%v)+σ(−%v) = %v", x, x, s)
		}
		// Against 1/(1+e^{−x}) where that form is accurate.
		if x > -30 && x < 30 {
			if want := 1 / (1 + math.Exp(-x)); math.Abs(Sigmoid(x)-want) > 4e-16*want {
				t.Fatalf("σ(%v) = %v, want %v", x, Sigmoid(x), want)
			}
		}
	}
	if Sigmoid(math.Inf(1)) != 1 || Sigmoid(math.Inf(-1)) != 0 || Sigmoid(0) != 0.5 || !math.IsNaN(Sigmoid(math.NaN())) {
		t.Error("σ at ±Inf, 0 or NaN is wrong")
	}
	if s := Sigmoid(-745); !(s > 0 && s < 1e-320) {
		t.Errorf("σ(−745) = %v, want a tiny positive number", s)
	}
}

// TestSameNumbers pins the exact bits of results that must be identical
// natively and under GOOS=js/wasm: exp and log over a range of inputs, an
// explicit fused head, a merge, and a fit. A change in the package's
// arithmetic must update these hashes on purpose; a difference between
// platforms fails here.
func TestSameNumbers(t *testing.T) {
	h := fnv.New64a()
	put := func(x float64) {
		b := math.Float64bits(x)
		h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(b >> 32), byte(b >> 40), byte(b >> 48), byte(b >> 56)})
	}
	for i := -7450; i <= 7090; i += 3 {
		x := float64(i)/10 + 1/3.0
		put(xmath.Exp(x))
		put(xmath.Log(math.Abs(x) + 1e-300))
	}
	check(t, "exp/log", h.Sum64(), 0xff2e90e08128dd6a)

	h.Reset()
	w, err := SigmoidSumFlat(10)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 0x5a))
	q := make([]float64, 10)
	for i := 0; i < 20; i++ {
		for j := range q {
			q[j] = 30 * rng.NormFloat64()
		}
		put(w.Output(q))
	}
	shared := sharedKeyHeads(3, 3, rand.New(rand.NewPCG(4, 0x5a)))
	fused, err := Fuse(shared...)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range fused {
		put(a.Bias)
		put(a.Value)
	}
	check(t, "fused outputs and merges", h.Sum64(), 0xe79df8b3de4e2ba3)

	h.Reset()
	opt := DefaultFitOptions()
	opt.Restarts, opt.Iterations, opt.Train, opt.Test = 1, 60, 64, 64
	r, err := FitFewer(2, 3, opt)
	if err != nil {
		t.Fatal(err)
	}
	put(r.TrainRMS)
	put(r.TestRMS)
	for _, a := range r.Head {
		put(a.Key[0])
		put(a.Bias)
	}
	check(t, "fit", h.Sum64(), 0x8e40e48e61b84902)
}

func check(t *testing.T, what string, got, want uint64) {
	t.Helper()
	if got != want {
		t.Errorf("%s: bits hash %#x, pinned %#x (%s/%s)", what, got, want, runtime.GOOS, runtime.GOARCH)
	}
}
