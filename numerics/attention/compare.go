package attention

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// RelativeError returns the largest relative error between the heads of got
// and want under the best pairing of heads: for each pair,
// max(|W−W'|_max/|W'|_max, |v−v'|_max/|v'|_max), and the pairing minimising the
// largest of these. Both layers should be canonical (see Canonical). It is
// an error for the layers to differ in number of heads or width.
func RelativeError(got, want Layer) (float64, error) {
	if len(got) != len(want) {
		return math.Inf(1), errors.New("attention: layers have different numbers of heads")
	}
	if got.Width() != want.Width() {
		return math.Inf(1), errors.New("attention: layers have different widths")
	}
	n := len(want)
	cost := make([][]float64, n)
	for i := range cost {
		cost[i] = make([]float64, n)
		for j := range cost[i] {
			cost[i][j] = headError(got[j], want[i])
		}
	}
	return bottleneck(cost), nil
}

func headError(g, w Head) float64 {
	var dw, dv mat.Dense
	dw.Sub(g.W, w.W)
	e := mat.Norm(&dw, math.Inf(1)) / math.Max(mat.Norm(w.W, math.Inf(1)), math.SmallestNonzeroFloat64)
	dv.Sub(g.V, w.V)
	ev := mat.Norm(&dv, math.Inf(1)) / math.Max(mat.Norm(w.V, math.Inf(1)), math.SmallestNonzeroFloat64)
	e = math.Max(e, ev)
	if math.IsNaN(e) {
		return math.Inf(1)
	}
	return e
}

// bottleneck returns min over permutations p of max_i cost[i][p(i)], by
// exhaustive search with pruning (layers have at most a few heads).
func bottleneck(cost [][]float64) float64 {
	n := len(cost)
	best := math.Inf(1)
	used := make([]bool, n)
	var walk func(i int, worst float64)
	walk = func(i int, worst float64) {
		if worst >= best {
			return
		}
		if i == n {
			best = worst
			return
		}
		for j := 0; j < n; j++ {
			if !used[j] {
				used[j] = true
				walk(i+1, math.Max(worst, cost[i][j]))
				used[j] = false
			}
		}
	}
	if n == 0 {
		return 0
	}
	walk(0, 0)
	return best
}
