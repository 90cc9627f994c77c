package linalg

import (
	"math"
	"sort"
)

// SVD is A = U Σ Vᵀ with the singular values in decreasing order:
// S[j] = σ_j, V[j] the j-th right singular vector and US[j] = A v_j =
// σ_j u_j.
type SVD struct {
	S  []float64
	V  [][]float64
	US [][]float64
}

// JacobiSVD computes the singular value decomposition of the matrix with
// columns cols (any shape; not changed) by one-sided Jacobi rotations
// (Hestenes): columns are rotated in pairs until all are orthogonal; their
// norms are then the singular values. It is accurate to high relative
// precision and reports false if the sweeps do not converge or a value is
// not finite.
func JacobiSVD(cols [][]float64) (SVD, bool) {
	if !allFinite(cols) {
		return SVD{}, false
	}
	n := len(cols)
	w := make([][]float64, n)
	for j, c := range cols {
		w[j] = append([]float64(nil), c...)
	}
	v := make([][]float64, n)
	for j := range v {
		v[j] = make([]float64, n)
		v[j][j] = 1
	}
	// Columns below this squared norm are rounding noise: rotating them
	// against the others only reshuffles the noise.
	var frob float64
	for _, c := range w {
		for _, x := range c {
			frob += float64(x * x)
		}
	}
	tiny := float64(1e-34*frob) + math.SmallestNonzeroFloat64
	converged := false
	for sweep := 0; sweep < 80 && !converged; sweep++ {
		converged = true
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				cp, cq := w[p], w[q]
				var alpha, beta, gamma float64
				for i := range cp {
					alpha += float64(cp[i] * cp[i])
					beta += float64(cq[i] * cq[i])
					gamma += float64(cp[i] * cq[i])
				}
				if gamma == 0 || alpha <= tiny || beta <= tiny || math.Abs(gamma) <= 1e-15*math.Sqrt(alpha)*math.Sqrt(beta) {
					continue
				}
				converged = false
				zeta := (beta - alpha) / (2 * gamma)
				var t float64
				if math.Abs(zeta) > 1e150 {
					t = 1 / (2 * zeta)
				} else {
					t = 1 / (math.Abs(zeta) + math.Sqrt(1+float64(zeta*zeta)))
					if zeta < 0 {
						t = -t
					}
				}
				c := 1 / math.Sqrt(1+float64(t*t))
				s := c * t
				rotate(cp, cq, c, s)
				rotate(v[p], v[q], c, s)
			}
		}
	}
	if !converged || !allFinite(w) {
		return SVD{}, false
	}
	sv := make([]float64, n)
	for j, c := range w {
		var ss float64
		for _, x := range c {
			ss += float64(x * x)
		}
		sv[j] = math.Sqrt(ss)
	}
	idx := make([]int, n)
	for j := range idx {
		idx[j] = j
	}
	sort.SliceStable(idx, func(a, b int) bool { return sv[idx[a]] > sv[idx[b]] })
	out := SVD{S: make([]float64, n), V: make([][]float64, n), US: make([][]float64, n)}
	for k, j := range idx {
		out.S[k], out.V[k], out.US[k] = sv[j], v[j], w[j]
	}
	return out, true
}

func rotate(x, y []float64, c, s float64) {
	for i := range x {
		xi, yi := x[i], y[i]
		x[i] = float64(c*xi) - float64(s*yi)
		y[i] = float64(s*xi) + float64(c*yi)
	}
}

// Solve returns the minimum-norm least-squares solution of A x = b from
// the SVD, discarding singular values below rcond times the largest.
func (r SVD) Solve(b []float64, rcond float64) []float64 {
	n := len(r.S)
	x := make([]float64, n)
	if n == 0 || r.S[0] == 0 {
		return x
	}
	for j := 0; j < n; j++ {
		if r.S[j] <= rcond*r.S[0] {
			break
		}
		var ub float64
		for i, u := range r.US[j] {
			ub += float64(u * b[i])
		}
		f := ub / (r.S[j] * r.S[j])
		for i := range x {
			x[i] += float64(f * r.V[j][i])
		}
	}
	return x
}

// allFinite reports whether every entry of the columns is finite.
func allFinite(cols [][]float64) bool {
	for _, c := range cols {
		for _, v := range c {
			if !finite(v) {
				return false
			}
		}
	}
	return true
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
