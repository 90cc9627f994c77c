package assign

import (
	"math"
	"math/rand/v2"
	"testing"
)

// brute returns the best min-sum and min-max costs over all permutations.
func brute(cost [][]float64) (sum, worst float64) {
	n := len(cost)
	sum, worst = math.Inf(1), math.Inf(1)
	p := make([]int, n)
	used := make([]bool, n)
	var walk func(k int, s, w float64)
	walk = func(k int, s, w float64) {
		if k == n {
			sum, worst = math.Min(sum, s), math.Min(worst, w)
			return
		}
		for j := 0; j < n; j++ {
			if !used[j] {
				used[j], p[k] = true, j
				walk(k+1, s+cost[k][j], math.Max(w, cost[k][j]))
				used[j] = false
			}
		}
	}
	walk(0, 0, 0)
	return sum, worst
}

func isPermutation(p []int) bool {
	seen := make([]bool, len(p))
	for _, j := range p {
		if j < 0 || j >= len(p) || seen[j] {
			return false
		}
		seen[j] = true
	}
	return true
}

// TestAgainstBruteForce compares both solvers with an exhaustive search on
// random matrices, ties included (costs drawn from a few values).
func TestAgainstBruteForce(t *testing.T) {
	const seed = 20261201
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for trial := 0; trial < 400; trial++ {
		n := 1 + rng.IntN(7)
		cost := make([][]float64, n)
		for i := range cost {
			cost[i] = make([]float64, n)
			for j := range cost[i] {
				if trial%2 == 0 {
					cost[i][j] = float64(rng.IntN(4))
				} else {
					cost[i][j] = rng.ExpFloat64()
				}
			}
		}
		wantSum, wantWorst := brute(cost)
		p := MinSum(cost)
		var s float64
		for i, j := range p {
			s += cost[i][j]
		}
		if !isPermutation(p) || math.Abs(s-wantSum) > 1e-12 {
			t.Fatalf("trial %d: MinSum %v costs %v, best %v", trial, p, s, wantSum)
		}
		q, w := Bottleneck(cost)
		got := 0.0
		for i, j := range q {
			got = math.Max(got, cost[i][j])
		}
		if !isPermutation(q) || w != wantWorst || got != w {
			t.Fatalf("trial %d: Bottleneck %v worst %v (reported %v), best %v", trial, q, got, w, wantWorst)
		}
	}
}

func TestNaNAndInfinity(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cost := [][]float64{{nan, 1}, {2, inf}}
	if p := MinSum(cost); p[0] != 1 || p[1] != 0 {
		t.Fatalf("MinSum %v", p)
	}
	if p, w := Bottleneck(cost); p[0] != 1 || p[1] != 0 || w != 2 {
		t.Fatalf("Bottleneck %v, %v", p, w)
	}
	if p, w := Bottleneck([][]float64{{nan}}); len(p) != 1 || !math.IsInf(w, 1) {
		t.Fatalf("all NaN: %v, %v", p, w)
	}
	if p, w := Bottleneck(nil); p != nil || w != 0 {
		t.Fatalf("empty: %v, %v", p, w)
	}
}
