package recovery

import (
	"math"
	"sort"
)

// candidates returns labellings to try for an n×n cost matrix
// (cost[h][b]: head h takes pole b), cheapest first: every permutation
// when n ≤ 4, otherwise the optimal assignment and all its transpositions.
func candidates(cost [][]float64) [][]int {
	n := len(cost)
	var out [][]int
	if n <= 4 {
		out = permutations(n)
	} else {
		best := hungarian(cost)
		out = append(out, best)
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				p := append([]int(nil), best...)
				p[a], p[b] = p[b], p[a]
				out = append(out, p)
			}
		}
	}
	total := func(p []int) float64 {
		var s float64
		for h, b := range p {
			s += cost[h][b]
		}
		if math.IsNaN(s) {
			return math.Inf(1)
		}
		return s
	}
	sort.SliceStable(out, func(i, j int) bool { return total(out[i]) < total(out[j]) })
	return out
}

// permutations returns every permutation of 0…n−1 in lexicographic order.
func permutations(n int) [][]int {
	var out [][]int
	p := make([]int, n)
	used := make([]bool, n)
	var walk func(k int)
	walk = func(k int) {
		if k == n {
			out = append(out, append([]int(nil), p...))
			return
		}
		for v := 0; v < n; v++ {
			if !used[v] {
				used[v] = true
				p[k] = v
				walk(k + 1)
				used[v] = false
			}
		}
	}
	walk(0)
	return out
}

// hungarian returns the assignment p (row h takes column p[h]) minimising
// Σ cost[h][p[h]], by the O(n³) Hungarian method with potentials.
func hungarian(cost [][]float64) []int {
	n := len(cost)
	const big = 1e300
	c := func(i, j int) float64 {
		v := cost[i][j]
		if math.IsNaN(v) || v > big {
			return big
		}
		return v
	}
	u := make([]float64, n+1)
	v := make([]float64, n+1)
	match := make([]int, n+1) // column j (1-based) → row (1-based)
	way := make([]int, n+1)
	for i := 1; i <= n; i++ {
		match[0] = i
		j0 := 0
		minv := make([]float64, n+1)
		used := make([]bool, n+1)
		for j := range minv {
			minv[j] = math.Inf(1)
		}
		for {
			used[j0] = true
			i0, delta, j1 := match[j0], math.Inf(1), 0
			for j := 1; j <= n; j++ {
				if used[j] {
					continue
				}
				cur := c(i0-1, j-1) - u[i0] - v[j]
				if cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			if j1 == 0 {
				break
			}
			for j := 0; j <= n; j++ {
				if used[j] {
					u[match[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if match[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			match[j0] = match[j1]
			j0 = j1
		}
	}
	p := make([]int, n)
	for i := range p {
		p[i] = -1
	}
	for j := 1; j <= n; j++ {
		if match[j] > 0 {
			p[match[j]-1] = j - 1
		}
	}
	// Fill any row left unassigned (only with infinite costs).
	taken := make([]bool, n)
	for _, b := range p {
		if b >= 0 {
			taken[b] = true
		}
	}
	for h := range p {
		if p[h] < 0 {
			for b := range taken {
				if !taken[b] {
					p[h], taken[b] = b, true
					break
				}
			}
		}
	}
	return p
}

// gaussNewton minimises Σ e_i(x)² from x0 by Levenberg–Marquardt: each
// step is the least-squares solution of the Jacobian, with columns scaled to
// unit norm, augmented by √λ·I (Householder QR, so the condition number is
// not squared); λ shrinks after a successful step and grows after a failed
// one. jac returns the Jacobian by rows. It returns the best point and its
// sum of squares.
func gaussNewton(x0 []float64, resid func([]float64) []float64, jac func([]float64) [][]float64, maxIter int) ([]float64, float64) {
	x := append([]float64(nil), x0...)
	e := resid(x)
	ss := sumSquares(e)
	n := len(x)
	lambda := 1e-12
	small := 0
	for iter := 0; iter < maxIter && ss > 0 && n > 0; iter++ {
		j := jac(x)
		m := len(j)
		scale := make([]float64, n)
		for c := 0; c < n; c++ {
			var s float64
			for r := 0; r < m; r++ {
				s += j[r][c] * j[r][c]
			}
			scale[c] = math.Sqrt(s)
			if scale[c] == 0 || math.IsNaN(scale[c]) || math.IsInf(scale[c], 0) {
				scale[c] = 1
			}
		}
		accepted := false
		for lambda < 1e10 {
			step, ok := dampedStep(j, e, scale, lambda)
			if ok {
				nx := make([]float64, n)
				for c := range nx {
					nx[c] = x[c] + step[c]
				}
				ne := resid(nx)
				if nss := sumSquares(ne); nss < ss {
					if ss-nss <= 1e-10*ss && lambda <= 1e-8 {
						small++
					} else {
						small = 0
					}
					x, e, ss = nx, ne, nss
					lambda = math.Max(lambda/10, 1e-14)
					accepted = true
					break
				}
			}
			lambda *= 4
		}
		if !accepted || small >= 2 {
			break
		}
	}
	return x, ss
}

// dampedStep solves min |J δ + e|² + λ|D δ|², D the column norms of J, by
// Householder QR of the scaled, augmented system.
func dampedStep(j [][]float64, e, scale []float64, lambda float64) ([]float64, bool) {
	m, n := len(j), len(scale)
	w := n + 1
	a := make([]float64, (m+n)*w)
	for r := 0; r < m; r++ {
		for c := 0; c < n; c++ {
			a[r*w+c] = j[r][c] / scale[c]
		}
		a[r*w+n] = -e[r]
	}
	d := math.Sqrt(lambda)
	for c := 0; c < n; c++ {
		a[(m+c)*w+c] = d
	}
	if !householder(a, m+n, w, n) {
		return nil, false
	}
	r := make([]float64, n*n)
	step := make([]float64, n)
	for i := 0; i < n; i++ {
		copy(r[i*n:(i+1)*n], a[i*w:i*w+n])
		step[i] = a[i*w+n]
	}
	if !backSolve(r, n, step) {
		return nil, false
	}
	for c := range step {
		step[c] /= scale[c]
	}
	return step, true
}

func sumSquares(e []float64) float64 {
	var s float64
	for _, v := range e {
		s += v * v
	}
	if math.IsNaN(s) {
		return math.Inf(1)
	}
	return s
}
