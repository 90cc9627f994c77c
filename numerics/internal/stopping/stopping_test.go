package stopping

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloorMeasuresRounding checks Floor against the rounding it stands
// for: residuals of a model at the noise floor (σ_i = 1e-16·|y_i|),
// evaluated with f_i perturbed by a few ulps, move χ² by about Floor, and
// Negligible holds for reductions below it.
func TestFloorMeasuresRounding(t *testing.T) {
	const seed = 7
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	const m = 200
	y, sigma, e, u := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	for i := range y {
		y[i] = rng.NormFloat64()
		sigma[i] = 1e-16 * math.Abs(y[i])
		f := y[i] + sigma[i]*rng.NormFloat64()
		e[i] = (f - y[i]) / sigma[i]
		u[i] = Rounding(y[i], sigma[i])
	}
	floor := Floor(e, u)
	chi2 := func(e []float64) float64 {
		var s float64
		for _, v := range e {
			s += v * v
		}
		return s
	}
	// χ² of the same residuals with each f_i off by one ulp either way.
	var spread float64
	for k := 0; k < 50; k++ {
		var s float64
		for i := range y {
			f := y[i] + sigma[i]*e[i]
			f = math.Nextafter(f, math.Inf(2*rng.IntN(2)-1))
			v := (f - y[i]) / sigma[i]
			s += v * v
		}
		spread = math.Max(spread, math.Abs(s-chi2(e)))
	}
	if !(spread > floor/10 && spread < 10*floor) {
		t.Fatalf("χ² moves by %.3g under one-ulp changes, Floor says %.3g", spread, floor)
	}
	if !Negligible(floor/2, chi2(e), floor) || Negligible(2*floor, chi2(e), floor) {
		t.Fatalf("Negligible around the floor %.3g is wrong", floor)
	}
	if !Negligible(1e-11, 1, 0) || Negligible(1e-9, 1, 0) {
		t.Fatal("Negligible ignores Relative")
	}
}
