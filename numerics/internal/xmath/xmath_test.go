package xmath

import (
	"math"
	"testing"
)

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
