package recovery

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"headlab/numerics/internal/linalg"
	"headlab/numerics/internal/xmath"
	"headlab/numerics/rational"
)

// learnColumnOne fits the RFs with z = z_1, finds the number of canonical
// heads, labels the heads through the links and returns the parameters of
// column 1 of every P_h and all of every r_h (MATH.md §4, "learn v first").
func (l *learner) learnColumnOne() (theta, error) {
	l.stage = stageColumnOne
	hc, errs, err := l.countHeads()
	if err != nil {
		return theta{}, err
	}
	if hc == 0 {
		return newTheta(0, l.d, l.ncols), nil
	}
	guesses := l.columnOneGuesses(hc, errs)
	k11 := l.first[0]
	g11, ok := guesses[k11]
	if !ok {
		return theta{}, l.fail(k11, fmt.Sprintf("does not show all %d heads", hc), errs[k11])
	}
	t := newTheta(hc, l.d, l.ncols)
	var rs float64
	for h := 0; h < hc; h++ {
		t.x[t.pIndex(h, 0, 0)] = g11.p[h]
		t.x[t.rIndex(h, 0)] = g11.r[h]
		rs = math.Max(rs, math.Abs(g11.r[h]))
	}
	for i := 1; i < l.d; i++ {
		if err := l.linkColumnOne(t, i, rs, guesses, errs); err != nil {
			return theta{}, err
		}
		l.links++
	}
	m11 := &l.res.Trace.RFs[k11]
	m11.Heads = matchPoles(m11, func(h int) (float64, float64) { return t.P(h, 0, 0), t.R(h, 0) }, hc, rs)
	t = l.fitColumnOne(t)
	l.columns = 1
	return t, nil
}

// countHeads fits every RF on z_1 with at most H poles and returns the
// most any shows, with the fits that failed.
func (l *learner) countHeads() (hc int, errs map[int]error, err error) {
	errs = make(map[int]error)
	for _, k := range l.first {
		if err := l.fitRF(k, rational.Options{Poles: l.h0, UpperBound: true}, nil); err != nil {
			errs[k] = err
			continue
		}
		hc = max(hc, len(l.res.Trace.RFs[k].Fit.Poles))
	}
	if len(errs) == len(l.first) {
		k := l.first[0]
		return 0, errs, l.fail(k, "cannot fit", errs[k])
	}
	return hc, errs, nil
}

// columnOneGuesses refits every RF on z_1 with hc poles and returns the
// starting guesses of its heads. Where that fails the RF keeps its fit
// with fewer poles for the trace, and the poles of the rejected fit still
// serve as a starting guess (a complex pair split into two real poles):
// the joint fits of the links decide on all the samples. errs records the
// failures.
func (l *learner) columnOneGuesses(hc int, errs map[int]error) map[int]guess {
	guesses := make(map[int]guess)
	for _, k := range l.first {
		rf := &l.res.Trace.RFs[k]
		if errs[k] == nil && len(rf.Fit.Poles) == hc {
			guesses[k] = guess{p: rf.P, r: rf.R}
			continue
		}
		keep := *rf
		err := l.fitRF(k, rational.Options{Poles: hc}, nil)
		if err == nil {
			guesses[k] = guess{p: rf.P, r: rf.R}
			continue
		}
		if errs[k] == nil {
			*rf = keep
		}
		errs[k] = err
		if p, ok := poleGuess(err, hc); ok {
			guesses[k] = guess{p: p, r: l.valuesGiven(k, p)}
			continue
		}
		// Too few usable poles: fill in the missing ones from a few
		// values, keeping the set that fits the samples best.
		best := math.Inf(1)
		for _, p := range paddedGuesses(err, hc) {
			sort.Float64s(p)
			r := l.valuesGiven(k, p)
			if ss := l.valuesMisfit(k, p, r); ss < best {
				best, guesses[k] = ss, guess{p: p, r: r}
			}
		}
	}
	return guesses
}

// fitColumnOne fits jointly everything the RFs on z_1 determine: column
// one of every P_h and every r_h.
func (l *learner) fitColumnOne(t theta) theta {
	hc := t.H
	free := make([]bool, len(t.x))
	for h := 0; h < hc; h++ {
		for a := 0; a < l.d; a++ {
			free[t.pIndex(h, a, 0)] = true
			free[t.rIndex(h, a)] = true
		}
	}
	onZ1 := make(map[int]bool)
	for _, k := range l.first {
		onZ1[k] = true
	}
	sv := l.newSolver(l.queryRowsWhere(func(k int) bool { return onZ1[k] }), free, hc)
	t, _ = sv.fit(t, 50)
	return t
}

// guess is a starting point for an RF's poles: p = log ρ and r = R/ρ of
// each, unlabelled.
type guess struct{ p, r []float64 }

// poleGuess returns hc log-poles from the poles of a rejected fit (a
// complex pair x ± iy becomes the real poles x ± y), if there are hc.
func poleGuess(err error, hc int) ([]float64, bool) {
	var e *rational.Error
	if !errors.As(err, &e) {
		return nil, false
	}
	var p []float64
	for _, z := range e.Poles {
		re, im := real(z), math.Abs(imag(z))
		switch {
		case re >= 0 || math.IsNaN(re) || math.IsInf(re, 0):
			continue
		case im == 0:
			p = append(p, xmath.Log(-re))
		case imag(z) > 0:
			lo := -re - im
			if lo <= 0 {
				lo = -re / 2
			}
			p = append(p, xmath.Log(lo), xmath.Log(-re+im))
		}
	}
	if len(p) != hc {
		return nil, false
	}
	sort.Float64s(p)
	return p, true
}

// valuesMisfit returns the weighted sum of squared residuals of RF k's
// samples (n ≥ 1) for log-poles p and values r, in the form F(n) − F(0) =
// −Σ_h r_h·n/(n+ρ_h).
func (l *learner) valuesMisfit(k int, p, r []float64) float64 {
	rf := &l.res.Trace.RFs[k]
	f0 := math.NaN()
	for s, n := range rf.N {
		if n == 0 {
			f0 = rf.F[s]
		}
	}
	var ss float64
	for s, n := range rf.N {
		if n == 0 {
			continue
		}
		y := f0
		for h, ph := range p {
			y -= r[h] * n / (n + xmath.Exp(ph))
		}
		e := (y - rf.F[s]) / l.sigma(rf.F[s])
		ss += float64(e * e)
	}
	if math.IsNaN(ss) {
		return math.Inf(1)
	}
	return ss
}

// valuesGiven returns the values r_h that best fit the samples of RF k
// (which has the sample n = 0) for the given log-poles: F(n) − F(0) =
// −Σ_h r_h·n/(n+ρ_h) is linear in them.
func (l *learner) valuesGiven(k int, p []float64) []float64 {
	rf := &l.res.Trace.RFs[k]
	f0 := math.NaN()
	for s, n := range rf.N {
		if n == 0 {
			f0 = rf.F[s]
		}
	}
	var a [][]float64
	var b []float64
	for s, n := range rf.N {
		if n == 0 {
			continue
		}
		w := 1 / l.sigma(rf.F[s])
		row := make([]float64, len(p))
		for h, ph := range p {
			row[h] = -n / (n + xmath.Exp(ph)) * w
		}
		a = append(a, row)
		b = append(b, (rf.F[s]-f0)*w)
	}
	r, ok := linalg.SolveLS(a, b, len(p))
	if !ok || math.IsNaN(f0) {
		return make([]float64, len(p))
	}
	return r
}
