package linalg

import "math"

// Cholesky factors the symmetric positive definite n×n row-major a in
// place into its lower triangular Cholesky factor L (a = LLᵀ; the upper
// triangle is left as it was). It reports false when a is not positive
// definite in floating point.
func Cholesky(a []float64, n int) bool {
	for j := 0; j < n; j++ {
		aj := a[j*n : (j+1)*n]
		d := aj[j]
		for k := 0; k < j; k++ {
			d -= float64(aj[k] * aj[k])
		}
		if !(d > 0) || math.IsInf(d, 0) {
			return false
		}
		d = math.Sqrt(d)
		aj[j] = d
		for i := j + 1; i < n; i++ {
			ai := a[i*n : (i+1)*n]
			v := ai[j]
			for k := 0; k < j; k++ {
				v -= float64(ai[k] * aj[k])
			}
			ai[j] = v / d
		}
	}
	return true
}

// CholSolve solves L Lᵀ x = b in place for the vector b, L the lower
// factor from Cholesky: CholSolveCols with one column, in the same order
// of operations (so the same numbers), without its per-entry slicing.
func CholSolve(l []float64, n int, b []float64) {
	b = b[:n]
	for i := 0; i < n; i++ {
		li := l[i*n : i*n+i+1]
		v := b[i]
		for k, lk := range li[:i] {
			if lk == 0 {
				continue
			}
			v -= float64(lk * b[k])
		}
		b[i] = v / li[i]
	}
	for i := n - 1; i >= 0; i-- {
		v := b[i]
		for k := i + 1; k < n; k++ {
			lk := l[k*n+i]
			if lk == 0 {
				continue
			}
			v -= float64(lk * b[k])
		}
		b[i] = v / l[i*n+i]
	}
}

// CholSolveCols solves L Lᵀ X = B in place for the n×m row-major B, L the
// lower factor from Cholesky.
func CholSolveCols(l []float64, n int, b []float64, m int) {
	// Forward: L Y = B.
	for i := 0; i < n; i++ {
		bi := b[i*m : (i+1)*m]
		li := l[i*n : (i+1)*n]
		for k := 0; k < i; k++ {
			lk := li[k]
			if lk == 0 {
				continue
			}
			bk := b[k*m : (k+1)*m]
			for c := range bi {
				bi[c] -= float64(lk * bk[c])
			}
		}
		d := li[i]
		for c := range bi {
			bi[c] /= d
		}
	}
	// Backward: Lᵀ X = Y.
	for i := n - 1; i >= 0; i-- {
		bi := b[i*m : (i+1)*m]
		for k := i + 1; k < n; k++ {
			lk := l[k*n+i]
			if lk == 0 {
				continue
			}
			bk := b[k*m : (k+1)*m]
			for c := range bi {
				bi[c] -= float64(lk * bk[c])
			}
		}
		d := l[i*n+i]
		for c := range bi {
			bi[c] /= d
		}
	}
}
