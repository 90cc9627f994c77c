package rational

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"headlab/numerics/internal/xmath"
)

// family draws H poles spread over [e^-1, e^2] with random residues and C.
func family(H int, seed uint64) (rho, res []float64, c float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	rho = make([]float64, H)
	res = make([]float64, H)
	for h := range rho {
		u := -1 + float64(3*float64(h)/math.Max(1, float64(H-1))) + float64(0.3*(rng.Float64()-0.5))
		if H == 1 {
			u = float64(3*rng.Float64()) - 1
		}
		rho[h] = xmath.Exp(u)
		res[h] = rho[h] * (1 + rng.Float64()) * float64(1-2*rng.IntN(2))
	}
	return rho, res, rng.NormFloat64()
}

func samples(rho, res []float64, c float64, from, to int) (n, f []float64) {
	for k := from; k <= to; k++ {
		y := c
		for h := range rho {
			y += res[h] / (float64(k) + rho[h])
		}
		n = append(n, float64(k))
		f = append(f, y)
	}
	return n, f
}

// checkFit compares a fit with the true poles (increasing) and residues:
// every pole within tol relatively and within 3 of its own standard error
// estimate (plus rounding), every residue within tol of the largest.
func checkFit(t *testing.T, got Result, rho, res []float64, c float64, tol float64) {
	t.Helper()
	if len(got.Poles) != len(rho) {
		t.Fatalf("got %d poles %v, want %d %v", len(got.Poles), got.Poles, len(rho), rho)
	}
	var rmax float64
	for _, r := range res {
		rmax = math.Max(rmax, math.Abs(r))
	}
	for h := range rho {
		e := math.Abs(got.Poles[h]-rho[h]) / rho[h]
		if e > tol {
			t.Errorf("pole %d: got %.17g, want %.17g (relative error %.3g > %.3g)", h, got.Poles[h], rho[h], e, tol)
		}
		if e > 3*got.PoleErrors[h]+1e-14 {
			t.Errorf("pole %d: error %.3g exceeds 3× its estimate %.3g", h, e, got.PoleErrors[h])
		}
		if e := math.Abs(got.Residues[h]-res[h]) / rmax; e > tol {
			t.Errorf("residue %d: got %.17g, want %.17g (error %.3g)", h, got.Residues[h], res[h], e)
		}
	}
	if e := math.Abs(got.C - c); e > tol*(1+math.Abs(c)) {
		t.Errorf("C: got %.17g, want %.17g", got.C, c)
	}
	if !(got.Cond >= 1) || math.IsInf(got.Cond, 0) {
		t.Errorf("condition number %v", got.Cond)
	}
}

// Exact samples of known functions give back their poles and residues, with
// 2H+1 samples, with 2H samples and C known, and with the number of poles
// detected from a bound.
func TestFitRecoversKnownFunctions(t *testing.T) {
	tols := []float64{1e-12, 1e-11, 1e-9, 1e-6}
	for H := 1; H <= 4; H++ {
		for seed := uint64(9000); seed < 9006; seed++ {
			rho, res, c := family(H, seed)
			tol := tols[H-1]

			n, f := samples(rho, res, c, 0, 2*H)
			got, err := Fit(n, f, Options{Poles: H})
			if err != nil {
				t.Fatalf("H=%d seed %d, 2H+1 samples: %v", H, seed, err)
			}
			checkFit(t, got, rho, res, c, tol)
			for i := range n {
				if d := math.Abs(got.Eval(n[i]) - f[i]); d > 1e-12*(1+math.Abs(f[i])) {
					t.Errorf("Eval(%v) = %v, sample %v", n[i], got.Eval(n[i]), f[i])
				}
			}

			n, f = samples(rho, res, c, 1, 2*H)
			got, err = Fit(n, f, Options{Poles: H, KnownC: true, C: c})
			if err != nil {
				t.Fatalf("H=%d seed %d, known C: %v", H, seed, err)
			}
			checkFit(t, got, rho, res, c, 10*tol)

			n, f = samples(rho, res, c, 0, 2*(H+2))
			got, err = Fit(n, f, Options{Poles: H + 2, UpperBound: true})
			if err != nil {
				t.Fatalf("H=%d seed %d, bound H+2: %v", H, seed, err)
			}
			checkFit(t, got, rho, res, c, tol)
		}
	}
}

// A constant is a fit with no poles, and with a bound the count is found.
func TestFitDetectsCount(t *testing.T) {
	n, f := samples(nil, nil, 2.5, 0, 6)
	got, err := Fit(n, f, Options{Poles: 3, UpperBound: true})
	if err != nil || len(got.Poles) != 0 || got.C != 2.5 {
		t.Fatalf("constant: got %+v, %v", got, err)
	}
	for H := 1; H <= 3; H++ {
		rho, res, c := family(H, uint64(40+H))
		n, f := samples(rho, res, c, 0, 2*4)
		got, err := Fit(n, f, Options{Poles: 4, UpperBound: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Poles) != H {
			t.Errorf("bound 4, true %d poles: found %d", H, len(got.Poles))
		}
	}
}

func reasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return 0
}

// Functions outside the family are errors that say why.
func TestFitRejectsOutsideFamily(t *testing.T) {
	// A complex pair: 2 Re(a/(n+b)) with b = 1.5+2i.
	a, b := complex(1, 0.5), complex(1.5, 2)
	var n, f []float64
	for k := 0; k <= 4; k++ {
		n = append(n, float64(k))
		f = append(f, 0.3+2*real(a/(complex(float64(k), 0)+b)))
	}
	_, err := Fit(n, f, Options{Poles: 2})
	if reasonOf(err) != ComplexPoles {
		t.Errorf("complex pair: got %v, want complex poles", err)
	}
	var e *Error
	if errors.As(err, &e) && len(e.Poles) != 2 {
		t.Errorf("complex pair: error lists poles %v", e.Poles)
	}

	// A pole at n = +3.5 (ρ = −3.5) and one at n = 0 (ρ = 0).
	for _, rho := range []float64{-3.5, 0} {
		n, f = n[:0], f[:0]
		for k := 1; k <= 3; k++ {
			n = append(n, float64(k))
			f = append(f, 1+2/(float64(k)+rho))
		}
		_, err = Fit(n, f, Options{Poles: 1})
		if reasonOf(err) != NonNegativePole {
			t.Errorf("pole at n = %v: got %v, want non-negative pole", -rho, err)
		}
	}

	// Two poles asked of a one-pole function.
	rho, res, c := family(1, 5)
	n, f = samples(rho, res, c, 0, 4)
	if _, err := Fit(n, f, Options{Poles: 2}); err == nil {
		t.Errorf("two poles from a one-pole function: no error")
	}
}

// Malformed input is an error, never a panic or a non-finite result.
func TestFitHostileInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		n, f []float64
		opt  Options
		want Reason
	}{
		{"empty", nil, nil, Options{Poles: 1}, TooFewSamples},
		{"empty constant", nil, nil, Options{}, TooFewSamples},
		{"mismatched", []float64{0, 1, 2}, []float64{1, 2}, Options{Poles: 1}, BadInput},
		{"NaN value", []float64{0, 1, 2}, []float64{1, nan, 2}, Options{Poles: 1}, BadInput},
		{"Inf point", []float64{0, inf, 2}, []float64{1, 2, 3}, Options{Poles: 1}, BadInput},
		{"repeated point", []float64{0, 1, 1}, []float64{1, 2, 3}, Options{Poles: 1}, BadInput},
		{"negative count", []float64{0, 1, 2}, []float64{1, 2, 3}, Options{Poles: -1}, BadInput},
		{"too many poles", make([]float64, 3), make([]float64, 3), Options{Poles: MaxPoles + 1}, BadInput},
		{"too few", []float64{0, 1}, []float64{1, 2}, Options{Poles: 1}, TooFewSamples},
		{"NaN C", []float64{0, 1}, []float64{1, 2}, Options{Poles: 1, KnownC: true, C: nan}, BadInput},
		{"NaN tolerance", []float64{0, 1, 2}, []float64{1, 2, 3}, Options{Poles: 1, Tolerance: nan}, BadInput},
	}
	for _, c := range cases {
		_, err := Fit(c.n, c.f, c.opt)
		if got := reasonOf(err); got != c.want {
			t.Errorf("%s: got %v, want reason %v", c.name, err, c.want)
		}
	}
	// Huge but finite values give an error or a finite fit.
	huge := []struct{ n, f []float64 }{
		{[]float64{0, 1, 2}, []float64{1e308, -1e308, 1e308}},
		{[]float64{-1e308, 0, 1e308}, []float64{1, 2, 3}},
		{[]float64{0, 1e-300, 2e-300}, []float64{1, 2, 3}},
		{[]float64{0, 1, 2}, []float64{5e-324, 0, 5e-324}},
		{[]float64{0, 1, 2}, []float64{0, 0, 0}},
	}
	for _, h := range huge {
		got, err := Fit(h.n, h.f, Options{Poles: 1})
		if err == nil && !finiteResult(got) {
			t.Errorf("Fit(%v, %v) = %+v: not finite", h.n, h.f, got)
		}
	}
}

func finiteResult(r Result) bool {
	ok := finite(r.C) && !math.IsNaN(r.Cond) && !math.IsNaN(r.Residual)
	for h := range r.Poles {
		ok = ok && finite(r.Poles[h]) && r.Poles[h] > 0 && finite(r.Residues[h])
	}
	return ok
}

// The condition number grows as two poles approach each other.
func TestFitConditionGrowsWithCoalescence(t *testing.T) {
	prev := 0.0
	for _, gap := range []float64{2, 0.5, 0.1} {
		rho := []float64{1, 1 + gap}
		n, f := samples(rho, []float64{1, -2}, 0.5, 0, 4)
		got, err := Fit(n, f, Options{Poles: 2})
		if err != nil {
			t.Fatalf("gap %v: %v", gap, err)
		}
		if got.Cond <= prev {
			t.Errorf("gap %v: condition %.3g not above %.3g", gap, got.Cond, prev)
		}
		prev = got.Cond
	}
}

// Noisy samples: with the noise level as Tolerance, more samples than
// unknowns give a least-squares fit whose error is within a few estimated
// standard errors, and the count is detected.
func TestFitNoisyLeastSquares(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 1))
	rho, res, c := []float64{0.6, 4}, []float64{1.2, -3}, 0.7
	n, f := samples(rho, res, c, 0, 20)
	const eps = 1e-9
	for i := range f {
		f[i] += eps * math.Abs(f[i]) * rng.NormFloat64()
	}
	got, err := Fit(n, f, Options{Poles: 4, UpperBound: true, Tolerance: eps})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Poles) != 2 {
		t.Fatalf("found %d poles, want 2", len(got.Poles))
	}
	for h := range rho {
		if e := math.Abs(got.Poles[h]-rho[h]) / rho[h]; e > 5*got.PoleErrors[h] || e > 1e-5 {
			t.Errorf("pole %d: error %.3g, estimate %.3g", h, e, got.PoleErrors[h])
		}
	}
	if got.Misfit > misfitLimit {
		t.Errorf("misfit %v", got.Misfit)
	}
}
