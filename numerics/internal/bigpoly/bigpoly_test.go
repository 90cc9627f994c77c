package bigpoly

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

const prec = 256

func num(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }

// fromRoots returns Π_k (x − roots_k) · (x² + 1) when complex is set.
func fromRoots(roots []*big.Float, complexPair bool) []*big.Float {
	c := []*big.Float{num(1)}
	for _, r := range roots {
		c = Mul(c, []*big.Float{new(big.Float).SetPrec(prec).Neg(r), num(1)}, prec)
	}
	if complexPair {
		c = Mul(c, []*big.Float{num(1), num(0), num(1)}, prec)
	}
	return c
}

// relErr is |a − b|/|b| rounded to float64.
func relErr(a, b *big.Float) float64 {
	d := new(big.Float).SetPrec(prec).Sub(a, b)
	d.Quo(d, b)
	f, _ := d.Abs(d).Float64()
	return f
}

// RealRoots finds every real root to its precision, among them pairs far
// closer than float64 can separate (its rounding makes them a complex
// pair), and leaves out the complex ones.
func TestRealRoots(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 40; trial++ {
		deg := 2 + trial%7
		roots := make([]*big.Float, deg)
		for k := range roots {
			roots[k] = num(-0.1 - 10*rng.Float64())
		}
		if trial%2 == 0 {
			// Two roots 1e-12 apart, relative: float64 (1e-16, whose
			// square root is 1e-8) cannot tell them apart, 128 bits can.
			roots[1].Mul(roots[0], new(big.Float).SetPrec(prec).Add(num(1), num(1e-12)))
		}
		complexPair := trial%3 == 0
		got, ok := RealRoots(fromRoots(roots, complexPair), 128)
		if !ok {
			t.Errorf("trial %d: the refinement did not converge", trial)
		}
		if len(got) != deg {
			t.Errorf("trial %d: %d real roots, want %d", trial, len(got), deg)
			continue
		}
		// Each true root has a found one within 1e-20 relative (the pair's
		// are good to about 2^-128/1e-12 times the growth of c's coefficients),
		// and no two true roots share one.
		used := make([]bool, deg)
		for _, r := range roots {
			best := -1
			for i, g := range got {
				if !used[i] && relErr(g, r) < 1e-20 && (best < 0 || relErr(g, r) < relErr(got[best], r)) {
					best = i
				}
			}
			if best < 0 {
				t.Errorf("trial %d: root %.25g not found in %.25g", trial, r, got)
				break
			}
			used[best] = true
		}
	}
}

// Eval, Mul, Sub and Deriv agree with the values they stand for.
func TestArithmetic(t *testing.T) {
	a := []*big.Float{num(1), num(-2), num(3)} // 1 − 2x + 3x²
	b := []*big.Float{num(0.5), num(4)}        // 0.5 + 4x
	x := num(1.25)
	va, vb := Eval(a, x, prec), Eval(b, x, prec)
	want := new(big.Float).SetPrec(prec).Mul(va, vb)
	if got := Eval(Mul(a, b, prec), x, prec); got.Cmp(want) != 0 {
		t.Errorf("(ab)(x) = %g, a(x)b(x) = %g", got, want)
	}
	want.Sub(va, vb)
	if got := Eval(Sub(a, b, prec), x, prec); got.Cmp(want) != 0 {
		t.Errorf("(a − b)(x) = %g, a(x) − b(x) = %g", got, want)
	}
	if got := Eval(Deriv(a, prec), x, prec); got.Cmp(num(-2+6*1.25)) != 0 {
		t.Errorf("a′(1.25) = %g, want %g", got, -2+6*1.25)
	}
	if got, _ := RealRoots([]*big.Float{num(3)}, prec); got != nil {
		t.Errorf("a constant's roots: %g, want none", got)
	}
}
