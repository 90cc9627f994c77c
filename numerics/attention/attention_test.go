package attention

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randomSeq(rng *rand.Rand, n, d int, scale float64) *mat.Dense {
	X := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, rng.NormFloat64()*scale)
		}
	}
	return X
}

// bigOutput evaluates the layer in 200-bit arithmetic, as the reference.
func bigOutput(l Layer, X *mat.Dense) float64 {
	n, d := X.Dims()
	const prec = 200
	total := new(big.Float).SetPrec(prec)
	for _, h := range l {
		s := h.Scores(X) // scores themselves are exact enough: errors ~1e-16 relative
		m := math.Inf(-1)
		for _, v := range s {
			m = math.Max(m, v)
		}
		num := new(big.Float).SetPrec(prec)
		den := new(big.Float).SetPrec(prec)
		for i := 0; i < n; i++ {
			e := new(big.Float).SetPrec(prec).SetFloat64(math.Exp(s[i] - m))
			val := new(big.Float).SetPrec(prec)
			for c := 0; c < d; c++ {
				t := new(big.Float).SetPrec(prec).SetFloat64(h.V.AtVec(c))
				t.Mul(t, new(big.Float).SetPrec(prec).SetFloat64(X.At(i, c)))
				val.Add(val, t)
			}
			den.Add(den, e)
			num.Add(num, e.Mul(e, val))
		}
		total.Add(total, num.Quo(num, den))
	}
	f, _ := total.Float64()
	return f
}

func TestOutputMatchesHighPrecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 50; trial++ {
		H, d, n := 1+rng.IntN(8), 1+rng.IntN(8), 1+rng.IntN(20)
		l := Random(H, d, rng.Uint64())
		X := randomSeq(rng, n, d, 1)
		got, want := l.Output(X), bigOutput(l, X)
		if math.Abs(got-want) > 1e-13*math.Max(1, math.Abs(want)) {
			t.Fatalf("trial %d: Output = %.17g, high precision %.17g", trial, got, want)
		}
	}
}

func TestOutputIsSumOfHeadsAndDetails(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	l := Random(4, 3, 99)
	X := randomSeq(rng, 7, 3, 1)
	var sum float64
	for k, det := range l.Details(X) {
		if det.Output != l[k].Output(X) {
			t.Fatalf("head %d: Details output %v != Output %v", k, det.Output, l[k].Output(X))
		}
		var mass float64
		for _, a := range det.Weights {
			mass += a
		}
		if math.Abs(mass-1) > 1e-15 {
			t.Fatalf("head %d: weights sum to %v", k, mass)
		}
		sum += det.Output
	}
	if sum != l.Output(X) {
		t.Fatalf("sum of heads %v != layer output %v", sum, l.Output(X))
	}
}

func TestSoftmaxStableAtExtremeScores(t *testing.T) {
	for _, s := range [][]float64{
		{1e4, -1e4, 0},
		{-1e4, -1e4 + 1},
		{1e300, 1e300},
		{math.Inf(1), 0, math.Inf(1)},
		{math.Inf(-1), 0},
	} {
		w := Softmax(nil, s)
		var mass float64
		for _, a := range w {
			if math.IsNaN(a) || a < 0 {
				t.Fatalf("Softmax(%v) = %v", s, w)
			}
			mass += a
		}
		if math.Abs(mass-1) > 1e-15 {
			t.Fatalf("Softmax(%v) sums to %v", s, mass)
		}
	}
	// A head whose scores reach ±1e4 still gives a finite output.
	w := mat.NewDense(1, 1, []float64{1e4})
	l := Layer{{W: w, V: mat.NewVecDense(1, []float64{1})}}
	X := mat.NewDense(3, 1, []float64{-1, 0.5, 1})
	if y := l.Output(X); math.IsNaN(y) || math.Abs(y-1) > 1e-12 {
		t.Fatalf("Output with scores ±1e4 = %v, want 1", y)
	}
}

func TestCanonicalInvariantToSplitting(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 20; trial++ {
		H, d := 1+rng.IntN(4), 1+rng.IntN(5)
		l := Random(H, d, rng.Uint64())
		// Split head k into two heads with the same W and v = v1 + v2.
		k := rng.IntN(H)
		v1 := mat.NewVecDense(d, nil)
		for i := 0; i < d; i++ {
			v1.SetVec(i, rng.NormFloat64())
		}
		v2 := mat.NewVecDense(d, nil)
		v2.SubVec(l[k].V, v1)
		split := append(Layer{}, l[:k]...)
		split = append(split, Head{W: l[k].W, V: v1}, Head{W: mat.DenseCopyOf(l[k].W), V: v2})
		split = append(split, l[k+1:]...)
		// Shuffle the heads and add a cancelling pair.
		rng.Shuffle(len(split), func(i, j int) { split[i], split[j] = split[j], split[i] })
		neg := mat.NewVecDense(d, nil)
		neg.ScaleVec(-1, v1)
		extraW := Random(1, d, rng.Uint64())[0].W
		split = append(split, Head{W: extraW, V: v1}, Head{W: extraW, V: neg})

		a, b := Canonical(l, 1e-12), Canonical(split, 1e-12)
		if len(a) != H || len(b) != H {
			t.Fatalf("trial %d: canonical forms have %d and %d heads, want %d", trial, len(a), len(b), H)
		}
		e, err := RelativeError(b, a)
		if err != nil || e > 1e-14 {
			t.Fatalf("trial %d: split layer's canonical form differs by %v (%v)", trial, e, err)
		}
		// And the function is unchanged.
		X := randomSeq(rng, 5, d, 1)
		if y, z := l.Output(X), split.Output(X); math.Abs(y-z) > 1e-12*math.Max(1, math.Abs(y)) {
			t.Fatalf("trial %d: outputs differ: %v vs %v", trial, y, z)
		}
	}
}

func TestRelativeErrorFindsPermutation(t *testing.T) {
	l := Random(5, 3, 3)
	p := Layer{l[3], l[0], l[4], l[2], l[1]}
	if e, err := RelativeError(p, l); err != nil || e != 0 {
		t.Fatalf("permuted layer: error %v (%v), want 0", e, err)
	}
	q := Random(5, 3, 4)
	if e, _ := RelativeError(q, l); e < 0.1 {
		t.Fatalf("different layers compare as close: %v", e)
	}
	if _, err := RelativeError(l[:2], l); err == nil {
		t.Fatal("layers of different sizes compared without error")
	}
}

func TestValidate(t *testing.T) {
	l := Random(2, 3, 1)
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := Random(2, 3, 1)
	bad[1].W.Set(0, 0, math.NaN())
	if bad.Validate() == nil {
		t.Fatal("NaN in W accepted")
	}
	if (Layer{{W: mat.NewDense(2, 2, nil), V: mat.NewVecDense(3, nil)}}).Validate() == nil {
		t.Fatal("mismatched sizes accepted")
	}
	if (Layer{}).Validate() == nil {
		t.Fatal("empty layer accepted")
	}
}

func FuzzOutput(f *testing.F) {
	f.Add(1.0, 2.0, -3.0, 0.5, 1e4, 2)
	f.Add(math.NaN(), math.Inf(1), math.Inf(-1), 1e308, -1e308, 0)
	f.Fuzz(func(t *testing.T, a, b, c, x, y float64, n int) {
		n = n%70 + 1
		if n < 1 {
			n = -n + 1
		}
		w := mat.NewDense(2, 2, []float64{a, b, c, a})
		v := mat.NewVecDense(2, []float64{b, c})
		X := mat.NewDense(n, 2, nil)
		for i := 0; i < n; i++ {
			X.Set(i, 0, x*float64(i%3))
			X.Set(i, 1, y/float64(i+1))
		}
		l := Layer{{W: w, V: v}}
		out := l.Output(X)
		allFinite := l.Validate() == nil && finite(x) && finite(y) && math.Abs(a)+math.Abs(b)+math.Abs(c) < 1e30 && math.Abs(x)+math.Abs(y) < 1e30
		if allFinite && math.IsNaN(out) {
			t.Fatalf("finite moderate inputs gave NaN")
		}
	})
}

func BenchmarkLayerOutput(b *testing.B) {
	const N, d, H = 64, 64, 8
	l := Random(H, d, 1)
	X := randomSeq(rand.New(rand.NewPCG(1, 1)), N, d, 1)
	b.ResetTimer()
	for b.Loop() {
		l.Output(X)
	}
}
