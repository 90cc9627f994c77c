package xmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ulps returns the distance between a and b in units in the last place.
func ulps(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Abs(math.Nextafter(b, math.Inf(1))-b)
}

// bigExp computes e**x to 200 bits by its Taylor series after halving.
func bigExp(x float64) float64 {
	const prec = 200
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	// e**x = (e**(x/2^m))^(2^m)
	m := 12
	bx.Quo(bx, new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), m))
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := 1; n < 60; n++ {
		term.Mul(term, bx)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(n)))
		sum.Add(sum, term)
	}
	for i := 0; i < m; i++ {
		sum.Mul(sum, sum)
	}
	f, _ := sum.Float64()
	return f
}

func TestExpIsAccurate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		x := (rng.Float64()*2 - 1) * 700
		if i%2 == 0 {
			x = rng.NormFloat64() * 3
		}
		if u := ulps(Exp(x), bigExp(x)); u > 1 {
			t.Fatalf("Exp(%v) = %v, exact %v: %v ulps", x, Exp(x), bigExp(x), u)
		}
	}
	for _, c := range []struct{ x, want float64 }{
		{0, 1}, {math.Inf(-1), 0}, {1000, math.Inf(1)}, {-1000, 0},
	} {
		if got := Exp(c.x); got != c.want {
			t.Fatalf("Exp(%v) = %v", c.x, got)
		}
	}
	if !math.IsNaN(Exp(math.NaN())) {
		t.Fatal("Exp(NaN) not NaN")
	}
}

func TestLogInvertsExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		x := math.Exp(rng.NormFloat64() * 50)
		got, want := Log(x), math.Log(x)
		if math.Abs(got-want) > 2e-16*math.Max(1, math.Abs(want)) {
			t.Fatalf("Log(%v) = %v, math.Log %v", x, got, want)
		}
	}
	if Log(0) != math.Inf(-1) || !math.IsNaN(Log(-1)) || Log(1) != 0 {
		t.Fatal("Log special cases")
	}
}

func TestHypotAndFriends(t *testing.T) {
	if Hypot(3, 4) != 5 || Hypot(0, 0) != 0 || !math.IsInf(Hypot(math.Inf(-1), math.NaN()), 1) {
		t.Fatal("Hypot special cases")
	}
	if h := Hypot(1e300, 1e300); math.IsInf(h, 0) {
		t.Fatal("Hypot overflowed")
	}
	for _, x := range []float64{-800, -40, -1, 0, 1, 40, 800} {
		if s := Sigmoid(x); s < 0 || s > 1 || math.IsNaN(s) {
			t.Fatalf("Sigmoid(%v) = %v", x, s)
		}
		if l := Log1pExp(x); math.IsInf(l, 0) || math.IsNaN(l) {
			t.Fatalf("Log1pExp(%v) = %v", x, l)
		}
	}
	if s := Sigmoid(1); math.Abs(s-1/(1+math.Exp(-1))) > 1e-16 {
		t.Fatalf("Sigmoid(1) = %v", s)
	}
}
