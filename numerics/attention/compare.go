package attention

import (
	"errors"
	"math"

	"headlab/numerics/assign"
)

// RelativeError returns the largest relative error between the heads of got
// and want under the best pairing of heads: for each pair,
// max(|W−W'|_∞/|W'|_∞, |v−v'|_max/|v'|_max), where |·|_∞ is the largest
// absolute row sum (for the vector v, the largest entry), and the pairing
// minimising the largest of these. Both layers should be canonical (see Canonical). It is
// an error for the layers to differ in number of heads or width.
func RelativeError(got, want Layer) (float64, error) {
	_, errs, err := Pairing(got, want)
	if err != nil {
		return math.Inf(1), err
	}
	worst := 0.0
	for _, e := range errs {
		worst = math.Max(worst, e)
	}
	return worst, nil
}

// Pairing returns, for each head i of want, the head pair[i] of got it is
// compared with — the pairing that minimises the largest head error, which
// RelativeError reports — and each pair's relative error.
func Pairing(got, want Layer) (pair []int, errs []float64, err error) {
	if len(got) != len(want) {
		return nil, nil, errors.New("attention: layers have different numbers of heads")
	}
	if got.Width() != want.Width() {
		return nil, nil, errors.New("attention: layers have different widths")
	}
	n := len(want)
	cost := make([][]float64, n)
	for i := range cost {
		cost[i] = make([]float64, n)
		for j := range cost[i] {
			cost[i][j] = headError(got[j], want[i])
		}
	}
	pair, _ = assign.Bottleneck(cost)
	errs = make([]float64, n)
	for i, j := range pair {
		errs[i] = cost[i][j]
	}
	return pair, errs, nil
}

func headError(g, w Head) float64 {
	e := normInfDiff(g.W, w.W) / math.Max(normInf(w.W), math.SmallestNonzeroFloat64)
	ev := vecNormInfDiff(g.V, w.V) / math.Max(vecNormInf(w.V), math.SmallestNonzeroFloat64)
	e = math.Max(e, ev)
	if math.IsNaN(e) {
		return math.Inf(1)
	}
	return e
}
