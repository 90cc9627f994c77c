package linalg

import "math"

// Line solves the m × c system a·x = b (a by rows), c ∈ {m, m + 1}, by
// Gaussian elimination with complete pivoting: x = base (c = m), or the
// line x = base + τ·dir of its solutions (c = m + 1), whose free unknown
// is the column left without a pivot. False where a is rank deficient: a
// pivot at most 1e-14 times a's largest magnitude. a and b are
// overwritten. LineBig is its extended-precision counterpart.
func Line(a [][]float64, b []float64) (base, dir []float64, ok bool) {
	m, c := len(a), len(a[0])
	perm := make([]int, c) // perm[k]: the unknown in column k
	for k := range perm {
		perm[k] = k
	}
	var scale float64
	for i := range a {
		for _, v := range a[i] {
			scale = math.Max(scale, math.Abs(v))
		}
	}
	for k := 0; k < m; k++ {
		pr, pc := k, k
		for i := k; i < m; i++ {
			for j := k; j < c; j++ {
				if math.Abs(a[i][j]) > math.Abs(a[pr][pc]) {
					pr, pc = i, j
				}
			}
		}
		if !(math.Abs(a[pr][pc]) > 1e-14*scale) {
			return nil, nil, false
		}
		a[k], a[pr] = a[pr], a[k]
		b[k], b[pr] = b[pr], b[k]
		for i := range a {
			a[i][k], a[i][pc] = a[i][pc], a[i][k]
		}
		perm[k], perm[pc] = perm[pc], perm[k]
		for i := k + 1; i < m; i++ {
			f := a[i][k] / a[k][k]
			for j := k; j < c; j++ {
				a[i][j] -= float64(f * a[k][j])
			}
			b[i] -= float64(f * b[k])
		}
	}
	// Back substitution with the free unknown (column m, if any) at τ = 0
	// for base and at τ = 1 with b = 0 for dir.
	back := func(rhs []float64, free float64) []float64 {
		y := make([]float64, c)
		if c > m {
			y[m] = free
		}
		for i := m - 1; i >= 0; i-- {
			v := rhs[i]
			for j := i + 1; j < c; j++ {
				v -= float64(a[i][j] * y[j])
			}
			y[i] = v / a[i][i]
		}
		x := make([]float64, c)
		for k, u := range perm {
			x[u] = y[k]
		}
		return x
	}
	base = back(b, 0)
	if c > m {
		dir = back(make([]float64, m), 1)
	}
	return base, dir, true
}
