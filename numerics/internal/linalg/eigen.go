package linalg

import (
	"math"

	"headlab/numerics/internal/xmath"
)

// Eigenvalues returns the eigenvalues of the n×n matrix a (rows), by
// reduction to Hessenberg form with Householder reflections and the
// Francis double-shift QR iteration (EISPACK's hqr). It reports false if
// the iteration does not converge.
func Eigenvalues(rows [][]float64) ([]complex128, bool) {
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
