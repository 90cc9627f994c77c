package recovery

import (
	"math"
	"sort"

	"headlab/numerics/assign"
	"headlab/numerics/internal/parallel"
	"headlab/numerics/recovery/internal/lsq"
)

// ambiguity is how much worse (in sum of squared weighted residuals) than
// the best labelling every distinct rival labelling must fit before the
// best one is accepted (see decided): a closer rival means the data do not
// decide, and the learner does not guess.
const ambiguity = 100

// labelling is the outcome of fitting from several starting points, one
// per candidate labelling of the poles.
type labelling struct {
	x     []float64 // fitted parameters of the best labelling
	chi2  float64
	rival float64 // best chi² of a distinct rival labelling (+Inf if none)

	all     [][]float64 // every fit tried, with its chi²
	allChi2 []float64
}

// byChi2 returns the indices of every fit tried (all), best chi² first,
// ties in the order tried.
func (lb labelling) byChi2() []int {
	idx := make([]int, len(lb.all))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return lb.allChi2[idx[a]] < lb.allChi2[idx[b]] })
	return idx
}

// fit is one least-squares fit from a start: the point it reaches and its
// chi².
type fit func(x0 []float64) ([]float64, float64)

// fitter returns a maker of Levenberg–Marquardt fits of the problem
// newProb builds, each with its own problem (the problems' buffers are
// not safe for concurrent use).
func fitter(newProb func() lsq.Problem, maxIter int) func() fit {
	return func() fit {
		p := newProb()
		return func(x0 []float64) ([]float64, float64) { return lsq.LevenbergMarquardt(p, x0, maxIter) }
	}
}

// chooseStarts fits from every start and returns the best fit with the
// best chi² among the distinct others. The fits are independent, so they
// run on l.workers goroutines, each with a fit of its own from newFit;
// every fit is the same computation whichever goroutine runs it, and the
// results are gathered in the starts' order, so the outcome is bit for
// bit that of one goroutine.
func (l *learner) chooseStarts(starts [][]float64, newFit func() fit, same func(a, b []float64) bool) labelling {
	xs := make([][]float64, len(starts))
	cs := make([]float64, len(starts))
	workers := min(l.workers, len(starts)/minStartsPerWorker)
	parallel.Each(len(starts), workers, func() func(int) {
		f := newFit()
		return func(i int) { xs[i], cs[i] = f(starts[i]) }
	})
	return pick(xs, cs, same)
}

// merge combines two sets of fits.
func (lb labelling) merge(o labelling, same func(a, b []float64) bool) labelling {
	return pick(append(append([][]float64(nil), lb.all...), o.all...), append(append([]float64(nil), lb.allChi2...), o.allChi2...), same)
}

// pick returns the fit with the smallest chi² and the smallest chi² of the
// fits distinct from it.
func pick(xs [][]float64, cs []float64, same func(a, b []float64) bool) labelling {
	out := labelling{chi2: math.Inf(1), rival: math.Inf(1), all: xs, allChi2: cs}
	for i := range xs {
		if cs[i] < out.chi2 {
			out.x, out.chi2 = xs[i], cs[i]
		}
	}
	for i := range xs {
		if !same(xs[i], out.x) {
			out.rival = math.Min(out.rival, cs[i])
		}
	}
	return out
}

// decided reports whether the best labelling beats every distinct rival
// clearly. When the best fit's χ² per sample is near the noise model's (at
// most 10), a rival must fit worse by ambiguity times that per-sample χ²
// (at least 10 standard deviations of the noise); when model errors
// dominate the χ², the rival must fit ambiguity times worse.
func (lb labelling) decided(nrows int) bool {
	if math.IsInf(lb.chi2, 0) || math.IsNaN(lb.chi2) {
		return false
	}
	perRow := lb.chi2 / float64(max(1, nrows))
	if perRow <= 10 {
		return lb.rival-lb.chi2 > ambiguity*math.Max(1, perRow)
	}
	return lb.rival > ambiguity*lb.chi2
}

// ambiguous returns, per parameter, whether some rival fit that the best
// does not clearly beat (see decided) differs from the best in it by more
// than tol relative: the parameters the samples leave undecided.
func (lb labelling) ambiguous(nrows int, tol float64) []bool {
	out := make([]bool, len(lb.x))
	for i, x := range lb.all {
		if (labelling{chi2: lb.chi2, rival: lb.allChi2[i]}).decided(nrows) {
			continue
		}
		for k := range x {
			if math.Abs(x[k]-lb.x[k]) > tol*(1+math.Abs(lb.x[k])) {
				out[k] = true
			}
		}
	}
	return out
}

// candidates returns labellings to try for an n×n cost matrix
// (cost[h][b]: head h takes pole b), cheapest first: every permutation
// when n ≤ 4, otherwise the optimal assignment and all its transpositions.
func candidates(cost [][]float64) [][]int {
	n := len(cost)
	var out [][]int
	if n <= 4 {
		out = permutations(n)
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

// matchPoles labels the fitted poles of rf with the heads whose predicted
// (p, r) are nearest (an assignment), for the trace.
func (l *learner) matchPoles(rf *RF, pred func(h int) (p, r float64), hc int, rs float64) []int {
	np := len(rf.P)
	out := make([]int, np)
	for b := range out {
		out[b] = -1
	}
	if np != hc || hc == 0 {
		return out
	}
	if rs == 0 {
		rs = 1
	}
	cost := make([][]float64, hc)
	for h := range cost {
		p, r := pred(h)
		cost[h] = make([]float64, np)
		for b := range cost[h] {
			cost[h][b] = math.Abs(p-rf.P[b]) + math.Abs(r-rf.R[b])/rs
		}
	}
	for h, b := range assign.MinSum(cost) {
		out[b] = h
	}
	return out
}

// minStartsPerWorker is the fewest starts a goroutine of chooseStarts
// fits: a fit from one start takes microseconds, and waking a goroutine
// for one or two of them costs more than it saves.
const minStartsPerWorker = 4

// spreadPair returns copies of x with x[a] and x[b] spread apart around
// their mean by ±delta, for each delta: the restarts of a fit stalled in
// the narrow valley that two nearly equal log-poles make.
func spreadPair(x []float64, a, b int, deltas []float64) [][]float64 {
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
