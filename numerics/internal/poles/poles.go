// Package poles finds every solution of the equations of a frugal
// measurement (numerics/MATH.md §3.4, "frugal"): H unknown poles ρ_h of a
// sum of simple fractions whose weights r_h are known, from H + 1 values,
//
//	Σ_h r_h / (n_i + ρ_h) = w_i,   i = 0…H.
//
// Up to three poles it eliminates (small.go): cleared of denominators the
// equations are linear in the coefficients of D(x) = Π_h (x + ρ_h) and of
// the numerator Q, which leaves a family of dimension H − 2 and the
// condition that Q/D has the residue r_h at −ρ_h; for H ≤ 3 that is one
// polynomial in one unknown. For four and five poles it follows every
// path of a homotopy of H of the equations (homotopy.go).
//
// Every product is rounded explicitly (as in numerics/internal/xmath), so
// that the solutions are the same bits on every platform.
package poles

import (
	"errors"
	"math"
)

// MaxPoles is the largest H Solve takes: the homotopy follows H! paths,
// 120 at H = 5.
const MaxPoles = 5

// Result is what Solve found. Every solution of the equations is among
// Solutions (for values with noise: near one of them), which may hold
// more: labelled solutions whose residues only roughly match the weights
// (H ≤ 3), or solutions of H of the equations only (H ≥ 4). A caller fits
// each to all the values and keeps those that fit. Lost counts the
// homotopy's paths that did not reach their end (a step shrunk to
// nothing, a pole beyond every bound, or another path's end reached
// twice): where it is above 0 a solution may be missing.
type Result struct {
	Solutions [][]complex128
	Lost      int
}

// Solve returns the solutions ρ ∈ ℂ^H of Σ_h r[h]/(n[i] + ρ_h) = w[i] for
// H = len(r) and H + 1 values (len(n) = len(w) = H + 1, n distinct). The
// homotopy follows its paths on up to workers goroutines at once (1 or
// less: on the caller's); the result is the same bits for any number.
func Solve(r, n, w []float64, workers int) (Result, error) {
	hc := len(r)
	if hc == 0 || hc > MaxPoles {
		return Result{}, errors.New("poles: the number of poles must be 1…5")
	}
	if len(n) != hc+1 || len(w) != hc+1 {
		return Result{}, errors.New("poles: H poles need H + 1 values")
	}
	for i := range n {
		for j := i + 1; j < len(n); j++ {
			if n[i] == n[j] {
				return Result{}, errors.New("poles: the sample points must be distinct")
			}
		}
	}
	for _, v := range append(append(append([]float64(nil), r...), n...), w...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Result{}, errors.New("poles: the data must be finite")
		}
	}
	if hc <= 3 {
		return eliminate(r, n, w)
	}
	return homotopy(r, n[:hc], w[:hc], workers)
}
