// Package assign solves the assignment problems headlab meets: pairing
// recovered heads with true ones, and poles of one rational function with
// the heads they belong to. A cost matrix is square, cost[i][j] the cost of
// giving row i column j; NaN costs count as infinitely high.
package assign

import (
	"math"
	"slices"
)

// MinSum returns the assignment p (row i takes column p[i]) minimising
// Σ cost[i][p[i]], by the O(n³) Hungarian method with potentials. Costs
// above 1e300 (and NaN) are treated as 1e300, so every row is assigned.
func MinSum(cost [][]float64) []int {
	n := len(cost)
	const huge = 1e300
	c := func(i, j int) float64 {
		v := cost[i][j]
		if math.IsNaN(v) || v > huge {
			return huge
		}
		return v
	}
	u := make([]float64, n+1)
	v := make([]float64, n+1)
	match := make([]int, n+1) // column j (1-based) → row (1-based)
	way := make([]int, n+1)
	minv := make([]float64, n+1)
	used := make([]bool, n+1)
	for i := 1; i <= n; i++ {
		match[0] = i
		j0 := 0
		for j := range minv {
			minv[j], used[j] = math.Inf(1), false
		}
		for {
			used[j0] = true
			i0, delta, j1 := match[j0], math.Inf(1), 0
			for j := 1; j <= n; j++ {
				if used[j] {
					continue
				}
				if cur := c(i0-1, j-1) - u[i0] - v[j]; cur < minv[j] {
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
	for j := 1; j <= n; j++ {
		p[match[j]-1] = j - 1
	}
	return p
}

// Bottleneck returns the assignment p minimising the largest cost
// max_i cost[i][p[i]], and that cost. It finds the smallest threshold at
// which the costs no larger than it admit a perfect matching (a binary
// search over the distinct costs, each tried by augmenting paths), so it
// stays fast where a search over permutations would not.
func Bottleneck(cost [][]float64) (p []int, worst float64) {
	n := len(cost)
	if n == 0 {
		return nil, 0
	}
	clean := func(x float64) float64 {
		if math.IsNaN(x) {
			return math.Inf(1)
		}
		return x
	}
	var levels []float64
	for i := range cost {
		for j := range cost[i] {
			levels = append(levels, clean(cost[i][j]))
		}
	}
	slices.Sort(levels)
	levels = slices.Compact(levels)
	lo, hi := 0, len(levels)-1 // the top level admits every edge
	best := perfect(cost, levels[hi], clean)
	for lo < hi {
		mid := (lo + hi) / 2
		if m := perfect(cost, levels[mid], clean); m != nil {
			hi, best = mid, m
		} else {
			lo = mid + 1
		}
	}
	return best, levels[hi]
}

// perfect returns a perfect matching of rows to columns using only costs
// ≤ t (Kuhn's augmenting paths, rows and columns tried in index order), or
// nil when there is none.
func perfect(cost [][]float64, t float64, clean func(float64) float64) []int {
	n := len(cost)
	colRow := make([]int, n)
	for j := range colRow {
		colRow[j] = -1
	}
	seen := make([]bool, n)
	var augment func(i int) bool
	augment = func(i int) bool {
		for j := 0; j < n; j++ {
			if seen[j] || clean(cost[i][j]) > t {
				continue
			}
			seen[j] = true
			if colRow[j] < 0 || augment(colRow[j]) {
				colRow[j] = i
				return true
			}
		}
		return false
	}
	for i := 0; i < n; i++ {
		clear(seen)
		if !augment(i) {
			return nil
		}
	}
	p := make([]int, n)
	for j, i := range colRow {
		p[i] = j
	}
	return p
}
