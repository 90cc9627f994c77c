package recovery

import (
	"math"
	"math/rand/v2"
	"slices"

	"headlab/numerics/internal/xmath"
	"headlab/numerics/rational"
	"headlab/numerics/recovery/internal/label"
	"headlab/numerics/recovery/internal/lsq"
	"headlab/numerics/recovery/internal/polefit"
)

// The float64 searches for a frugal measurement's poles (MATH.md §3.4,
// "Frugal mode"): its samples are F(n) = F(0) − Σ_h r_h·n/(n + ρ_h) with
// every r_h and F(0) known, so only the H log-poles p_h = log ρ_h are
// fitted, each tied to its head by its r_h. The searches here are the
// steps of the ladders in frugal_ladder.go, which give their order;
// labelFrugal climbs float64's. What needs only the samples (their
// problem, the starts elimination finds, the scans) is in
// internal/polefit.

// frugalSolution is the largest χ² per sample, under the noise model,
// of a fit that counts as explaining a frugal measurement's samples:
// evaluating the model rounds too (terms larger than the answer cancel),
// so the limit is generous; a rival labelling must in addition fit
// ambiguity times worse than the best (decided).
const frugalSolution = 1e6

// frugalStarts returns the number of starting points of a frugal pole
// search for hc heads.
func frugalStarts(hc int) int { return 32 + 32*hc }

// poleStarts returns the starting log-poles of a frugal search: the
// centre of every head's range first, then draws around it (seeded by
// the run's seed and the RF), and the extra starts given.
func (l *learner) poleStarts(k int, mu, width []float64, extra [][]float64) [][]float64 {
	hc := len(mu)
	rng := rand.New(rand.NewPCG(l.opt.Seed, 0x66727567616c0000|uint64(k))) // "frugal"
	starts := [][]float64{append([]float64(nil), mu...)}
	starts = append(starts, extra...)
	for len(starts) < frugalStarts(hc)+len(extra) {
		p := make([]float64, hc)
		for h := range p {
			p[h] = mu[h] + float64(width[h]*rng.NormFloat64())
		}
		starts = append(starts, p)
	}
	return starts
}

// poleRange returns, per head, the mean and a search width of the log-
// poles the heads show in the columns of P_h learned so far.
func poleRange(t theta, cols int) (mu, width []float64) {
	hc, d := t.H, t.d
	mu, width = make([]float64, hc), make([]float64, hc)
	for h := 0; h < hc; h++ {
		var s, ss float64
		n := 0
		for a := 0; a < d; a++ {
			for b := 0; b < cols; b++ {
				p := t.P(h, a, b)
				s += p
				ss += float64(p * p)
				n++
			}
		}
		m := s / float64(n)
		v := ss/float64(n) - float64(m*m)
		mu[h] = m
		width[h] = 1.5 * math.Max(math.Sqrt(math.Max(v, 0)), 0.5)
	}
	return mu, width
}

// searchPoles fits the log-poles of q from every start, and again from
// the first scannedStarts first moved by coordinate scans
// (polefit.Grid.Scan), and returns all the fits as a labelling (best and
// best distinct rival). lo…hi is the range the scans search.
func (l *learner) searchPoles(q polefit.Samples, starts [][]float64, lo, hi float64) label.Fits {
	return l.scannedPoles(q, starts, lo, hi).Merge(l.plainPoles(q, starts), polefit.Same)
}

// plainPoles fits the log-poles of q from every start as it is.
func (l *learner) plainPoles(q polefit.Samples, starts [][]float64) label.Fits {
	return label.Choose(starts, label.Fitter(func() lsq.Problem { return q.Problem(l.tick) }, 60), polefit.Same, l.workers)
}

// scannedPoles fits the log-poles of q from the first scannedStarts
// starts, each first moved by coordinate scans over lo…hi.
func (l *learner) scannedPoles(q polefit.Samples, starts [][]float64, lo, hi float64) label.Fits {
	return l.fitScanned(q, q.Grid(lo, hi), starts[:min(len(starts), scannedStarts)])
}

// fitScanned moves every start by coordinate scans on gr and fits the
// log-poles of q from it. Scans from different starts often end on the
// same grid point: each distinct scanned point is fitted once, and its
// fit stands for every start that reached it (the same fits as one fit
// per start, bit for bit).
func (l *learner) fitScanned(q polefit.Samples, gr *polefit.Grid, starts [][]float64) label.Fits {
	return l.fitMoved(q, starts, gr.Scan)
}

// fitMoved moves every start by move and fits the log-poles of q from
// it, each distinct moved point once (as fitScanned).
func (l *learner) fitMoved(q polefit.Samples, starts [][]float64, move func([]float64) []float64) label.Fits {
	var uniq [][]float64
	at := make([]int, len(starts))
	for i, s := range starts {
		p := move(s)
		at[i] = -1
		for u, v := range uniq {
			if slices.Equal(p, v) {
				at[i] = u
				break
			}
		}
		if at[i] < 0 {
			at[i] = len(uniq)
			uniq = append(uniq, p)
		}
	}
	lb := l.plainPoles(q, uniq)
	xs, cs := make([][]float64, len(starts)), make([]float64, len(starts))
	for i, u := range at {
		xs[i], cs[i] = lb.All[u], lb.AllChi2[u]
	}
	return label.Pick(xs, cs, polefit.Same)
}

// quickStarts is how many starts the quick search takes.
const quickStarts = 8

// quickPoles is the first, cheap search: the first quickStarts starts
// moved by coordinate scans, fitted, and the transpositions of the best
// fit (the rivals two heads with close values make) fitted too. Where it
// decides, the poles are accepted; else the full search runs.
func (l *learner) quickPoles(q polefit.Samples, starts [][]float64, lo, hi float64) label.Fits {
	lb := l.fitScanned(q, q.Grid(lo, hi), starts[:min(len(starts), quickStarts)])
	if lb.X == nil {
		return lb
	}
	var swaps [][]float64
	for a := range lb.X {
		for b := a + 1; b < len(lb.X); b++ {
			p := append([]float64(nil), lb.X...)
			p[a], p[b] = p[b], p[a]
			swaps = append(swaps, p)
		}
	}
	if len(swaps) == 0 {
		return lb
	}
	return lb.Merge(l.plainPoles(q, swaps), polefit.Same)
}

// deflatedPoles fits the log-poles of q from the deflated search's starts
// (mu and width: the heads' ranges, poleRange); no fit where the deflated
// search does not take q's number of heads.
func (l *learner) deflatedPoles(q polefit.Samples, mu, width []float64) label.Fits {
	starts := polefit.DeflatedStarts(q, mu, width, l.workers)
	if len(starts) == 0 {
		return noFit
	}
	return l.plainPoles(q, starts)
}

// scannedStarts is how many starts of the full search are also moved by
// coordinate scans before their fit.
const scannedStarts = 24

// deepen returns, for a search that found no solution, the fits from its
// best few points moved by pair scans (and single scans after them).
func (l *learner) deepen(q polefit.Samples, lb label.Fits, lo, hi float64) label.Fits {
	idx := lb.ByChi2()
	var starts [][]float64
	for _, i := range idx {
		if len(starts) >= 4 {
			break
		}
		starts = lsq.AppendDistinct(starts, lb.All[i])
	}
	// Two heads with nearly equal log-poles make a narrow valley: restart
	// with the pair spread apart around its mean (as labelKnown does).
	if lb.X != nil {
		for a := range lb.X {
			for b := a + 1; b < len(lb.X); b++ {
				if !(math.Abs(lb.X[a]-lb.X[b]) > 0.3) {
					starts = append(starts, label.SpreadPair(lb.X, a, b, []float64{0.003, 0.01, 0.03, 0.1, 0.3})...)
				}
			}
		}
	}
	gr := q.Grid(lo, hi)
	return l.fitMoved(q, starts, func(x0 []float64) []float64 { return gr.Scan(q.PairScan(x0, lo, hi)) })
}

// scanRange returns the range the coordinate scans search: three search
// widths beyond every head's centre, and at least −7…7.
func scanRange(mu, width []float64) (lo, hi float64) {
	lo, hi = -7, 7 // beyond, a pole barely moves samples at n = 1…2H
	for h := range mu {
		lo, hi = math.Min(lo, mu[h]-float64(3*width[h])), math.Max(hi, mu[h]+float64(3*width[h]))
	}
	return lo, hi
}

// frugalKnown returns the known terms of RF k: f0 = F(0) = V·z and r_h(u)
// per head, from the heads' values.
func (l *learner) frugalKnown(k int, t theta) (f0 float64, rr []float64) {
	rr = make([]float64, t.H)
	for h := 0; h < t.H; h++ {
		_, r, vz := l.specs[k].headTerms(t, h, l.c)
		rr[h] = r
		f0 += vz
	}
	return f0, rr
}

// frugalSamples returns RF k's samples with their noise model.
func (l *learner) frugalSamples(k int, f0 float64, rr []float64) polefit.Samples {
	rf := &l.res.Trace.RFs[k]
	q := polefit.Samples{F0: f0, R: rr}
	for i, n := range rf.N {
		q.N, q.Y, q.Sigma = append(q.N, n), append(q.Y, rf.F[i]), append(q.Sigma, l.sigma(rf.F[i]))
	}
	return q
}

// frugalAccept reports whether a search decided the poles: the best fit
// explains the samples and every distinct fit is clearly worse.
func frugalAccept(lb label.Fits, rows int) bool {
	return lb.X != nil && lb.Chi2 <= frugalSolution*float64(rows) && lb.Decided(rows)
}

// labelFrugal learns frugal measurement k of column j (its samples
// n = 1…H+1 asked by the caller) by climbing floatLadder. It returns, as
// labelKnown does, p̂_h per head and its standard error, or why the
// measurement is unresolved (an *Error where the oracle failed).
func (l *learner) labelFrugal(k, j int, t theta) (p, sigma []float64, err error) {
	f0, rr := l.frugalKnown(k, t)
	mu, width := poleRange(t, j)
	m := &floatMeasurement{l: l, k: k, t: t, f0: f0, rr: rr, mu: mu, width: width}
	for _, rung := range floatLadder {
		if rung.try(m) {
			break
		}
	}
	return m.p, m.sigma, m.err
}

// floatMeasurement is frugal measurement k on its way up floatLadder.
type floatMeasurement struct {
	l         *learner
	k         int
	t         theta
	f0        float64   // F(0), known
	rr        []float64 // the known r_h
	mu, width []float64 // the heads' ranges (poleRange)
	extra     [][]float64
	lb        label.Fits // the last search's fits
	rows      int        // and its number of samples
	gaveUp    bool       // the last search ended at a giveUp step
	counted   bool       // counted in Result.Fallbacks
	p, sigma  []float64  // the outcome
	err       error
}

// A floatRung is one rung of floatLadder: try reports whether the climb
// ends there, with the outcome in the measurement.
type floatRung struct {
	name string
	try  func(*floatMeasurement) bool
}

// search searches for the poles in the samples asked so far
// (floatPoleSearch) and ends the climb where they are decided. A head
// located only roughly (close poles, or one near n = 0) is a matter of
// conditioning, which more samples of this RF do not cure: the poles are
// returned as they are, counted, and column links the measurement to a
// resolved row at once, as economy links one it locates only roughly.
func (m *floatMeasurement) search() bool {
	l := m.l
	q := l.frugalSamples(m.k, m.f0, m.rr)
	s := l.newPoleSearch(m.k, m.t, q, m.mu, m.width, m.extra, len(q.N) == len(q.R)+1)
	lb, gaveUp := s.run(floatPoleSearch, func(lb label.Fits) bool { return frugalAccept(lb, len(q.N)) })
	m.lb, m.rows, m.gaveUp = lb, len(q.N), gaveUp
	if gaveUp || !frugalAccept(lb, len(q.N)) {
		return false
	}
	se := l.frugalErrors(q, lb)
	if !located(se) && !m.counted {
		l.res.Fallbacks++
	}
	l.recordFrugal(m.k, m.f0, m.rr, lb.X)
	m.p, m.sigma = lb.X, se
	return true
}

// oneMore asks one more sample, n = H+2, where that stays below
// economy's 2H and the search did not give up, and searches again with
// the fits found so far among the starts.
func (m *floatMeasurement) oneMore() bool {
	l := m.l
	next := len(l.res.Trace.RFs[m.k].N) + 1
	if m.gaveUp || next >= 2*l.h0 || next > m.t.H+2 {
		return false
	}
	if !m.counted {
		l.res.Fallbacks++
		m.counted = true
	}
	l.planned++
	if err := l.ask(m.k, next); err != nil {
		m.err = err
		return true
	}
	m.extra = frugalCandidates(m.lb, m.rows)
	return m.search()
}

// asEconomy gives the measurement economy's samples and labelling
// (frugalFallback).
func (m *floatMeasurement) asEconomy() bool {
	m.p, m.sigma, m.err = m.l.frugalFallback(m.k, m.t, m.counted)
	return true
}

// frugalCandidates returns the distinct fits of a search of rows samples
// that explain them, to start the next search from.
func frugalCandidates(lb label.Fits, rows int) [][]float64 {
	var out [][]float64
	for i, x := range lb.All {
		if lb.AllChi2[i] <= frugalSolution*float64(rows) {
			out = lsq.AppendDistinct(out, x)
		}
		if len(out) >= 16 {
			break
		}
	}
	return out
}

// frugalFallback gives frugal measurement k economy's samples n = 1…2H
// and economy's labelling.
func (l *learner) frugalFallback(k int, t theta, counted bool) (p, sigma []float64, err error) {
	rf := &l.res.Trace.RFs[k]
	if len(rf.N) < 2*l.h0 {
		if !counted {
			l.res.Fallbacks++
		}
		for n := len(rf.N) + 1; n <= 2*l.h0; n++ {
			l.planned++
			if err := l.ask(k, n); err != nil {
				return nil, nil, err
			}
		}
	}
	return l.labelKnown(k, t)
}

// frugalErrors returns the standard errors of the accepted log-poles, those
// of the heads the samples locate only roughly raised to crowdedError
// (markRough, as labelKnown judges an RF fitted from economy's samples).
func (l *learner) frugalErrors(q polefit.Samples, lb label.Fits) []float64 {
	hc := len(q.R)
	prob := q.Problem(func() {})
	se := lsq.StandardErrors(prob.Jacobian(lb.X), prob.M, prob.N, math.Max(1, lb.Chi2/float64(max(1, prob.M-hc))))
	l.markRough(se, lb.X, q.R, q.N, q.Y)
	return se
}

// recordFrugal records the solved poles of frugal measurement k in the
// trace: its fit (poles in increasing order, residues ρ_h·r_h, C known)
// and the head of every pole. It returns the heads in pole order.
func (l *learner) recordFrugal(k int, f0 float64, rr, p []float64) []int {
	rf := &l.res.Trace.RFs[k]
	hc := len(p)
	order := make([]int, hc)
	for h := range order {
		order[h] = h
	}
	for i := 1; i < hc; i++ {
		for m := i; m > 0 && p[order[m]] < p[order[m-1]]; m-- {
			order[m], order[m-1] = order[m-1], order[m]
		}
	}
	var sr float64
	for _, r := range rr {
		sr += r
	}
	fit := rational.Result{C: f0 - sr}
	rf.P, rf.R, rf.Heads = nil, nil, nil
	for _, h := range order {
		rho := xmath.Exp(p[h])
		fit.Poles = append(fit.Poles, rho)
		fit.Residues = append(fit.Residues, float64(rho*rr[h]))
		rf.P, rf.R, rf.Heads = append(rf.P, p[h]), append(rf.R, rr[h]), append(rf.Heads, h)
	}
	rf.Fit, rf.KnownC, rf.C = fit, true, fit.C
	return order
}

// solvedPoles fits the log-poles of q from every real positive solution
// of its first H + 1 samples that numerics/internal/poles finds and that
// explains them about as well as the best (elimination also returns the
// labellings whose residues only roughly match, which are no solutions:
// a fit from one would only wander); a labelling of no fit (χ² = +Inf)
// where it finds none.
func (l *learner) solvedPoles(q polefit.Samples) label.Fits {
	starts := polefit.SolvedStarts(q, l.workers)
	if len(starts) == 0 {
		return noFit
	}
	prob := q.Problem(func() {})
	e := make([]float64, prob.M)
	chi := make([]float64, len(starts))
	best := math.Inf(1)
	for i, p := range starts {
		prob.Resid(p, e)
		chi[i] = lsq.SumSquares(e)
		best = math.Min(best, chi[i])
	}
	limit := math.Max(float64(1e4*best), frugalSolution*float64(prob.M))
	var kept [][]float64
	for i, p := range starts {
		if chi[i] <= limit {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return noFit
	}
	return l.plainPoles(q, kept)
}

// noFit is the labelling of no fit at all.
var noFit = label.Pick(nil, nil, polefit.Same)
