package rational

import (
	"math"
	"sort"

	"headlab/numerics/internal/xmath"
)

// The dense linear algebra of the fits is written out in plain Go, not
// taken from gonum: gonum's vector kernels run amd64 assembly that sums in
// a different order from the portable code used under GOOS=js, and headlab
// promises the same numbers natively and in the browser. The matrices are
// tiny (at most MaxPoles+1 columns).

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

// svdResult is A = U Σ Vᵀ with the singular values in decreasing order:
// s[j] = σ_j, v[j] the j-th right singular vector and us[j] = A v_j = σ_j u_j.
type svdResult struct {
	s  []float64
	v  [][]float64
	us [][]float64
}

// svd computes the singular value decomposition of a (any shape) by
// one-sided Jacobi rotations (Hestenes): columns are rotated in pairs until
// all are orthogonal; their norms are then the singular values. It is
// accurate to high relative precision and reports false if the sweeps do
// not converge or a value is not finite.
func svd(a *matrix) (svdResult, bool) {
	if !a.finite() {
		return svdResult{}, false
	}
	n := a.n
	w := a.clone()
	v := make([][]float64, n)
	for j := range v {
		v[j] = make([]float64, n)
		v[j][j] = 1
	}
	// Columns below this squared norm are rounding noise: rotating them
	// against the others only reshuffles the noise.
	var frob float64
	for _, c := range w.col {
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
				cp, cq := w.col[p], w.col[q]
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
	if !converged || !w.finite() {
		return svdResult{}, false
	}
	sv := make([]float64, n)
	for j, c := range w.col {
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
	out := svdResult{s: make([]float64, n), v: make([][]float64, n), us: make([][]float64, n)}
	for k, j := range idx {
		out.s[k], out.v[k], out.us[k] = sv[j], v[j], w.col[j]
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

// solve returns the minimum-norm least-squares solution of A x = b from
// the SVD, discarding singular values below rcond times the largest.
func (r svdResult) solve(b []float64, rcond float64) []float64 {
	n := len(r.s)
	x := make([]float64, n)
	if n == 0 || r.s[0] == 0 {
		return x
	}
	for j := 0; j < n; j++ {
		if r.s[j] <= rcond*r.s[0] {
			break
		}
		var ub float64
		for i, u := range r.us[j] {
			ub += float64(u * b[i])
		}
		f := ub / (r.s[j] * r.s[j])
		for i := range x {
			x[i] += float64(f * r.v[j][i])
		}
	}
	return x
}

// eigenvalues returns the eigenvalues of the n×n matrix a (rows), by
// reduction to Hessenberg form with Householder reflections and the
// Francis double-shift QR iteration (EISPACK's hqr). It reports false if
// the iteration does not converge.
func eigenvalues(rows [][]float64) ([]complex128, bool) {
	n := len(rows)
	// 1-based copy, as in the classical formulation.
	a := make([][]float64, n+1)
	for i := range a {
		a[i] = make([]float64, n+1)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if !finite(rows[i][j]) {
				return nil, false
			}
			a[i+1][j+1] = rows[i][j]
		}
	}
	hessenberg(a, n)
	wr := make([]float64, n+1)
	wi := make([]float64, n+1)
	if !hqr(a, n, wr, wi) {
		return nil, false
	}
	out := make([]complex128, n)
	for i := 1; i <= n; i++ {
		out[i-1] = complex(wr[i], wi[i])
	}
	return out, true
}

// hessenberg reduces the 1-based n×n matrix a to upper Hessenberg form by
// orthogonal similarity transformations.
func hessenberg(a [][]float64, n int) {
	v := make([]float64, n+1)
	for k := 1; k <= n-2; k++ {
		var nrm float64
		for i := k + 1; i <= n; i++ {
			nrm = xmath.Hypot(nrm, a[i][k])
		}
		if nrm == 0 {
			continue
		}
		alpha := -nrm
		if a[k+1][k] < 0 {
			alpha = nrm
		}
		for i := range v {
			v[i] = 0
		}
		for i := k + 1; i <= n; i++ {
			v[i] = a[i][k]
		}
		v[k+1] -= alpha
		var vv float64
		for i := k + 1; i <= n; i++ {
			vv += float64(v[i] * v[i])
		}
		if vv == 0 {
			continue
		}
		// A ← H A with H = I − 2vvᵀ/vᵀv.
		for j := 1; j <= n; j++ {
			var dot float64
			for i := k + 1; i <= n; i++ {
				dot += float64(v[i] * a[i][j])
			}
			f := 2 * dot / vv
			for i := k + 1; i <= n; i++ {
				a[i][j] -= float64(f * v[i])
			}
		}
		// A ← A H.
		for i := 1; i <= n; i++ {
			var dot float64
			for j := k + 1; j <= n; j++ {
				dot += float64(a[i][j] * v[j])
			}
			f := 2 * dot / vv
			for j := k + 1; j <= n; j++ {
				a[i][j] -= float64(f * v[j])
			}
		}
		for i := k + 2; i <= n; i++ {
			a[i][k] = 0
		}
	}
}

// hqr finds the eigenvalues (wr + i·wi, 1-based) of the 1-based upper
// Hessenberg matrix a, destroying it.
func hqr(a [][]float64, n int, wr, wi []float64) bool {
	sign := func(a, b float64) float64 {
		if b >= 0 {
			return math.Abs(a)
		}
		return -math.Abs(a)
	}
	var anorm float64
	for i := 1; i <= n; i++ {
		for j := max(i-1, 1); j <= n; j++ {
			anorm += math.Abs(a[i][j])
		}
	}
	nn := n
	t := 0.0
	var p, q, r, s, w, x, y, z float64
	for nn >= 1 {
		its := 0
		var l int
		for {
			for l = nn; l >= 2; l-- {
				s = math.Abs(a[l-1][l-1]) + math.Abs(a[l][l])
				if s == 0 {
					s = anorm
				}
				if math.Abs(a[l][l-1])+s == s {
					a[l][l-1] = 0
					break
				}
			}
			if l < 1 {
				l = 1
			}
			x = a[nn][nn]
			if l == nn {
				wr[nn] = x + t
				wi[nn] = 0
				nn--
			} else {
				y = a[nn-1][nn-1]
				w = float64(a[nn][nn-1] * a[nn-1][nn])
				if l == nn-1 {
					p = float64(0.5 * (y - x))
					q = float64(p*p) + w
					z = math.Sqrt(math.Abs(q))
					x += t
					if q >= 0 {
						z = p + sign(z, p)
						wr[nn-1], wr[nn] = x+z, x+z
						if z != 0 {
							wr[nn] = x - w/z
						}
						wi[nn-1], wi[nn] = 0, 0
					} else {
						wr[nn-1], wr[nn] = x+p, x+p
						wi[nn-1], wi[nn] = -z, z
					}
					nn -= 2
				} else {
					if its == 60 {
						return false
					}
					if its == 10 || its == 20 || its == 40 {
						// Exceptional shift.
						t += x
						for i := 1; i <= nn; i++ {
							a[i][i] -= x
						}
						s = math.Abs(a[nn][nn-1]) + math.Abs(a[nn-1][nn-2])
						x = 0.75 * s
						y = x
						w = -0.4375 * s * s
					}
					its++
					var m int
					for m = nn - 2; m >= l; m-- {
						z = a[m][m]
						r = x - z
						s = y - z
						p = (float64(r*s)-w)/a[m+1][m] + a[m][m+1]
						q = a[m+1][m+1] - z - r - s
						r = a[m+2][m+1]
						s = math.Abs(p) + math.Abs(q) + math.Abs(r)
						p /= s
						q /= s
						r /= s
						if m == l {
							break
						}
						u := float64(math.Abs(a[m][m-1]) * (math.Abs(q) + math.Abs(r)))
						v := float64(math.Abs(p) * (math.Abs(a[m-1][m-1]) + math.Abs(z) + math.Abs(a[m+1][m+1])))
						if u+v == v {
							break
						}
					}
					for i := m + 2; i <= nn; i++ {
						a[i][i-2] = 0
						if i != m+2 {
							a[i][i-3] = 0
						}
					}
					for k := m; k <= nn-1; k++ {
						if k != m {
							p = a[k][k-1]
							q = a[k+1][k-1]
							r = 0
							if k != nn-1 {
								r = a[k+2][k-1]
							}
							x = math.Abs(p) + math.Abs(q) + math.Abs(r)
							if x != 0 {
								p /= x
								q /= x
								r /= x
							}
						}
						s = sign(math.Sqrt(float64(p*p)+float64(q*q)+float64(r*r)), p)
						if s == 0 {
							continue
						}
						if k == m {
							if l != m {
								a[k][k-1] = -a[k][k-1]
							}
						} else {
							a[k][k-1] = -s * x
						}
						p += s
						x = p / s
						y = q / s
						z = r / s
						q /= p
						r /= p
						for j := k; j <= nn; j++ {
							p = a[k][j] + float64(q*a[k+1][j])
							if k != nn-1 {
								p += float64(r * a[k+2][j])
								a[k+2][j] -= float64(p * z)
							}
							a[k+1][j] -= float64(p * y)
							a[k][j] -= float64(p * x)
						}
						mmin := min(nn, k+3)
						for i := l; i <= mmin; i++ {
							p = float64(x*a[i][k]) + float64(y*a[i][k+1])
							if k != nn-1 {
								p += float64(z * a[i][k+2])
								a[i][k+2] -= float64(p * r)
							}
							a[i][k+1] -= float64(p * q)
							a[i][k] -= p
						}
					}
				}
			}
			if nn < 1 || l >= nn-1 {
				break
			}
		}
	}
	for i := 1; i <= n; i++ {
		if !finite(wr[i]) || !finite(wi[i]) {
			return false
		}
	}
	return true
}
