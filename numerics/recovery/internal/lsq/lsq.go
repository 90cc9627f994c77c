// Package lsq fits small nonlinear least-squares problems by
// Levenberg–Marquardt and solves overdetermined linear systems robustly,
// in float64 with every rounding written out (no fused multiply-add the
// code does not ask for), so a fit gives the same bits on every platform.
package lsq

import (
	"math"

	"headlab/numerics/internal/linalg"
	"headlab/numerics/internal/stopping"
)

// Problem is a small nonlinear least-squares problem: M weighted
// residuals e_i(x) in N unknowns. Resid writes e(x) into e (length M);
// Jac writes the Jacobian ∂e_i/∂x_c into j, row-major M×N. Neither keeps
// its arguments, so one fit reuses its buffers for every evaluation. U
// holds each residual's rounding (stopping.Rounding).
type Problem struct {
	M, N  int
	Resid func(x, e []float64)
	Jac   func(x, j []float64)
	U     []float64
}

// Jacobian returns the Jacobian at x in a new M×N row-major slice.
func (p Problem) Jacobian(x []float64) []float64 {
	j := make([]float64, p.M*p.N)
	p.Jac(x, j)
	return j
}

// LevenbergMarquardt minimises Σ e_i(x)² from x0: each step is the
// least-squares solution of the Jacobian, with columns scaled to unit
// norm, augmented by √λ·I, solved by Cholesky of the normal equations
// formed once per point for every λ tried (the problems are small and the
// fixed point is set by the residuals; a step that does not lower the sum
// is rejected); λ shrinks tenfold after a successful step and grows
// tenfold after a failed one. The fit ends after maxIter accepted steps,
// when steps stop lowering the sum, or when no step can lower it by more
// than its rounding (package stopping). It returns the best point and its
// sum of squares.
func LevenbergMarquardt(p Problem, x0 []float64, maxIter int) ([]float64, float64) {
	n, m := p.N, p.M
	x := append([]float64(nil), x0...)
	nx := make([]float64, n)
	e, ne := make([]float64, m), make([]float64, m)
	j := make([]float64, m*n)
	jtj, jte, scale := make([]float64, n*n), make([]float64, n), make([]float64, n)
	work, step := make([]float64, n*n), make([]float64, n)
	p.Resid(x, e)
	ss, floor := SumSquares(e), stopping.Floor(e, p.U)
	lambda := 1e-12
	small := 0
	for iter := 0; iter < maxIter && ss > 0 && n > 0; iter++ {
		p.Jac(x, j)
		for c := 0; c < n; c++ {
			var s float64
			for r := 0; r < m; r++ {
				s += float64(j[r*n+c] * j[r*n+c])
			}
			scale[c] = math.Sqrt(s)
			if scale[c] == 0 || math.IsNaN(scale[c]) || math.IsInf(scale[c], 0) {
				scale[c] = 1
			}
		}
		// Normal equations of the scaled Jacobian, once per point: every
		// damping tried solves (ĴᵀĴ + λI) ŝ = −Ĵᵀe by Cholesky.
		scaledNormal(j, e, scale, jtj, jte)
		accepted := false
		for lambda < 1e10 {
			pred, ok := dampedNormalStep(jtj, jte, scale, lambda, work, step)
			if ok && stopping.Negligible(pred, ss, floor) {
				// More damping only shrinks the step: x is the fixed point.
				return x, ss
			}
			if ok {
				for c := range nx {
					nx[c] = x[c] + step[c]
				}
				p.Resid(nx, ne)
				if nss := SumSquares(ne); nss < ss {
					if ss-nss <= 1e-10*ss && lambda <= 1e-8 {
						small++
					} else {
						small = 0
					}
					x, nx = nx, x
					e, ne = ne, e
					ss, floor = nss, stopping.Floor(e, p.U)
					lambda = math.Max(lambda/10, 1e-14)
					accepted = true
					break
				}
			}
			lambda *= 10
		}
		if !accepted || small >= 2 {
			break
		}
	}
	return x, ss
}

// scaledNormal divides the columns of the m×n row-major Jacobian j by
// scale, in place, and writes ĴᵀĴ (n×n, row-major) into jtj and −Ĵᵀe
// into jte.
func scaledNormal(j, e, scale, jtj, jte []float64) {
	n := len(scale)
	clear(jtj)
	clear(jte)
	for r := range e {
		row := j[r*n : (r+1)*n]
		for c := range row {
			row[c] /= scale[c]
		}
		er := -e[r]
		for c, v := range row {
			if v == 0 {
				continue
			}
			jte[c] += float64(v * er)
			tc := jtj[c*n : (c+1)*n]
			for k := c; k < n; k++ {
				tc[k] += float64(v * row[k])
			}
		}
	}
	for c := 0; c < n; c++ {
		for k := 0; k < c; k++ {
			jtj[c*n+k] = jtj[k*n+c]
		}
	}
}

// dampedNormalStep solves min |J δ + e|² + λ|D δ|², D the column norms of
// J, by Cholesky of the scaled normal equations (ĴᵀĴ + λI) ŝ = −Ĵᵀe,
// δ = ŝ/D, into step. work (n×n) is its buffer. It returns the reduction
// of |e|² the linear model predicts for the step.
func dampedNormalStep(jtj, jte, scale []float64, lambda float64, work, step []float64) (float64, bool) {
	n := len(scale)
	a := work[:n*n]
	copy(a, jtj)
	for c := 0; c < n; c++ {
		a[c*n+c] += lambda
	}
	if !linalg.Cholesky(a, n) {
		return 0, false
	}
	copy(step, jte)
	linalg.CholSolve(a, n, step)
	// |e|² − |e + Ĵŝ|² = 2ŝᵀg − ŝᵀĴᵀĴŝ with g = −Ĵᵀe, and ĴᵀĴŝ = g − λŝ.
	var pred float64
	for c, v := range step {
		pred += float64(v * float64(jte[c]+float64(lambda*v)))
	}
	for c := range step {
		step[c] /= scale[c]
		if math.IsNaN(step[c]) || math.IsInf(step[c], 0) {
			return 0, false
		}
	}
	return pred, true
}

// SumSquares returns Σ e_i², summed in order, +Inf when it is NaN.
func SumSquares(e []float64) float64 {
	var s float64
	for _, v := range e {
		s += float64(v * v)
	}
	if math.IsNaN(s) {
		return math.Inf(1)
	}
	return s
}

// StandardErrors returns √diag((JᵀJ)⁻¹)·√scale for the m×n row-major
// Jacobian j, +Inf for parameters it does not determine. It overwrites j.
func StandardErrors(j []float64, m, n int, scale float64) []float64 {
	if m == 0 {
		return nil
	}
	out := make([]float64, n)
	a := j
	if m < n || !linalg.Householder(a, m, n, n) {
		for i := range out {
			out[i] = math.Inf(1)
		}
		return out
	}
	r := make([]float64, n*n)
	for i := 0; i < n; i++ {
		copy(r[i*n:(i+1)*n], a[i*n:(i+1)*n])
		if r[i*n+i] == 0 {
			for k := range out {
				out[k] = math.Inf(1)
			}
			return out
		}
	}
	x := linalg.InvUpper(r, n)
	for i := 0; i < n; i++ {
		var v float64
		for c := i; c < n; c++ {
			v += float64(x[i*n+c] * x[i*n+c])
		}
		out[i] = math.Sqrt(v * scale)
		if math.IsNaN(out[i]) {
			out[i] = math.Inf(1)
		}
	}
	return out
}

// Robust solves the weighted least-squares problem A x ≈ b with
// standard errors sd. While the largest normalised residual exceeds 10 it
// drops that equation if every unknown the equation involves keeps at
// least two others (a majority to side with). Otherwise the disagreement
// cannot be settled from the equations alone: with depth left, it returns
// the solutions with the offending equation dropped and with each
// equation it disagrees with dropped, for the caller to test against the
// samples. It returns nothing when x is not determined.
func Robust(a [][]float64, b, sd []float64, n, depth int) [][]float64 {
	for {
		wa := make([][]float64, len(a))
		wb := make([]float64, len(a))
		for e := range a {
			wa[e] = make([]float64, n)
			for c := range a[e] {
				wa[e][c] = a[e][c] / sd[e]
			}
			wb[e] = b[e] / sd[e]
		}
		x, ok := linalg.SolveLS(wa, wb, n)
		if !ok {
			return nil
		}
		res := make([]float64, len(a))
		worst, at := 0.0, -1
		for e := range a {
			var y float64
			for c := range a[e] {
				y += float64(a[e][c] * x[c])
			}
			res[e] = math.Abs(y-b[e]) / sd[e]
			if res[e] > worst {
				worst, at = res[e], e
			}
		}
		if worst <= 10 {
			return [][]float64{x}
		}
		majority := true
		var rivals []int
		for c := 0; c < n; c++ {
			if a[at][c] == 0 {
				continue
			}
			others := 0
			for e := range a {
				if e != at && a[e][c] != 0 {
					others++
					if res[e] > 3 {
						rivals = append(rivals, e)
					}
				}
			}
			if others < 2 {
				majority = false
			}
		}
		if majority {
			a, b, sd = without(a, at), without(b, at), without(sd, at)
			continue
		}
		if depth == 0 {
			return nil
		}
		var out [][]float64
		for _, e := range append([]int{at}, rivals...) {
			for _, x := range Robust(without(a, e), without(b, e), without(sd, e), n, depth-1) {
				out = AppendDistinct(out, x)
			}
		}
		return out
	}
}

// without returns s without element i.
func without[T any](s []T, i int) []T {
	return append(append([]T(nil), s[:i]...), s[i+1:]...)
}

// AppendDistinct appends x to xs unless xs holds it already, to within
// 1e-9 relative in every coordinate.
func AppendDistinct(xs [][]float64, x []float64) [][]float64 {
	for _, y := range xs {
		same := true
		for i := range x {
			if math.Abs(x[i]-y[i]) > 1e-9*(1+math.Abs(y[i])) {
				same = false
				break
			}
		}
		if same {
			return xs
		}
	}
	return append(xs, x)
}
