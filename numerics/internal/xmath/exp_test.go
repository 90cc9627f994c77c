package xmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"
)

// ulps returns the distance of a and b in units in the last place.
func ulps(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / (math.Nextafter(math.Abs(b), math.Inf(1)) - math.Abs(b))
}

// bigExp returns e^x correctly rounded (barring a 1e-80 coincidence):
// (Σ_n y^n/n!)^(2^20) with y = x/2^20, at 300 bits.
func bigExp(x float64) float64 {
	const prec = 300
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.SetMantExp(y, -20)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := int64(1); n < 30; n++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, term)
	}
	for i := 0; i < 20; i++ {
		sum.Mul(sum, sum)
	}
	f, _ := sum.Float64()
	return f
}

func TestExpTable(t *testing.T) {
	// 2^(1/2^j) by repeated square roots, then 2^(i/128) as products.
	const prec = 200
	var root [7]*big.Float
	r := new(big.Float).SetPrec(prec).SetInt64(2)
	for j := range root {
		r = new(big.Float).SetPrec(prec).Sqrt(r)
		root[j] = r // 2^(1/2^(j+1))
	}
	for i, got := range expTable {
		v := new(big.Float).SetPrec(prec).SetInt64(1)
		for j := range root {
			if i>>(6-j)&1 == 1 {
				v.Mul(v, root[j])
			}
		}
		if want, _ := v.Float64(); got != want {
			t.Errorf("expTable[%d] = %x, 2^(%d/128) = %x", i, got, i, want)
		}
	}
}

func TestExpLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 0xe))
	n := 1500
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		x := 1454*rng.Float64() - 745
		if i%3 == 0 {
			x = 5 * rng.NormFloat64()
		}
		if e, want := Exp(x), bigExp(x); ulps(e, want) > 1 {
			t.Fatalf("Exp(%v) = %v, correctly rounded %v", x, e, want)
		}
	}
	for i := 0; i < 20000; i++ {
		y := math.Exp(60 * rng.NormFloat64())
		// FreeBSD's log and amd64's assembly are each within one ulp.
		if l, want := Log(y), math.Log(y); ulps(l, want) > 2 {
			t.Fatalf("Log(%v) = %v, math.Log %v", y, l, want)
		}
		// Under GOOS=js package math runs the same portable code.
		if runtime.GOARCH == "wasm" && Log(y) != math.Log(y) {
			t.Fatalf("Log(%v) = %v differs from the portable math.Log %v", y, Log(y), math.Log(y))
		}
	}
	// Edges: overflow, the subnormal range, exact values.
	for _, x := range []float64{709.78, 709.7, -708.39, -709, -740, -744.4, 1e-300, -1e-20, 0.5 * math.Ln2, -0.5 * math.Ln2} {
		if e, want := Exp(x), bigExp(x); ulps(e, want) > 1 {
			t.Errorf("Exp(%v) = %v, correctly rounded %v", x, e, want)
		}
	}
	if Exp(0) != 1 || Exp(math.Copysign(0, -1)) != 1 || Log(1) != 0 {
		t.Error("Exp(0) or Log(1) is not exact")
	}
	special := []struct{ x, exp, log float64 }{
		{0, 1, math.Inf(-1)},
		{1, math.E, 0},
		{math.Inf(1), math.Inf(1), math.Inf(1)},
		{math.Inf(-1), 0, math.NaN()},
		{-1, 1 / math.E, math.NaN()},
		{800, math.Inf(1), math.Log(800)},
		{-800, 0, math.NaN()},
	}
	for _, s := range special {
		if e := Exp(s.x); !same(e, s.exp) && ulps(e, s.exp) > 1 {
			t.Errorf("Exp(%v) = %v, want %v", s.x, e, s.exp)
		}
		if l := Log(s.x); !same(l, s.log) && ulps(l, s.log) > 1 {
			t.Errorf("Log(%v) = %v, want %v", s.x, l, s.log)
		}
	}
	if !math.IsNaN(Exp(math.NaN())) || !math.IsNaN(Log(math.NaN())) {
		t.Error("exp or log of NaN is not NaN")
	}
}

func same(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
