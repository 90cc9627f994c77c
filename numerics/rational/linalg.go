package rational

// The dense linear algebra of the fits (the Jacobi SVD, the eigenvalues,
// the Householder reflector) is numerics/internal/linalg's, which says
// why it is not gonum's. The matrices are tiny (at most MaxPoles+1
// columns).

// matrix is a dense m×n matrix stored by columns.
type matrix struct {
	m, n int
	col  [][]float64
}

// misfit returns |A x − b|².
func (a *matrix) misfit(x, b []float64) float64 {
	var ss float64
	for i, bi := range b {
		r := -bi
		for j, c := range a.col {
			r += float64(c[i] * x[j])
		}
		ss += float64(r * r)
	}
	return ss
}

func newMatrix(m, n int) *matrix {
	a := &matrix{m: m, n: n, col: make([][]float64, n)}
	for j := range a.col {
		a.col[j] = make([]float64, m)
	}
	return a
}

func (a *matrix) at(i, j int) float64     { return a.col[j][i] }
func (a *matrix) set(i, j int, v float64) { a.col[j][i] = v }

func (a *matrix) finite() bool {
	for _, c := range a.col {
		for _, v := range c {
			if !finite(v) {
				return false
			}
		}
	}
	return true
}

func (a *matrix) clone() *matrix {
	b := &matrix{m: a.m, n: a.n, col: make([][]float64, a.n)}
	for j, c := range a.col {
		b.col[j] = append([]float64(nil), c...)
	}
	return b
}
