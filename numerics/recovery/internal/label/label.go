// Package label chooses among the labellings of poles with heads: it fits
// from one start per candidate labelling, keeps the best fit and the best
// of its distinct rivals, and says whether the samples decide between
// them. The fits run on several goroutines and give the same bits as on
// one.
package label

import (
	"math"
	"sort"

	"headlab/numerics/assign"
	"headlab/numerics/internal/parallel"
	"headlab/numerics/recovery/internal/lsq"
)

// Ambiguity is how much worse (in sum of squared weighted residuals) than
// the best labelling every distinct rival labelling must fit before the
// best one is accepted (see decided): a closer rival means the data do not
// decide, and the learner does not guess.
const Ambiguity = 100

// Fits is the outcome of fitting from several starting points, one per
// candidate labelling of the poles.
type Fits struct {
	X     []float64 // fitted parameters of the best labelling
	Chi2  float64   // chi² of X
	Rival float64   // best chi² of a distinct rival labelling (+Inf if none)

	All     [][]float64 // every fit tried, with its chi² in AllChi2
	AllChi2 []float64
}

// ByChi2 returns the indices of every fit tried (All), best chi² first,
// ties in the order tried.
func (lb Fits) ByChi2() []int {
	idx := make([]int, len(lb.All))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return lb.AllChi2[idx[a]] < lb.AllChi2[idx[b]] })
	return idx
}

// Fit is one least-squares fit from a start: the point it reaches and its
// chi².
type Fit func(x0 []float64) ([]float64, float64)

// Fitter returns a maker of Levenberg–Marquardt fits of the problem
// newProb builds, each with its own problem (the problems' buffers are
// not safe for concurrent use).
func Fitter(newProb func() lsq.Problem, maxIter int) func() Fit {
	return func() Fit {
		p := newProb()
		return func(x0 []float64) ([]float64, float64) { return lsq.LevenbergMarquardt(p, x0, maxIter) }
	}
}

// Choose fits from every start and returns the best fit with the best
// chi² among the distinct others (same reports whether two fits are one
// labelling). The fits are independent, so they run on up to workers
// goroutines, each with a fit of its own from newFit;
// every fit is the same computation whichever goroutine runs it, and the
// results are gathered in the starts' order, so the outcome is bit for
// bit that of one goroutine.
func Choose(starts [][]float64, newFit func() Fit, same func(a, b []float64) bool, workers int) Fits {
	xs := make([][]float64, len(starts))
	cs := make([]float64, len(starts))
	workers = min(workers, len(starts)/minStartsPerWorker)
	parallel.Each(len(starts), workers, func() func(int) {
		f := newFit()
		return func(i int) { xs[i], cs[i] = f(starts[i]) }
	})
	return Pick(xs, cs, same)
}

// Merge combines two sets of fits; same reports whether two fits are one
// labelling.
func (lb Fits) Merge(o Fits, same func(a, b []float64) bool) Fits {
	return Pick(append(append([][]float64(nil), lb.All...), o.All...), append(append([]float64(nil), lb.AllChi2...), o.AllChi2...), same)
}

// Pick returns the fit xs[i] with the smallest chi² cs[i] and the
// smallest chi² of the fits distinct from it (same reports whether two
// fits are one labelling).
func Pick(xs [][]float64, cs []float64, same func(a, b []float64) bool) Fits {
	out := Fits{Chi2: math.Inf(1), Rival: math.Inf(1), All: xs, AllChi2: cs}
	for i := range xs {
		if cs[i] < out.Chi2 {
			out.X, out.Chi2 = xs[i], cs[i]
		}
	}
	for i := range xs {
		if !same(xs[i], out.X) {
			out.Rival = math.Min(out.Rival, cs[i])
		}
	}
	return out
}

// Decided reports whether the best labelling beats every distinct rival
// clearly. When the best fit's χ² per sample is near the noise model's (at
// most 10), a rival must fit worse by Ambiguity times that per-sample χ²
// (at least 10 standard deviations of the noise); when model errors
// dominate the χ², the rival must fit Ambiguity times worse.
func (lb Fits) Decided(nrows int) bool {
	if math.IsInf(lb.Chi2, 0) || math.IsNaN(lb.Chi2) {
		return false
	}
	perRow := lb.Chi2 / float64(max(1, nrows))
	if perRow <= 10 {
		return lb.Rival-lb.Chi2 > Ambiguity*math.Max(1, perRow)
	}
	return lb.Rival > Ambiguity*lb.Chi2
}

// Ambiguous returns, per parameter, whether some rival fit that the best
// does not clearly beat (see Decided) differs from the best in it by more
// than tol relative: the parameters the samples leave undecided.
func (lb Fits) Ambiguous(nrows int, tol float64) []bool {
	out := make([]bool, len(lb.X))
	for i, x := range lb.All {
		if (Fits{Chi2: lb.Chi2, Rival: lb.AllChi2[i]}).Decided(nrows) {
			continue
		}
		for k := range x {
			if math.Abs(x[k]-lb.X[k]) > tol*(1+math.Abs(lb.X[k])) {
				out[k] = true
			}
		}
	}
	return out
}

// Candidates returns labellings to try for an n×n cost matrix
// (cost[h][b]: head h takes pole b), cheapest first: every permutation
// when n ≤ 4, otherwise the optimal assignment and all its transpositions.
func Candidates(cost [][]float64) [][]int {
	n := len(cost)
	var out [][]int
	if n <= 4 {
		out = Permutations(n)
	} else {
		best := assign.MinSum(cost)
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

// Decide returns the assignment of heads to poles (perm[h] = pole) that
// minimises the misfit of the predictions, given the cost of each pairing,
// with the misfit of the best labelling (the largest cost it pays) and of
// its best rival (a transposition of it, the labellings it could be
// confused with).
func Decide(cost [][]float64) (perm []int, miss, rival float64) {
	perm = assign.MinSum(cost)
	worst := func(p []int) float64 {
		var w float64
		for h, b := range p {
			w = math.Max(w, cost[h][b])
		}
		if math.IsNaN(w) {
			return math.Inf(1)
		}
		return w
	}
	miss, rival = worst(perm), math.Inf(1)
	for a := range perm {
		for b := a + 1; b < len(perm); b++ {
			q := append([]int(nil), perm...)
			q[a], q[b] = q[b], q[a]
			rival = math.Min(rival, worst(q))
		}
	}
	return perm, miss, rival
}

// Inverse returns the pole → head labels of an assignment head → pole.
func Inverse(perm []int) []int {
	out := make([]int, len(perm))
	for h, b := range perm {
		out[b] = h
	}
	return out
}

// Permutations returns every permutation of 0…n−1 in lexicographic order.
func Permutations(n int) [][]int {
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

// minStartsPerWorker is the fewest starts a goroutine of Choose fits: a fit from one start takes microseconds, and waking a goroutine
// for one or two of them costs more than it saves.
const minStartsPerWorker = 4

// SpreadPair returns copies of x with x[a] and x[b] spread apart around
// their mean by ±delta, for each delta: the restarts of a fit stalled in
// the narrow valley that two nearly equal log-poles make.
func SpreadPair(x []float64, a, b int, deltas []float64) [][]float64 {
	m := float64((x[a] + x[b]) / 2)
	var out [][]float64
	for _, delta := range deltas {
		for _, sgn := range []float64{-1, 1} {
			p := append([]float64(nil), x...)
			p[a], p[b] = m+float64(sgn*delta), m-float64(sgn*delta)
			out = append(out, p)
		}
	}
	return out
}
