package linalg

import (
	"math"

	"headlab/numerics/internal/xmath"
)

// Householder triangularises the first k columns of the m×w row-major
// matrix a in place by Householder reflections, applying them to all w
// columns: afterwards the leading k×k block of a is R and the rows below
// it are zero in those columns. It reports false when m < k or a column
// is not finite.
func Householder(a []float64, m, w, k int) bool {
	if m < k {
		return false
	}
	v := make([]float64, m)
	for j := 0; j < k; j++ {
		var ss float64
		for i := j; i < m; i++ {
			ss += float64(a[i*w+j] * a[i*w+j])
		}
		nrm := math.Sqrt(ss)
		if math.IsInf(ss, 0) || (ss < 1e-280 && ss > 0) {
			// Out of range for the sum of squares: scale safely.
			nrm = 0
			for i := j; i < m; i++ {
				nrm = xmath.Hypot(nrm, a[i*w+j])
			}
		}
		if math.IsNaN(nrm) || math.IsInf(nrm, 0) {
			return false
		}
		if nrm == 0 {
			continue
		}
		alpha := -nrm
		if a[j*w+j] < 0 {
			alpha = nrm
		}
		for i := j; i < m; i++ {
			v[i] = a[i*w+j]
		}
		v[j] -= alpha
		var vv float64
		for i := j; i < m; i++ {
			vv += float64(v[i] * v[i])
		}
		if vv == 0 {
			continue
		}
		for c := j; c < w; c++ {
			var dot float64
			for i := j; i < m; i++ {
				dot += float64(v[i] * a[i*w+c])
			}
			f := 2 * dot / vv
			if f == 0 {
				continue
			}
			for i := j; i < m; i++ {
				a[i*w+c] -= float64(f * v[i])
			}
		}
		a[j*w+j] = alpha
		for i := j + 1; i < m; i++ {
			a[i*w+j] = 0
		}
	}
	return true
}

// BackSolve solves R x = b in place for the n×n upper triangular R
// (row-major). It reports false on a zero diagonal or a solution that is
// not finite.
func BackSolve(r []float64, n int, b []float64) bool {
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for c := i + 1; c < n; c++ {
			s -= float64(r[i*n+c] * b[c])
		}
		if r[i*n+i] == 0 {
			return false
		}
		b[i] = s / r[i*n+i]
		if math.IsNaN(b[i]) || math.IsInf(b[i], 0) {
			return false
		}
	}
	return true
}

// InvUpper returns the inverse of the n×n upper triangular R (row-major),
// itself upper triangular.
func InvUpper(r []float64, n int) []float64 {
	x := make([]float64, n*n)
	for j := 0; j < n; j++ {
		x[j*n+j] = 1 / r[j*n+j]
		for i := j - 1; i >= 0; i-- {
			var s float64
			for k := i + 1; k <= j; k++ {
				s += float64(r[i*n+k] * x[k*n+j])
			}
			x[i*n+j] = -s / r[i*n+i]
		}
	}
	return x
}

// SolveLS returns the least-squares solution of A x = b (A by rows, n
// columns) by Householder QR, and whether A has full column rank: false
// where a diagonal entry of R is at most 1e-10 times the largest.
func SolveLS(a [][]float64, b []float64, n int) ([]float64, bool) {
	m := len(a)
	if m < n {
		return nil, false
	}
	w := n + 1
	q := make([]float64, m*w)
	for i, row := range a {
		copy(q[i*w:i*w+n], row)
		q[i*w+n] = b[i]
	}
	if !Householder(q, m, w, n) {
		return nil, false
	}
	var big float64
	for i := 0; i < n; i++ {
		big = math.Max(big, math.Abs(q[i*w+i]))
	}
	r := make([]float64, n*n)
	x := make([]float64, n)
	for i := 0; i < n; i++ {
		if math.Abs(q[i*w+i]) <= 1e-10*big {
			return nil, false
		}
		copy(r[i*n:(i+1)*n], q[i*w:i*w+n])
		x[i] = q[i*w+n]
	}
	if !BackSolve(r, n, x) {
		return nil, false
	}
	return x, true
}

// Reflector returns the columns of the symmetric orthogonal Householder
// reflector H with H g = β e_1, g ≠ 0.
func Reflector(g []float64) [][]float64 {
	k := len(g)
	var nrm float64
	for _, v := range g {
		nrm = xmath.Hypot(nrm, v)
	}
	u := make([]float64, k)
	copy(u, g)
	if g[0] >= 0 {
		u[0] += nrm
	} else {
		u[0] -= nrm
	}
	var uu float64
	for _, v := range u {
		uu += float64(v * v)
	}
	hh := make([][]float64, k)
	for j := range hh {
		hh[j] = make([]float64, k)
		for i := 0; i < k; i++ {
			v := -2 * u[i] * u[j] / uu
			if i == j {
				v++
			}
			hh[j][i] = v
		}
	}
	return hh
}
