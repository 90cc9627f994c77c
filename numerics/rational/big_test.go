package rational

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigSamples evaluates C + Σ R_h/(n+ρ_h) at n = 0…m−1 at prec bits.
func bigSamples(c float64, rho, res []float64, m int, prec uint) ([]float64, []*big.Float) {
	n := make([]float64, m)
	f := make([]*big.Float, m)
	for i := range n {
		n[i] = float64(i)
		y := new(big.Float).SetPrec(prec).SetFloat64(c)
		for h := range rho {
			t := new(big.Float).SetPrec(prec).SetFloat64(n[i])
			t.Add(t, new(big.Float).SetFloat64(rho[h]))
			t.Quo(new(big.Float).SetPrec(prec).SetFloat64(res[h]), t)
			y.Add(y, t)
		}
		f[i] = y
	}
	return n, f
}

// TestFitBigRecovers fits random functions with up to 12 poles at 320
// bits and checks the poles and residues to 1e-30.
func TestFitBigRecovers(t *testing.T) {
	const prec = 320
	rng := rand.New(rand.NewPCG(7, 13))
	for H := 1; H <= 12; H++ {
		rho := make([]float64, H)
		res := make([]float64, H)
		for h := range rho {
			rho[h] = math.Exp(2 * rng.NormFloat64())
			res[h] = rng.NormFloat64() * rho[h]
		}
		for _, known := range []bool{false, true} {
			m := 2*H + 1
			if known {
				m = 2 * H
			}
			n, f := bigSamples(0.7, rho, res, m+1, prec)
			opt := BigOptions{Poles: H, Prec: prec}
			if known {
				opt.KnownC, opt.C = true, new(big.Float).SetPrec(prec).SetFloat64(0.7)
			}
			fit, err := FitBig(n, f, opt)
			if err != nil {
				t.Fatalf("H = %d, known C %v: %v", H, known, err)
			}
			got := fit.Float64()
			// Poles come sorted; so does the truth.
			want := append([]float64(nil), rho...)
			sortFloats(want)
			for h := 0; h < H; h++ {
				if e := math.Abs(got.Poles[h]-want[h]) / want[h]; e > 1e-14 {
					t.Errorf("H = %d, known C %v: pole %d is %g, want %g", H, known, h, got.Poles[h], want[h])
				}
				for k := range rho {
					if rho[k] == want[h] && math.Abs(got.Residues[h]-res[k]) > 1e-14*math.Abs(res[k]) {
						t.Errorf("H = %d, known C %v: residue %d is %g, want %g", H, known, h, got.Residues[h], res[k])
					}
				}
			}
			if fit.Misfit > 1e-30 {
				t.Errorf("H = %d: misfit %g", H, fit.Misfit)
			}
		}
	}
}

func sortFloats(x []float64) {
	for i := 1; i < len(x); i++ {
		for k := i; k > 0 && x[k] < x[k-1]; k-- {
			x[k], x[k-1] = x[k-1], x[k]
		}
	}
}

// TestFitBigUpperBound finds the number of poles under a bound, and
// rejects samples with complex poles.
func TestFitBigUpperBound(t *testing.T) {
	const prec = 256
	n, f := bigSamples(1, []float64{0.5, 3}, []float64{1, -2}, 13, prec)
	fit, err := FitBig(n, f, BigOptions{Poles: 6, UpperBound: true, Prec: prec})
	if err != nil || len(fit.Poles) != 2 {
		t.Fatalf("found %d poles, err %v; want 2", len(fit.Poles), err)
	}
	// 1/((n+1)² + 1) has the complex poles −1 ± i.
	for i := range f {
		x := float64(i)
		f[i] = new(big.Float).SetPrec(prec).SetFloat64(1 / (float64((x+1)*(x+1)) + 1))
	}
	if _, err := FitBig(n[:5], f[:5], BigOptions{Poles: 2, Prec: prec}); err == nil {
		t.Fatal("complex poles accepted")
	}
	c := new(big.Float).SetPrec(prec).SetFloat64(1.25)
	for i := range f {
		f[i] = c
	}
	fit, err = FitBig(n, f, BigOptions{Poles: 6, UpperBound: true, Prec: prec})
	if err != nil || len(fit.Poles) != 0 {
		t.Fatalf("a constant gave %d poles, err %v", len(fit.Poles), err)
	}
}
