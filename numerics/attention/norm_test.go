package attention

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestNormsAreGonums checks the written-out infinity norms against
// mat.Norm(·, Inf), bit for bit, on random shapes and entries of mixed
// magnitudes (the differences as mat.Norm reads (*mat.Dense).Sub's result).
func TestNormsAreGonums(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	entry := func() float64 { return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(13)-6)) }
	inf := math.Inf(1)
	for range 500 {
		r, c := 1+rng.IntN(9), 1+rng.IntN(9)
		a, b := mat.NewDense(r, c, nil), mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				a.Set(i, j, entry())
				b.Set(i, j, entry())
			}
		}
		var d mat.Dense
		d.Sub(a, b)
		if got, want := normInf(a), mat.Norm(a, inf); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("normInf %v, mat.Norm %v", got, want)
		}
		if got, want := normInfDiff(a, b), mat.Norm(&d, inf); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("normInfDiff %v, mat.Norm of the difference %v", got, want)
		}
		u, v := mat.NewVecDense(r, nil), mat.NewVecDense(r, nil)
		for i := range r {
			u.SetVec(i, entry())
			v.SetVec(i, entry())
		}
		var w mat.Dense
		w.Sub(u, v)
		if got, want := vecNormInf(u), mat.Norm(u, inf); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("vecNormInf %v, mat.Norm %v", got, want)
		}
		if got, want := vecNormInfDiff(u, v), mat.Norm(&w, inf); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("vecNormInfDiff %v, mat.Norm of the difference %v", got, want)
		}
	}
}
