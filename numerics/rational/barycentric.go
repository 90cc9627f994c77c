package rational

import (
	"math"

	"headlab/numerics/internal/linalg"
	"headlab/numerics/internal/xmath"
)

// aaa chooses k support points greedily, as the AAA algorithm does (each
// new support point is the sample the current barycentric interpolant
// misses most), and returns them with the barycentric weights of the final
// interpolant of type (k−1, k−1) (type (k−2, k−1) when C is known).
func (p *problem) aaa(k int) (sup []int, w []float64, err error) {
	m := len(p.x)
	in := make([]bool, m)
	r := make([]float64, m) // current approximant at the samples
	if !p.knownC {
		var mean float64
		for _, g := range p.g {
			mean += g
		}
		mean /= float64(m)
		for i := range r {
			r[i] = mean
		}
	}
	for len(sup) < k {
		best, worst := -1, -1.0
		for i := range p.x {
			if in[i] {
				continue
			}
			if d := math.Abs(p.g[i] - r[i]); d > worst {
				best, worst = i, d
			}
		}
		sup = append(sup, best)
		in[best] = true
		w, err = p.weights(sup, in)
		if err != nil {
			return nil, nil, err
		}
		for i := range p.x {
			if !in[i] {
				r[i] = barycentric(p.x, p.g, sup, w, p.x[i])
			}
		}
	}
	return sup, w, nil
}

// barycentric evaluates Σ w_j g_j/(x−x_j) / Σ w_j/(x−x_j) over the support.
func barycentric(x, g []float64, sup []int, w []float64, at float64) float64 {
	var num, den float64
	for k, i := range sup {
		t := w[k] / (at - x[i])
		num += float64(t * g[i])
		den += t
	}
	return num / den
}

// weights returns the barycentric weights for the support sup: the right
// singular vector of the Loewner matrix L_tj = (g_t − g_j)/(x_t − x_j) (t
// over the other samples) for its smallest singular value, from the full
// SVD. With C known the weights are also orthogonal to the support values,
// so that the interpolant vanishes at infinity.
func (p *problem) weights(sup []int, in []bool) ([]float64, error) {
	k := len(sup)
	if k == 1 {
		return []float64{1}, nil
	}
	// Basis Q of the admissible weights (k×kq), by columns.
	q := make([][]float64, k)
	for j := range q {
		q[j] = make([]float64, k)
		q[j][j] = 1
	}
	if p.knownC {
		gs := make([]float64, k)
		var nrm float64
		for j, i := range sup {
			gs[j] = p.g[i]
			nrm = xmath.Hypot(nrm, gs[j])
		}
		if nrm > 0 {
			q = complement(gs)
		}
	}
	kq := len(q)
	var rows [][]float64
	for t := range p.x {
		if in[t] {
			continue
		}
		row := make([]float64, k)
		for j, i := range sup {
			row[j] = (p.g[t] - p.g[i]) / (p.x[t] - p.x[i])
		}
		rows = append(rows, row)
	}
	y := make([]float64, kq)
	if len(rows) == 0 {
		y[0] = 1
	} else {
		lq := newMatrix(len(rows), kq)
		for t, row := range rows {
			for c := 0; c < kq; c++ {
				var acc float64
				for j := 0; j < k; j++ {
					acc += float64(row[j] * q[c][j])
				}
				lq.set(t, c, acc)
			}
		}
		dec, ok := linalg.JacobiSVD(lq.col)
		if !ok {
			return nil, errorf(Degenerate, "SVD of the Loewner matrix failed")
		}
		copy(y, dec.V[kq-1])
	}
	w := make([]float64, k)
	for c := 0; c < kq; c++ {
		for j := range w {
			w[j] += float64(q[c][j] * y[c])
		}
	}
	return w, nil
}

// complement returns k−1 orthonormal vectors spanning the orthogonal
// complement of the non-zero vector g: the last k−1 columns of the
// Householder reflector that maps g to a multiple of e_1.
func complement(g []float64) [][]float64 {
	hh := linalg.Reflector(g)
	return hh[1:]
}

// barycentricPoles returns the zeros of the barycentric denominator
// D(λ) = Σ_j w_j/(λ − x_j), which are the finite eigenvalues of the
// arrowhead pencil
//
//	[0 wᵀ; e X] − λ [0 0; 0 I],   X = diag(x), e = (1, …, 1)ᵀ.
//
// The pencil is deflated to a standard eigenproblem of size k−1: an
// eigenvector (a; x) has wᵀx = 0 and (X − λ)x = −a·e. With the reflector H
// mapping w to β e_1, y = Hx has y_1 = 0; with M = H X H and g = H e the
// first row gives a = −M_{1,2:} ŷ / g_1 and the others
//
//	(M_{2:,2:} − g_{2:} M_{1,2:} / g_1) ŷ = λ ŷ.
//
// g_1 = Σ w_j/β vanishes exactly when D has a zero at infinity, that is,
// fewer than k−1 finite poles.
func barycentricPoles(x, w []float64) ([]complex128, error) {
	k := len(w)
	if k < 2 {
		return nil, nil
	}
	var wn, ws float64
	for _, v := range w {
		wn = xmath.Hypot(wn, v)
		ws += v
	}
	if !(wn > 0) || !finite(wn) {
		return nil, errorf(Degenerate, "barycentric weights vanish")
	}
	hh := linalg.Reflector(w) // symmetric: hh[j][i] = H_ij
	// M = H X H and g = H e.
	m := make([][]float64, k)
	g := make([]float64, k)
	for i := 0; i < k; i++ {
		m[i] = make([]float64, k)
		for j := 0; j < k; j++ {
			var acc float64
			for l := 0; l < k; l++ {
				acc += float64(hh[l][i] * x[l] * hh[j][l])
			}
			m[i][j] = acc
			g[i] += hh[j][i]
		}
	}
	var gn float64
	for _, v := range g {
		gn = xmath.Hypot(gn, v)
	}
	if math.Abs(g[0]) <= 1e-14*gn || math.Abs(ws) <= 1e-14*wn {
		return nil, errorf(Degenerate, "a pole at infinity: the samples show fewer than %d finite poles", k-1)
	}
	kk := make([][]float64, k-1)
	for i := 1; i < k; i++ {
		kk[i-1] = make([]float64, k-1)
		for j := 1; j < k; j++ {
			v := m[i][j] - g[i]*m[0][j]/g[0]
			if !finite(v) {
				return nil, errorf(Degenerate, "pole matrix is not finite")
			}
			kk[i-1][j-1] = v
		}
	}
	if k == 2 {
		return []complex128{complex(kk[0][0], 0)}, nil
	}
	lam, ok := linalg.Eigenvalues(kk)
	if !ok {
		return nil, errorf(Degenerate, "eigenvalues of the pole matrix did not converge")
	}
	return lam, nil
}
