package recovery

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"headlab/numerics/internal/parallel"
	"headlab/numerics/internal/poles"
	"headlab/numerics/internal/stopping"
	"headlab/numerics/internal/xmath"
	"headlab/numerics/rational"
	"headlab/numerics/recovery/internal/label"
	"headlab/numerics/recovery/internal/lsq"
)

// The float64 searches for a frugal measurement's poles (MATH.md §3.4,
// "Frugal mode"): its samples are F(n) = F(0) − Σ_h r_h·n/(n + ρ_h) with
// every r_h and F(0) known, so only the H log-poles p_h = log ρ_h are
// fitted, each tied to its head by its r_h. The searches here are the
// steps of the ladders in frugal_ladder.go, which give their order;
// labelFrugal climbs float64's.

// frugalSolution is the largest χ² per sample, under the noise model,
// of a fit that counts as explaining a frugal measurement's samples:
// evaluating the model rounds too (terms larger than the answer cancel),
// so the limit is generous; a rival labelling must in addition fit
// ambiguity times worse than the best (decided).
const frugalSolution = 1e6

// frugalStarts returns the number of starting points of a frugal pole
// search for hc heads.
func frugalStarts(hc int) int { return 32 + 32*hc }

// poleSamples are the samples of one frugal measurement with its known
// terms: y(n) = f0 − Σ_h r[h]·n/(n + exp p_h).
type poleSamples struct {
	n, y, sigma []float64
	f0          float64
	r           []float64
}

// problem returns the weighted least-squares problem of the log-poles,
// with buffers of its own.
func (q poleSamples) problem(tick func()) lsq.Problem {
	hc := len(q.r)
	rho := make([]float64, hc)
	rhos := func(p []float64) {
		for h := range rho {
			rho[h] = xmath.Exp(p[h])
		}
	}
	u := make([]float64, len(q.n))
	for i := range u {
		u[i] = stopping.Rounding(q.y[i], q.sigma[i])
	}
	return lsq.Problem{M: len(q.n), N: hc, U: u,
		Resid: func(p, e []float64) {
			tick()
			rhos(p)
			for i, n := range q.n {
				y := q.f0
				for h := 0; h < hc; h++ {
					y -= q.r[h] * n / (n + rho[h])
				}
				e[i] = (y - q.y[i]) / q.sigma[i]
			}
		},
		Jac: func(p, j []float64) {
			rhos(p)
			for i, n := range q.n {
				ji := j[i*hc : (i+1)*hc]
				for h := range ji {
					den := n + rho[h]
					ji[h] = q.r[h] * n * rho[h] / (den * den) / q.sigma[i]
				}
			}
		},
	}
}

// samePoles reports whether two sets of log-poles agree to 1e-6.
func samePoles(a, b []float64) bool {
	for h := range a {
		if math.Abs(a[h]-b[h]) > 1e-6*(1+math.Abs(b[h])) {
			return false
		}
	}
	return true
}

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
// the first scannedStarts first moved by coordinate scans (scanPoles), and returns
// all the fits as a labelling (best and best distinct rival). lo…hi is
// the range the scans search.
func (l *learner) searchPoles(q poleSamples, starts [][]float64, lo, hi float64) label.Fits {
	return l.scannedPoles(q, starts, lo, hi).Merge(l.plainPoles(q, starts), samePoles)
}

// plainPoles fits the log-poles of q from every start as it is.
func (l *learner) plainPoles(q poleSamples, starts [][]float64) label.Fits {
	return l.chooseStarts(starts, label.Fitter(func() lsq.Problem { return q.problem(l.tick) }, 60), samePoles)
}

// scannedPoles fits the log-poles of q from the first scannedStarts
// starts, each first moved by coordinate scans over lo…hi.
func (l *learner) scannedPoles(q poleSamples, starts [][]float64, lo, hi float64) label.Fits {
	return l.fitScanned(q, q.grid(lo, hi), starts[:min(len(starts), scannedStarts)])
}

// fitScanned moves every start by coordinate scans on gr and fits the
// log-poles of q from it. Scans from different starts often end on the
// same grid point: each distinct scanned point is fitted once, and its
// fit stands for every start that reached it (the same fits as one fit
// per start, bit for bit).
func (l *learner) fitScanned(q poleSamples, gr *poleGrid, starts [][]float64) label.Fits {
	return l.fitMoved(q, starts, gr.scanPoles)
}

// fitMoved moves every start by move and fits the log-poles of q from
// it, each distinct moved point once (as fitScanned).
func (l *learner) fitMoved(q poleSamples, starts [][]float64, move func([]float64) []float64) label.Fits {
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
	lb := l.chooseStarts(uniq, label.Fitter(func() lsq.Problem { return q.problem(l.tick) }, 60), samePoles)
	xs, cs := make([][]float64, len(starts)), make([]float64, len(starts))
	for i, u := range at {
		xs[i], cs[i] = lb.All[u], lb.AllChi2[u]
	}
	return label.Pick(xs, cs, samePoles)
}

// quickStarts is how many starts the quick search takes.
const quickStarts = 8

// quickPoles is the first, cheap search: the first quickStarts starts
// moved by coordinate scans, fitted, and the transpositions of the best
// fit (the rivals two heads with close values make) fitted too. Where it
// decides, the poles are accepted; else the full search runs.
func (l *learner) quickPoles(q poleSamples, starts [][]float64, lo, hi float64) label.Fits {
	lb := l.fitScanned(q, q.grid(lo, hi), starts[:min(len(starts), quickStarts)])
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
	return lb.Merge(l.chooseStarts(swaps, label.Fitter(func() lsq.Problem { return q.problem(l.tick) }, 60), samePoles), samePoles)
}

// The deflated search, for eliminatedHeads < H ≤ deflatedHeads: H −
// eliminatedHeads heads' poles held (every choice of them) at every
// combination of deflatedOffsets widths from their ranges' centres, the
// other eliminatedHeads solved by elimination from the first
// eliminatedHeads + 1 samples less the held heads' terms
// (numerics/internal/poles, microseconds each), and the deflatedKeep of
// these starts that fit all the samples best fitted. Where the quick
// search's fits wander off (a pole running to 0, or two merging), these
// starts are near the truth: at (4, 4) with 192 bits the homotopy is left
// a fifth of the measurements instead of over half, and at (5, 4) with
// 256 bits (no homotopy) 62 of 120 fall back instead of 99. H = 4 holds
// one head at 3 points (12 eliminations), H = 5 two at 3 × 3 (90).
const deflatedHeads = eliminatedHeads + 2

var deflatedOffsets = [...]float64{-0.5, 0, 0.5}

const deflatedKeep = 8

// deflatedPoles fits the log-poles of q from the deflated search's starts
// (mu and width: the heads' ranges, poleRange); no fit where the deflated
// search does not take q's number of heads.
func (l *learner) deflatedPoles(q poleSamples, mu, width []float64) label.Fits {
	starts := deflatedStarts(q, mu, width, l.workers)
	if len(starts) == 0 {
		return noFit
	}
	return l.chooseStarts(starts, label.Fitter(func() lsq.Problem { return q.problem(l.tick) }, 60), samePoles)
}

// deflatedStarts returns the deflated search's starts for q, best fit
// first. The eliminations are independent, so they run on up to workers
// goroutines; each one's starts go into its own slot and are gathered in
// the eliminations' order, so the result is the same bits for any number.
func deflatedStarts(q poleSamples, mu, width []float64, workers int) [][]float64 {
	hc := len(q.r)
	held := hc - eliminatedHeads
	if held < 1 || hc > deflatedHeads || len(q.n) < hc+1 {
		return nil
	}
	m := eliminatedHeads + 1 // the samples the elimination takes
	w := q.weights(m)
	type start struct {
		p   []float64
		chi float64
	}
	// One elimination per choice of held heads and of their offsets.
	type item struct{ held, free, off []int }
	var items []item
	for _, g := range subsets(hc, held) {
		var free []int
		for h := 0; h < hc; h++ {
			if !slices.Contains(g, h) {
				free = append(free, h)
			}
		}
		for _, off := range tuples(len(deflatedOffsets), held) {
			items = append(items, item{g, free, off})
		}
	}
	found := make([][]start, len(items))
	parallel.Each(len(items), min(workers, len(items)/minEliminationsPerWorker), func() func(int) {
		prob := q.problem(func() {})
		e := make([]float64, prob.M)
		r := make([]float64, eliminatedHeads)
		v := make([]float64, m)
		hold := make([]float64, hc) // the held heads' log-poles
		return func(i int) {
			it := items[i]
			for k, h := range it.free {
				r[k] = q.r[h]
			}
			copy(v, w)
			for k, h := range it.held {
				hold[h] = mu[h] + float64(deflatedOffsets[it.off[k]]*width[h])
				rho := xmath.Exp(hold[h])
				for s := range v {
					v[s] -= q.r[h] / (q.n[s] + rho)
				}
			}
			res, err := poles.Solve(r, q.n[:m], v, 1)
			if err != nil {
				return
			}
			for _, sol := range res.Solutions {
				lp, ok := logPoles(sol)
				if !ok {
					continue
				}
				p := make([]float64, hc)
				for _, h := range it.held {
					p[h] = hold[h]
				}
				for k, h := range it.free {
					p[h] = lp[k]
				}
				prob.Resid(p, e)
				if chi := lsq.SumSquares(e); !math.IsNaN(chi) && !math.IsInf(chi, 0) {
					found[i] = append(found[i], start{p, chi})
				}
			}
		}
	})
	starts := slices.Concat(found...)
	slices.SortStableFunc(starts, func(a, b start) int { return cmp.Compare(a.chi, b.chi) })
	var out [][]float64
	for _, s := range starts[:min(len(starts), deflatedKeep)] {
		out = lsq.AppendDistinct(out, s.p)
	}
	return out
}

// minEliminationsPerWorker is the fewest deflated eliminations worth a
// goroutine of their own (some 20 µs each).
const minEliminationsPerWorker = 8

// subsets returns every k-element subset of 0…n−1, each increasing, in
// lexicographic order.
func subsets(n, k int) [][]int {
	var out [][]int
	var walk func(from int, s []int)
	walk = func(from int, s []int) {
		if len(s) == k {
			out = append(out, slices.Clone(s))
			return
		}
		for i := from; i < n; i++ {
			walk(i+1, append(s, i))
		}
	}
	walk(0, nil)
	return out
}

// tuples returns every k-tuple over 0…n−1, in lexicographic order.
func tuples(n, k int) [][]int {
	out := [][]int{nil}
	for range k {
		var next [][]int
		for _, t := range out {
			for i := 0; i < n; i++ {
				next = append(next, append(slices.Clone(t), i))
			}
		}
		out = next
	}
	return out
}

// scannedStarts is how many starts of the full search are also moved by
// coordinate scans before their fit.
const scannedStarts = 24

// Coordinate scans: scanSweeps passes over the heads, each trying
// scanPoints log-poles evenly spread over the search range for one head
// with the others fixed, and keeping the best.
const (
	scanSweeps = 3
	scanPoints = 160
)

// poleGrid is the grid of a coordinate scan over lo…hi for one frugal
// measurement: every head's term at every grid point and sample, divided
// by the sample's noise, computed once and shared (read only) by the
// scans of every start.
type poleGrid struct {
	q    poleSamples
	lp   []float64   // the grid's log-poles
	term [][]float64 // term[h][g*m+i] = r_h·n_i/(n_i + exp lp[g]) / σ_i
}

// grid returns the scan grid of q over lo…hi.
func (q poleSamples) grid(lo, hi float64) *poleGrid {
	hc, m := len(q.r), len(q.n)
	gr := &poleGrid{q: q, lp: make([]float64, scanPoints), term: make([][]float64, hc)}
	rhos := make([]float64, scanPoints)
	for g := range rhos {
		gr.lp[g] = lo + (hi-lo)*float64(g)/float64(scanPoints-1)
		rhos[g] = xmath.Exp(gr.lp[g])
	}
	for h := range gr.term {
		t := make([]float64, scanPoints*m)
		for g, rho := range rhos {
			for i := 0; i < m; i++ {
				t[g*m+i] = q.r[h] * q.n[i] / (q.n[i] + rho) / q.sigma[i]
			}
		}
		gr.term[h] = t
	}
	return gr
}

// scanPoles moves the log-poles p0 by coordinate scans: each head's term
// is a function of its own pole alone, so one head's best value over a
// grid costs one pass over the samples per grid point (the scaled
// residual of the other heads, less the grid's scaled term, stopped once
// it exceeds the best so far). Fits from a start so moved escape the
// local minima where two heads' poles sit in each other's place.
func (gr *poleGrid) scanPoles(p0 []float64) []float64 {
	q := gr.q
	hc, m := len(q.r), len(q.n)
	p := append([]float64(nil), p0...)
	// terms[h*m+i]: head h's term at its current pole, sample i.
	terms := make([]float64, hc*m)
	set := func(h int) {
		rho := xmath.Exp(p[h])
		for i := 0; i < m; i++ {
			terms[h*m+i] = q.r[h] * q.n[i] / (q.n[i] + rho)
		}
	}
	for h := 0; h < hc; h++ {
		set(h)
	}
	base := make([]float64, m) // (F(0) − the other heads' terms − y_i)/σ_i
	for sweep := 0; sweep < scanSweeps; sweep++ {
		for h := 0; h < hc; h++ {
			var bestCost float64
			for i := range base {
				y := q.f0
				for g := 0; g < hc; g++ {
					if g != h {
						y -= terms[g*m+i]
					}
				}
				base[i] = (y - q.y[i]) / q.sigma[i]
				e := (y - terms[h*m+i] - q.y[i]) / q.sigma[i]
				bestCost += float64(e * e)
			}
			best := -1
			th := gr.term[h]
			for g := range gr.lp {
				tg := th[g*m : (g+1)*m]
				var c float64
				for i, b := range base {
					e := b - tg[i]
					c += float64(e * e)
					if c >= bestCost {
						break
					}
				}
				if c < bestCost {
					best, bestCost = g, c
				}
			}
			if best >= 0 {
				p[h] = gr.lp[best]
				set(h)
			}
		}
	}
	return p
}

// pairPoints is the grid of a pair scan per head (pairPoints² points).
const pairPoints = 64

// pairScan moves the log-poles p0 by a scan of every pair of heads over
// the range lo…hi at once (the others fixed), keeping each improvement:
// it escapes minima that one head at a time cannot leave.
func (q poleSamples) pairScan(p0 []float64, lo, hi float64) []float64 {
	hc, m := len(q.r), len(q.n)
	p := append([]float64(nil), p0...)
	term := func(h, i int, ph float64) float64 { return q.r[h] * q.n[i] / (q.n[i] + xmath.Exp(ph)) }
	base := make([]float64, m)
	grid := make([][]float64, hc) // grid[h][g*m+i]: head h's term at grid point g, sample i
	for h := range grid {
		grid[h] = make([]float64, pairPoints*m)
		for g := 0; g < pairPoints; g++ {
			ph := lo + (hi-lo)*float64(g)/float64(pairPoints-1)
			for i := 0; i < m; i++ {
				grid[h][g*m+i] = term(h, i, ph)
			}
		}
	}
	for a := 0; a < hc; a++ {
		for b := a + 1; b < hc; b++ {
			for i := range base {
				y := q.f0
				for g := 0; g < hc; g++ {
					if g != a && g != b {
						y -= term(g, i, p[g])
					}
				}
				base[i] = y
			}
			bestCost := math.Inf(1)
			ga, gb := -1, -1
			for x := 0; x < pairPoints; x++ {
				for y := 0; y < pairPoints; y++ {
					var ss float64
					for i := range base {
						e := (base[i] - grid[a][x*m+i] - grid[b][y*m+i] - q.y[i]) / q.sigma[i]
						ss += float64(e * e)
					}
					if ss < bestCost {
						bestCost, ga, gb = ss, x, y
					}
				}
			}
			var cur float64
			for i := range base {
				e := (base[i] - term(a, i, p[a]) - term(b, i, p[b]) - q.y[i]) / q.sigma[i]
				cur += float64(e * e)
			}
			if ga >= 0 && bestCost < cur {
				p[a] = lo + (hi-lo)*float64(ga)/float64(pairPoints-1)
				p[b] = lo + (hi-lo)*float64(gb)/float64(pairPoints-1)
			}
		}
	}
	return p
}

// deepen returns, for a search that found no solution, the fits from its
// best few points moved by pair scans (and single scans after them).
func (l *learner) deepen(q poleSamples, lb label.Fits, lo, hi float64) label.Fits {
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
	gr := q.grid(lo, hi)
	return l.fitMoved(q, starts, func(x0 []float64) []float64 { return gr.scanPoles(q.pairScan(x0, lo, hi)) })
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
		_, r, vz := l.headTerms(l.specs[k], t, h)
		rr[h] = r
		f0 += vz
	}
	return f0, rr
}

// frugalSamples returns RF k's samples with their noise model.
func (l *learner) frugalSamples(k int, f0 float64, rr []float64) poleSamples {
	rf := &l.res.Trace.RFs[k]
	q := poleSamples{f0: f0, r: rr}
	for i, n := range rf.N {
		q.n, q.y, q.sigma = append(q.n, n), append(q.y, rf.F[i]), append(q.sigma, l.sigma(rf.F[i]))
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
	s := l.newPoleSearch(m.k, m.t, q, m.mu, m.width, m.extra, len(q.n) == len(q.r)+1)
	lb, gaveUp := s.run(floatPoleSearch, func(lb label.Fits) bool { return frugalAccept(lb, len(q.n)) })
	m.lb, m.rows, m.gaveUp = lb, len(q.n), gaveUp
	if gaveUp || !frugalAccept(lb, len(q.n)) {
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

// economy gives the measurement economy's samples and labelling
// (frugalFallback).
func (m *floatMeasurement) economy() bool {
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
func (l *learner) frugalErrors(q poleSamples, lb label.Fits) []float64 {
	hc := len(q.r)
	prob := q.problem(func() {})
	se := lsq.StandardErrors(prob.Jacobian(lb.X), prob.M, prob.N, math.Max(1, lb.Chi2/float64(max(1, prob.M-hc))))
	l.markRough(se, lb.X, q.r, q.n, q.y)
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

// eliminatedHeads is the largest number of heads whose frugal poles
// numerics/internal/poles finds by elimination (microseconds); up to
// homotopyHeads it follows the H! paths of a homotopy (milliseconds at
// H = 4), and beyond only the searches here look for them.
const (
	eliminatedHeads = 3
	homotopyHeads   = 4
)

// solvedPoles fits the log-poles of q from every real positive solution
// of its first H + 1 samples that numerics/internal/poles finds and that
// explains them about as well as the best (elimination also returns the
// labellings whose residues only roughly match, which are no solutions:
// a fit from one would only wander); a labelling of no fit (χ² = +Inf)
// where it finds none.
func (l *learner) solvedPoles(q poleSamples) label.Fits {
	starts := solvedStarts(q, l.workers)
	if len(starts) == 0 {
		return noFit
	}
	prob := q.problem(func() {})
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
	return l.chooseStarts(kept, label.Fitter(func() lsq.Problem { return q.problem(l.tick) }, 60), samePoles)
}

// solvedStarts returns the real positive solutions that poles.Solve finds
// for the first H + 1 samples of q, as log-poles (up to workers
// goroutines following the homotopy's paths).
func solvedStarts(q poleSamples, workers int) [][]float64 {
	hc := len(q.r)
	if hc > homotopyHeads || len(q.n) < hc+1 {
		return nil
	}
	res, err := poles.Solve(q.r, q.n[:hc+1], q.weights(hc+1), workers)
	if err != nil {
		return nil
	}
	var starts [][]float64
	for _, s := range res.Solutions {
		if p, ok := logPoles(s); ok {
			starts = lsq.AppendDistinct(starts, p)
		}
	}
	return starts
}

// weights returns the weighted sums w_i = (F(0) − y_i)/n_i = Σ_h r_h/(n_i +
// ρ_h) of q's first m samples, as numerics/internal/poles takes them.
func (q poleSamples) weights(m int) []float64 {
	w := make([]float64, m)
	for i := range w {
		w[i] = (q.f0 - q.y[i]) / q.n[i]
	}
	return w
}

// logPoles returns the log-poles of a solution of poles.Solve, or false
// where a pole is not real (within realPart) and positive.
func logPoles(s []complex128) ([]float64, bool) {
	p := make([]float64, len(s))
	for h, v := range s {
		re, im := real(v), imag(v)
		if !(re > 0) || math.Abs(im) > realPart*re {
			return nil, false
		}
		p[h] = xmath.Log(re)
	}
	return p, true
}

// noFit is the labelling of no fit at all.
var noFit = label.Pick(nil, nil, samePoles)

// realPart is how large, relative to its real part, a solution's
// imaginary part may be for the solution to count as real: noise in the
// samples can turn two close real solutions into a complex pair.
const realPart = 1e-3
