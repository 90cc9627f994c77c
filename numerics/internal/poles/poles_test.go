package poles

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"headlab/numerics/internal/digest"
	"headlab/numerics/internal/xmath"
)

// values returns w_i = Σ_h r_h/(n_i + ρ_h).
func values(r, rho, n []float64) []float64 {
	w := make([]float64, len(n))
	for i, ni := range n {
		for h := range r {
			w[i] += r[h] / (ni + rho[h])
		}
	}
	return w
}

// measurement draws a frugal measurement of hc poles: weights uniform in
// (−1, 1), poles e^u with u uniform in (−3, 3), samples at n = 1…hc+1.
func measurement(rng *rand.Rand, hc int) (r, rho, n []float64) {
	r, rho, n = make([]float64, hc), make([]float64, hc), make([]float64, hc+1)
	for h := range r {
		r[h] = 2*rng.Float64() - 1
		rho[h] = xmath.Exp(3 * (2*rng.Float64() - 1))
	}
	for i := range n {
		n[i] = float64(i + 1)
	}
	return r, rho, n
}

// TestSolveFindsTruth draws frugal measurements (measurement) and checks that the true poles are among the
// solutions, and for the homotopy (H ≥ 4) that the solutions are H! in
// number where no path is lost and each solves its H equations.
func TestSolveFindsTruth(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for hc := 1; hc <= 4; hc++ {
		fact := 1
		for k := 2; k <= hc; k++ {
			fact *= k
		}
		lost, found := 0, 0
		const trials = 40
		for trial := 0; trial < trials; trial++ {
			r, rho, n := measurement(rng, hc)
			w := values(r, rho, n)
			res, err := Solve(r, n, w, 1)
			if err != nil {
				t.Fatal(err)
			}
			lost += res.Lost
			if hc >= 4 && res.Lost == 0 && len(res.Solutions) != fact {
				t.Errorf("H=%d: %d solutions, no path lost, want %d", hc, len(res.Solutions), fact)
			}
			ok := false
			for _, s := range res.Solutions {
				got := true
				for h := range s {
					if math.Abs(real(s[h])-rho[h]) > 1e-6*(1+rho[h]) || math.Abs(imag(s[h])) > 1e-6*(1+rho[h]) {
						got = false
					}
				}
				if got {
					ok = true
				}
				// Each end of a path solves its equations.
				for i, ni := range n[:hc] {
					if hc < 4 {
						break
					}
					var v complex128
					for h := range s {
						v += complex(r[h], 0) / (complex(ni, 0) + s[h])
					}
					if d := v - complex(w[i], 0); math.Hypot(real(d), imag(d)) > 1e-8*(1+math.Abs(w[i])) {
						t.Errorf("H=%d: an end misses equation %d by %g", hc, i, d)
					}
				}
			}
			switch {
			case ok:
				found++
			case res.Lost == 0:
				t.Errorf("H=%d: r=%.3g, ρ=%.4g: the true poles are not among %d solutions, and no path was lost", hc, r, rho, len(res.Solutions))
			}
		}
		t.Logf("H=%d: the true poles found in %d of %d systems; lost %d", hc, found, trials, lost)
		if hc <= 3 && found < trials {
			t.Errorf("H=%d: the true poles found in %d of %d systems", hc, found, trials)
		}
		if found < trials*9/10 {
			t.Errorf("H=%d: the true poles found in only %d of %d systems", hc, found, trials)
		}
	}
}

// TestGolden checks that Solve gives the same bits natively, under
// GOOS=js and on arm64 (where Go fuses products unless rounded): one
// golden digest of every solution of systems of one to five poles; and
// the same bits on one goroutine as on three.
func TestGolden(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var d digest.Digest
	for hc := 1; hc <= MaxPoles; hc++ {
		for trial := 0; trial < 3; trial++ {
			r, rho, n := measurement(rng, hc)
			res, err := Solve(r, n, values(r, rho, n), 1)
			if err != nil {
				t.Fatal(err)
			}
			if res3, err := Solve(r, n, values(r, rho, n), 3); err != nil || !reflect.DeepEqual(res3, res) {
				t.Errorf("H=%d, trial %d: on three goroutines %v, %v; on one %v", hc, trial, res3, err, res)
			}
			d.Add(float64(res.Lost), float64(len(res.Solutions)))
			for _, s := range res.Solutions {
				for _, v := range s {
					d.Add(real(v), imag(v))
				}
			}
		}
	}
	digest.Check(t, "solve", &d)
}

// TestSolveRefuses checks the errors of bad input, and that the
// equations of equal points or of no value are answered, not solved.
func TestSolveRefuses(t *testing.T) {
	for _, c := range []struct {
		name    string
		r, n, w []float64
	}{
		{"no poles", nil, []float64{1}, []float64{1}},
		{"six poles", make([]float64, 6), make([]float64, 7), make([]float64, 7)},
		{"values missing", []float64{1, 2}, []float64{1, 2}, []float64{1, 2}},
		{"equal points", []float64{1, 2}, []float64{1, 1, 2}, []float64{1, 2, 3}},
		{"NaN", []float64{1, math.NaN()}, []float64{1, 2, 3}, []float64{1, 2, 3}},
		{"Inf", []float64{1, 2}, []float64{1, 2, 3}, []float64{1, math.Inf(1), 3}},
	} {
		if _, err := Solve(c.r, c.n, c.w, 1); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	// Degenerate but well-formed: zero values and weights give no
	// solution, reported as lost, never a guess.
	for hc := 1; hc <= 4; hc++ {
		res, err := Solve(make([]float64, hc), []float64{1, 2, 3, 4, 5}[:hc+1], make([]float64, hc+1), 1)
		if err != nil {
			t.Fatalf("H=%d zeros: %v", hc, err)
		}
		if len(res.Solutions) > 0 && res.Lost == 0 {
			for _, s := range res.Solutions {
				for _, v := range s {
					if !math.IsNaN(real(v)) && !math.IsInf(real(v), 0) {
						continue
					}
					t.Errorf("H=%d zeros: a solution with NaN or Inf: %v", hc, s)
				}
			}
		}
	}
}

// TestRoots checks Roots on a polynomial with real and complex roots, and
// that it refuses what is not a polynomial.
func TestRoots(t *testing.T) {
	// (x − 2)(x + 0.5)(x² + 2x + 5): roots 2, −0.5, −1 ± 2i.
	got, ok := Roots([]float64{1, 0.5, 1, -9.5, -5})
	if !ok || len(got) != 4 {
		t.Fatalf("Roots = %v, %v", got, ok)
	}
	for _, want := range []complex128{2, -0.5, complex(-1, 2), complex(-1, -2)} {
		near := false
		for _, z := range got {
			if abs2(z-want) < 1e-24 {
				near = true
			}
		}
		if !near {
			t.Errorf("root %v not among %v", want, got)
		}
	}
	for _, c := range [][]float64{nil, {1}, {0, 1, 2}, {1, math.NaN()}, {1, math.Inf(1)}} {
		if z, ok := Roots(c); ok {
			t.Errorf("Roots(%v) = %v, want a refusal", c, z)
		}
	}
}

// TestOtherRoots checks the other two roots of a cubic with one root
// known, exactly or to 1e-9: real, complex, and a pair 1e-4 apart.
func TestOtherRoots(t *testing.T) {
	cubic := func(a, b, c complex128) []complex128 {
		return []complex128{1, -(a + b + c), mul(a, b) + mul(a, c) + mul(b, c), -mul(mul(a, b), c)}
	}
	for _, c := range []struct {
		x0, y1, y2 complex128
		off        float64
		tol        float64
	}{
		{2, 1, 3, 0, 1e-14},
		{2, 1, 3, 1e-9, 1e-12},
		{1, 1i, -1i, 0, 1e-14},
		{-0.5, 4, 4.0001, 1e-9, 1e-9},
		{3, -2 + 1i, -2 - 1i, 1e-9, 1e-12},
	} {
		_, y, ok := otherRoots(cubic(c.x0, c.y1, c.y2), c.x0+complex(c.off, 0))
		if !ok {
			t.Errorf("%v: refused", c)
			continue
		}
		if abs2(y[0]-c.y1) > abs2(y[0]-c.y2) {
			y[0], y[1] = y[1], y[0]
		}
		for k, want := range []complex128{c.y1, c.y2} {
			if d := abs2(y[k] - want); !(d <= c.tol*c.tol*(1+abs2(want))) {
				t.Errorf("%v: root %v, want %v", c, y[k], want)
			}
		}
	}
}
