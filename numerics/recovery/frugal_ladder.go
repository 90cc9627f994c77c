package recovery

import (
	"math/big"

	"headlab/numerics/recovery/internal/label"
	"headlab/numerics/recovery/internal/polefit"
)

// Frugal's ladders (MATH.md §3.4, "Frugal mode"): the order in which a
// frugal measurement's poles are looked for, and what it is given when
// they are not found. Each precision lists its own: floatPoleSearch and
// bigPoleSearch are the searches on one set of samples, floatLadder and
// bigLadder the rungs of more samples around them.

// floatLadder is the ladder of a frugal measurement in float64
// (labelFrugal): each rung tries to settle the poles, asking the samples
// it needs; the first that does ends the climb, and the last, economy's,
// always does.
var floatLadder = []floatRung{
	{name: "pole search on n = 1…H+1", try: (*floatMeasurement).search},
	{name: "one more sample, and the search again", try: (*floatMeasurement).oneMore},
	{name: "economy's samples and label.Fits", try: (*floatMeasurement).asEconomy},
}

// floatPoleSearch is the search for a frugal measurement's poles in
// float64, run on its H+1 samples and again on H+2 (labelFrugal).
var floatPoleSearch = []poleStep{
	{name: "elimination", when: eliminates, find: eliminated},
	{name: "deflated search", when: deflates, find: deflated},
	{name: "quick search", find: quick},
	{name: "economy's samples at once", when: beyondElimination, giveUp: true},
	{name: "full search, scanned starts", find: scanned},
	{name: "full search, plain starts", find: plainStarts},
	{name: "economy's fit as a start", when: nearlyEconomy, find: economyStart},
	{name: "pair scans from the best points", find: deepened},
}

// bigPoleSearch is the float64 search for a frugal measurement's poles in
// extended precision, on the roundings of its samples (plainFrugal),
// until some fit explains them; the candidates it leaves are polished at
// the working precision (settleFrugal).
var bigPoleSearch = []poleStep{
	{name: "elimination", when: eliminates, find: eliminated},
	{name: "deflated search", when: deflates, find: deflated},
	{name: "quick search", find: quick},
	{name: "homotopy", when: homotopy, find: eliminated},
	{name: "full search", find: fullSearch},
}

// bigLadder is the ladder of a frugal measurement in extended precision
// (plainFrugalColumn): each rung asks the samples it needs and tries to
// settle the poles; the first that does ends the climb, and the last,
// economy's, always does (or fails the run).
var bigLadder = []bigRung{
	{name: "pole search on n = 1…H+1", try: (*bigMeasurement).search},
	{name: "one more sample, where the search located poles", try: (*bigMeasurement).oneMore},
	{name: "line family of n = 1…2H−2", try: (*bigMeasurement).line},
	{name: "economy's fit of n = 1…2H−1, checked by the values", try: (*bigMeasurement).asRational},
	{name: "economy's samples and label.Fits", try: (*bigMeasurement).asEconomy},
}

// poleSearch is one search for the poles of a frugal measurement's
// samples q: the heads' ranges and the starting points every step reads.
type poleSearch struct {
	l         *learner
	k         int   // the RF
	t         theta // the heads as known so far (float64)
	q         polefit.Samples
	mu, width []float64 // the heads' ranges (poleRange)
	lo, hi    float64   // the scans' range (scanRange)
	starts    [][]float64
	solve     bool // the samples are n = 1…H+1, which the solvers take
}

func (l *learner) newPoleSearch(k int, t theta, q polefit.Samples, mu, width []float64, extra [][]float64, solve bool) *poleSearch {
	lo, hi := scanRange(mu, width)
	return &poleSearch{l: l, k: k, t: t, q: q, mu: mu, width: width, lo: lo, hi: hi,
		starts: l.poleStarts(k, mu, width, extra), solve: solve}
}

// A poleStep is one step of a pole search: where when holds (nil: always)
// and the fits so far are not accepted, find returns more fits, which join
// them. A step with giveUp ends the search there instead, undecided.
type poleStep struct {
	name   string
	when   func(*poleSearch) bool
	find   func(*poleSearch, label.Fits) label.Fits
	giveUp bool
}

// run takes the steps in order until accept holds, and returns the fits
// found, or reports that a giveUp step ended the search.
func (s *poleSearch) run(steps []poleStep, accept func(label.Fits) bool) (lb label.Fits, gaveUp bool) {
	lb = noFit
	for _, st := range steps {
		if accept(lb) {
			break
		}
		if st.when != nil && !st.when(s) {
			continue
		}
		if st.giveUp {
			return lb, true
		}
		lb = lb.Merge(st.find(s, lb), polefit.Same)
	}
	return lb, false
}

// The conditions of the steps.
func eliminates(s *poleSearch) bool { return len(s.q.R) <= polefit.EliminatedHeads }
func deflates(s *poleSearch) bool {
	hc := len(s.q.R)
	return s.solve && polefit.EliminatedHeads < hc && hc <= polefit.DeflatedHeads
}
func homotopy(s *poleSearch) bool {
	hc := len(s.q.R)
	return s.solve && polefit.EliminatedHeads < hc && hc <= polefit.HomotopyHeads
}
func beyondElimination(s *poleSearch) bool { return s.t.H > polefit.EliminatedHeads }

// nearlyEconomy: with F(0), 2H − 1 samples determine the RF as a rational
// function (economy's fit, without its check sample).
func nearlyEconomy(s *poleSearch) bool { return len(s.q.N)+1 >= 2*s.t.H }

// The steps' searches (frugal_float.go).
func eliminated(s *poleSearch, _ label.Fits) label.Fits { return s.l.solvedPoles(s.q) }
func deflated(s *poleSearch, _ label.Fits) label.Fits {
	return s.l.deflatedPoles(s.q, s.mu, s.width)
}
func quick(s *poleSearch, _ label.Fits) label.Fits {
	return s.l.quickPoles(s.q, s.starts, s.lo, s.hi)
}
func scanned(s *poleSearch, _ label.Fits) label.Fits {
	return s.l.scannedPoles(s.q, s.starts, s.lo, s.hi)
}
func plainStarts(s *poleSearch, _ label.Fits) label.Fits { return s.l.plainPoles(s.q, s.starts) }
func fullSearch(s *poleSearch, _ label.Fits) label.Fits {
	return s.l.searchPoles(s.q, s.starts, s.lo, s.hi)
}
func deepened(s *poleSearch, lb label.Fits) label.Fits { return s.l.deepen(s.q, lb, s.lo, s.hi) }

// economyStart fits the RF as economy does (labelKnown) and starts one
// more fit of the log-poles from its labelled poles.
func economyStart(s *poleSearch, _ label.Fits) label.Fits {
	l, q := s.l, s.q
	if p, _, err := l.labelKnown(s.k, s.t); err == nil && len(p) == s.t.H {
		return l.plainPoles(q, [][]float64{p})
	}
	return noFit
}

// bigMeasurement is frugal measurement k, M_ij, on its way up bigLadder.
type bigMeasurement struct {
	l       *learner
	k, i, j int
	hc      int
	rs      float64 // the scale of the values r_h
	located bool    // the last search found poles that explain the samples
}

// A bigRung is one rung of bigLadder: try asks the samples it needs and
// reports whether it settled the poles (an error ends the run).
type bigRung struct {
	name string
	try  func(*bigMeasurement) (bool, error)
}

// plainFrugalColumn learns column j in frugal mode at the working
// precision: each measurement is asked with n = 1…H+1 and climbs bigLadder
// before the next is asked; one that leaves the first rung is counted in
// Result.Fallbacks.
func (l *learner) plainFrugalColumn(hc, j int, rs float64) error {
	for i := 0; i < l.d; i++ {
		k, err := l.frugalMeasure(i, j, hc)
		if err != nil {
			return err
		}
		m := &bigMeasurement{l: l, k: k, i: i, j: j, hc: hc, rs: rs}
		for r, rung := range bigLadder {
			ok, err := rung.try(m)
			if err != nil {
				return err
			}
			if ok {
				break
			}
			if r == 0 {
				l.res.Fallbacks++
			}
		}
	}
	return nil
}

// askUpTo asks the measurement's samples up to n = last, each counted in
// the plan.
func (m *bigMeasurement) askUpTo(last int) error {
	l := m.l
	for n := len(l.res.Trace.RFs[m.k].N) + 1; n <= last; n++ {
		l.planned++
		if err := l.ask(m.k, n); err != nil {
			return err
		}
	}
	return nil
}

// settled records the log-poles p as P_h[i][j].
func (m *bigMeasurement) settled(p []*big.Float) bool {
	for h := 0; h < m.hc; h++ {
		m.l.x.P[h][m.i][m.j] = p[h]
	}
	return true
}

// search solves the poles from the samples asked so far (plainFrugal).
func (m *bigMeasurement) search() (bool, error) {
	p, ok, located := m.l.plainFrugal(m.k, m.hc, m.j)
	m.located = located
	if !ok {
		return false, nil
	}
	return m.settled(p), nil
}

// oneMore asks n = H+2 and searches again, where the search located
// poles: one more sample can settle two solutions, not a search that
// found none. Not where H+2 reaches economy's 2H.
func (m *bigMeasurement) oneMore() (bool, error) {
	next := len(m.l.res.Trace.RFs[m.k].N) + 1
	if !m.located || next >= 2*m.l.h0 || next > m.hc+2 {
		return false, nil
	}
	if err := m.askUpTo(next); err != nil {
		return false, err
	}
	return m.search()
}

// line asks up to n = 2H − 2 and solves the poles from the line family
// (lineFrugal), which finds every solution whose poles its roots, at the
// working precision, tell apart (from H = 3, and H known).
func (m *bigMeasurement) line() (bool, error) {
	if m.hc != m.l.h0 || m.hc < 3 {
		return false, nil
	}
	if err := m.askUpTo(2*m.hc - 2); err != nil {
		return false, err
	}
	p, ok := m.l.lineFrugal(m.k, m.hc)
	if !ok {
		return false, nil
	}
	return m.settled(p), nil
}

// asRational asks up to n = 2H − 1: with F(0) and C known, these determine
// the RF as a rational function (economy's fit without its check sample),
// and the known r_h, H values the fit does not use, check it
// (plainFrugalRational).
func (m *bigMeasurement) asRational() (bool, error) {
	l := m.l
	if err := m.askUpTo(2*l.h0 - 1); err != nil {
		return false, err
	}
	ok := m.hc == l.h0 && len(l.res.Trace.RFs[m.k].N) == 2*m.hc-1 && l.plainFrugalRational(m.k, m.hc, m.j, m.rs)
	return ok, nil
}

// asEconomy asks economy's last sample and labels the RF as economy does
// (plainKnown).
func (m *bigMeasurement) asEconomy() (bool, error) {
	if err := m.askUpTo(2 * m.l.h0); err != nil {
		return false, err
	}
	return true, m.l.plainKnown(m.k, m.hc, m.j, m.rs)
}
