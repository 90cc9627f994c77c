package recovery

import (
	"errors"
	"fmt"
	"math"

	"headlab/numerics/internal/xmath"
	"headlab/numerics/rational"
	"headlab/numerics/recovery/internal/label"
	"headlab/numerics/recovery/internal/lsq"
	"headlab/numerics/recovery/internal/polefit"
)

// resolved is what one labelled RF says about the heads: p̂_h per head
// and its standard error.
type resolved struct {
	rf       int
	p, sigma []float64
}

// maxPoleError is the largest standard error of a log-pole p̂_h with which
// an RF's estimate starts a column's fit; RFs that locate a head worse
// than this (poles crowded near n = 0, or far from the samples) leave that
// head to the other RFs.
const maxPoleError = 0.1

// minPoleError floors the standard errors of the log-poles when the RFs'
// estimates are combined: they treat the values r_h as exact, so their own
// errors are too small, and the combination only has to catch gross
// disagreement (a wrong label or a wrong root) before the joint fits.
const minPoleError = 1e-4

// Two heads of one RF count as coincident when their poles differ by less
// than pairTolerance·(1 + the smaller ρ); a head is weak when its term
// moves the samples by less than weakHead times their scale under a unit
// change of its log-pole. Either way the RF gives the head's estimate the
// standard error crowdedError (MATH.md §3.4: economy mode then adds a link
// rather than trust it).
const (
	pairTolerance = 0.05
	weakHead      = 1e-4
	crowdedError  = 0.05
)

// maxCombinations bounds the ways of settling disagreeing RFs that a
// column tries.
const maxCombinations = 8

// columnName names column j's query token: "z_3", or "−z_1" for the
// column of the biases.
func (l *learner) columnName(j int) string {
	if j == l.d {
		return "−z_1"
	}
	return fmt.Sprintf("z_%d", j+1)
}

// markRough raises to crowdedError the standard error se[h] of every head
// that the samples y at n ≥ 1 locate only roughly, given the log-poles p
// and values rr of every head. Two heads with nearly equal poles (close in
// log ρ, or both near n = 0) are split by the samples only at second
// order, which has two roots: the fit may sit on the wrong one with a
// small local error. A head whose term barely moves the samples is placed
// by them no better.
func (l *learner) markRough(se, p, rr, n, y []float64) {
	var scale float64
	for _, yi := range y {
		scale = math.Max(scale, math.Abs(yi)+l.s)
	}
	for a := range p {
		ra := xmath.Exp(p[a])
		var sens float64
		for _, ni := range n {
			sens = math.Max(sens, math.Abs(rr[a])*ni*ra/((ni+ra)*(ni+ra)))
		}
		if sens < weakHead*scale {
			se[a] = math.Max(se[a], crowdedError)
		}
		for b := a + 1; b < len(p); b++ {
			rb := xmath.Exp(p[b])
			if math.Abs(ra-rb) < pairTolerance*(1+math.Min(ra, rb)) {
				se[a], se[b] = math.Max(se[a], crowdedError), math.Max(se[b], crowdedError)
			}
		}
	}
}

// columnLabels is what the RFs on one z_j say of the heads: those
// labelled (good), those left unresolved with the reason (bad, why), and
// the rows whose measurement is labelled with every head located (done).
type columnLabels struct {
	good []resolved
	bad  []int
	why  []error
	done []bool
}

func newColumnLabels(d int) *columnLabels {
	return &columnLabels{done: make([]bool, d)}
}

// add records what labelling RF k gave: p̂_h and their standard errors,
// or the error that left it unresolved.
func (c *columnLabels) add(l *learner, k int, p, sigma []float64, err error) {
	if err != nil {
		c.bad, c.why = append(c.bad, k), append(c.why, err)
		return
	}
	c.good = append(c.good, resolved{k, p, sigma})
	if rf := l.res.Trace.RFs[k]; rf.Kind == Measurement && located(sigma) {
		c.done[rf.I] = true
	}
}

// labelKnownColumn labels every RF on z_j asked so far by the known
// values (labelKnown).
func (l *learner) labelKnownColumn(t theta, j int) *columnLabels {
	c := newColumnLabels(l.d)
	for _, k := range l.cols[j] {
		p, sigma, err := l.labelKnown(k, t)
		c.add(l, k, p, sigma, err)
	}
	return c
}

// linkUnresolved gives every measurement on z_j that is unresolved, or
// that locates some head too poorly, a link RF(z_j, u_i+u_k) to a row k
// that is resolved, and labels the link (MATH.md §3.4): economy's and
// frugal's fallback.
func (l *learner) linkUnresolved(t theta, j int, c *columnLabels) error {
	var need []int
	var needWhy []error
	for bi, k := range c.bad {
		if l.res.Trace.RFs[k].Kind == Measurement {
			need, needWhy = append(need, k), append(needWhy, c.why[bi])
		}
	}
	for _, g := range c.good {
		if rf := l.res.Trace.RFs[g.rf]; rf.Kind == Measurement && !located(g.sigma) {
			need, needWhy = append(need, g.rf), append(needWhy, fmt.Errorf("a head is located only roughly (coincident poles, or a standard error of its log-pole above %g)", crowdedError))
		}
	}
	for ni, k := range need {
		rf := l.res.Trace.RFs[k]
		i := rf.I
		partner := l.partner(t, i, c.done)
		if partner < 0 {
			return l.fail(k, "cannot locate its heads and no resolved measurement to link it to", needWhy[ni])
		}
		lk := l.addRF(Link, i, j, []int{i, partner}, []int{j})
		l.cols[j] = append(l.cols[j], lk)
		l.planned += 2 * l.h0
		for n := 1; n <= 2*l.h0; n++ {
			if err := l.ask(lk, n); err != nil {
				return err
			}
		}
		p, sigma, err := l.labelKnown(lk, t)
		c.add(l, lk, p, sigma, err)
	}
	return nil
}

// column learns column j of every P_h (W_h z_j) from the RFs on z_j:
// each RF is labelled as the schedule labels them (floatColumn), the
// labelled log-poles give P_h[·][j] by least squares, and a fit of the
// column to all its samples polishes them.
func (l *learner) column(t theta, j int) error {
	c, err := l.sched.floatColumn(l, t, j)
	if err != nil {
		return err
	}
	if len(c.good) == 0 {
		return l.fail(c.bad[0], fmt.Sprintf("no RF on %s could be labelled", l.columnName(j)), c.why[0])
	}
	alts, combos, err := l.columnEquations(t, j, c)
	if err != nil {
		return err
	}
	if err := l.fitColumn(t, j, alts, combos); err != nil {
		return err
	}
	// Label unresolved RFs from the column's parameters, for the trace.
	for _, k := range c.bad {
		rf := &l.res.Trace.RFs[k]
		rf.Heads = matchPoles(rf, func(h int) (float64, float64) {
			p, r, _ := l.specs[k].headTerms(t, h, l.c)
			return p, r
		}, t.H, 0)
	}
	return nil
}

// columnEquations solves for P_h[·][j], per head, by weighted least
// squares from every labelled RF that locates the head, dropping
// equations that disagree with a majority of the others (MATH.md §4,
// idea 4). Where two equations disagree with no majority to decide, each
// way of settling it is an alternative: alts[h] lists head h's, and
// combos counts the combinations, which fitColumn tries against the
// column's samples.
func (l *learner) columnEquations(t theta, j int, c *columnLabels) (alts [][][]float64, combos int, err error) {
	hc, d := t.H, l.d
	alts = make([][][]float64, hc)
	combos = 1
	for h := 0; h < hc; h++ {
		var a [][]float64
		var b, sd []float64
		for _, g := range c.good {
			if !(g.sigma[h] <= maxPoleError) {
				continue
			}
			s := l.specs[g.rf]
			row := make([]float64, d)
			rhs := g.p[h]
			q := s.qWeight(t)
			for _, al := range s.alpha {
				for _, be := range s.beta {
					if be == j {
						row[al]++
					} else {
						rhs -= t.P(h, al, be)
					}
				}
				if q != 0 {
					rhs -= float64(q * t.Q(h, al))
				}
			}
			a, b, sd = append(a, row), append(b, rhs), append(sd, math.Max(g.sigma[h], minPoleError))
		}
		alts[h] = lsq.Robust(a, b, sd, d, 2)
		if len(alts[h]) == 0 {
			k := l.cols[j][0]
			var why error
			if len(c.bad) > 0 {
				k, why = c.bad[0], c.why[0]
			}
			return nil, 0, l.fail(k, fmt.Sprintf("column %d of W is not determined by the labelled RFs", j+1), why)
		}
		combos *= len(alts[h])
	}
	if combos > maxCombinations {
		return nil, 0, l.fail(l.cols[j][0], fmt.Sprintf("the RFs on %s disagree in %d ways", l.columnName(j), combos), nil)
	}
	return alts, combos, nil
}

// fitColumn fits column j of every P_h to the samples of the RFs on z_j
// from each combination of the alternatives (columnEquations) and takes
// the best into t, if it is decided.
func (l *learner) fitColumn(t theta, j int, alts [][][]float64, combos int) error {
	hc, d := t.H, l.d
	free := make([]bool, len(t.x))
	for h := 0; h < hc; h++ {
		for a := 0; a < d; a++ {
			free[t.pIndex(h, a, j)] = true
		}
	}
	in := make(map[int]bool)
	for _, k := range l.cols[j] {
		in[k] = true
	}
	sv := l.newSolver(l.queryRowsWhere(func(k int) bool { return in[k] }), free, hc)
	var fits [][]float64
	var costs []float64
	var thetas []theta
	for c := 0; c < combos; c++ {
		start := t.clone()
		idx := c
		for h := 0; h < hc; h++ {
			x := alts[h][idx%len(alts[h])]
			idx /= len(alts[h])
			for a := 0; a < d; a++ {
				start.x[start.pIndex(h, a, j)] = x[a]
			}
		}
		nt, cost := sv.fit(start, 30)
		col := make([]float64, 0, hc*d)
		for h := 0; h < hc; h++ {
			for a := 0; a < d; a++ {
				col = append(col, nt.P(h, a, j))
			}
		}
		fits, costs, thetas = append(fits, col), append(costs, cost), append(thetas, nt)
	}
	lb := label.Pick(fits, costs, polefit.Same)
	if !lb.Decided(len(sv.rows)) {
		return l.fail(l.cols[j][0], fmt.Sprintf("the RFs on %s disagree and their samples do not decide (χ² %.3g vs %.3g)", l.columnName(j), lb.Chi2, lb.Rival), nil)
	}
	for c := range fits {
		if costs[c] == lb.Chi2 {
			copy(t.x, thetas[c].x)
			break
		}
	}
	return nil
}

// paddedGuesses returns starting log-poles when a rejected fit shows only
// hc−1 or hc−2 usable poles: the missing ones take every combination of a
// few values spread over the likely range of p.
func paddedGuesses(err error, hc int) [][]float64 {
	var e *rational.Error
	if !errors.As(err, &e) {
		return nil
	}
	var p []float64
	for _, z := range e.Poles {
		if re := real(z); re < 0 && imag(z) >= 0 && !math.IsInf(re, 0) {
			p = append(p, xmath.Log(-re))
		}
	}
	missing := hc - len(p)
	if missing < 1 || missing > 2 {
		return nil
	}
	grid := []float64{-3, -1, 1, 3}
	var out [][]float64
	var walk func(cur []float64, m int)
	walk = func(cur []float64, m int) {
		if m == 0 {
			out = append(out, append([]float64(nil), cur...))
			return
		}
		for _, g := range grid {
			walk(append(cur, g), m-1)
		}
	}
	walk(p, missing)
	return out
}

// located reports whether every head's log-pole is located precisely: a
// standard error below crowdedError.
func located(sigma []float64) bool {
	for _, s := range sigma {
		if !(s < crowdedError) {
			return false
		}
	}
	return true
}

// partner picks the row k ≠ i with a labelled measurement whose values
// best separate the heads in the link RF(z_j, u_i+u_k), or −1.
func (l *learner) partner(t theta, i int, done []bool) int {
	best, bestGap := -1, -1.0
	for k := range done {
		if k == i || !done[k] {
			continue
		}
		gap := math.Inf(1)
		for h := 0; h < t.H; h++ {
			for g := h + 1; g < t.H; g++ {
				a := t.R(h, i) + t.R(h, k)
				b := t.R(g, i) + t.R(g, k)
				gap = math.Min(gap, math.Abs(a-b))
			}
		}
		if gap > bestGap {
			best, bestGap = k, gap
		}
	}
	return best
}
