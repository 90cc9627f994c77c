package bigpoly

import (
	"math"
	"math/big"
	"testing"

	"headlab/numerics/internal/poles"
)

// starts returns float64's roots of c's rounding, as RealRoots takes them.
func starts(t *testing.T, c []*big.Float) []complex128 {
	t.Helper()
	deg := len(c) - 1
	e := math.MinInt
	for _, v := range c {
		e = max(e, v.MantExp(nil))
	}
	cf := make([]float64, deg+1)
	for k, v := range c {
		cf[deg-k], _ = new(big.Float).SetMantExp(v, -e).Float64()
	}
	zs, ok := poles.Roots(cf)
	if !ok {
		t.Fatal("float64's iteration failed")
	}
	return zs
}

// A real pair far closer than float64 resolves starts from its quadratic
// model (splitPairs) and is refined in at most six steps, where from float64's
// estimates the simultaneous iteration takes up to twenty; RealRoots
// returns both roots of the pair, to the precision the pair allows.
func TestClosePairs(t *testing.T) {
	for _, sep := range []float64{1e-9, 1e-12, 1e-15} {
		roots := []*big.Float{num(-5.137), num(-0.27), num(-0.29), num(-0.08)}
		roots = append(roots, new(big.Float).SetPrec(prec).Mul(roots[0], num(1+sep)))
		c := fromRoots(roots, true)
		zs := starts(t, c)
		if _, ok, steps := aberth(c, splitPairs(c, zs, prec+guard), prec); !ok || steps > 6 {
			t.Errorf("pair %.0e apart: %d steps from the model's roots (converged %v), want at most 6", sep, steps, ok)
		}
		got, ok := RealRoots(c, prec)
		if !ok || len(got) != len(roots) {
			t.Fatalf("pair %.0e apart: %d real roots (converged %v), want %d", sep, len(got), ok, len(roots))
		}
		for _, r := range roots {
			best := math.Inf(1)
			for _, g := range got {
				best = math.Min(best, relErr(g, r))
			}
			if !(best < 1e-60) {
				t.Errorf("pair %.0e apart: root %.20g found only to %.2g", sep, r, best)
			}
		}
	}
}

// A complex pair near the real axis (1e-7 of its size off it: neither
// plainly real nor plainly complex to float64) goes to the simultaneous
// iteration, and is not returned as real; the real roots are.
func TestNearRealComplexPair(t *testing.T) {
	x, y := -2.0, 2e-7
	// (z − x)² + y² = z² − 2xz + x² + y²
	c := Mul(fromRoots([]*big.Float{num(-0.5), num(-3)}, false), []*big.Float{num(x*x + y*y), num(-2 * x), num(1)}, prec)
	if _, ok := newtonRoots(c, splitPairs(c, starts(t, c), prec+guard), prec); ok {
		t.Error("newtonRoots took a start 1e-7 off the real axis")
	}
	got, _ := RealRoots(c, prec)
	if len(got) != 2 {
		t.Fatalf("%d real roots %.6g, want 2", len(got), got)
	}
}
