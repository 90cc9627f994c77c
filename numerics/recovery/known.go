package recovery

import (
	"fmt"
	"math"

	"headlab/numerics/internal/stopping"
	"headlab/numerics/internal/xmath"
	"headlab/numerics/rational"
	"headlab/numerics/recovery/internal/label"
	"headlab/numerics/recovery/internal/lsq"
	"headlab/numerics/recovery/internal/polefit"
)

// labelKnown fits RF k when every r_h and V are known (MATH.md §4, idea 3):
// C = V·a and F(0) = V·z are known, the rational fit gives the poles, the
// known values r_h(u) label them, and each labelling is refitted as a fit of
// the H log-poles alone. It returns p̂_h per head, or an error saying why
// the RF is unresolved.
func (l *learner) labelKnown(k int, t theta) (p, sigma []float64, err error) {
	kr := l.newKnownRF(k, t)
	pad, cost, err := kr.rationalStarts()
	if err != nil {
		return nil, nil, err
	}
	fit := label.Fitter(kr.newProb, 60)
	lb := label.Choose(kr.starts(pad, cost), fit, polefit.Same, l.workers)
	// Two heads with nearly equal log-poles make a narrow valley in which
	// the fit can stall: restart with the pair spread apart around its mean.
	var extra [][]float64
	for a := 0; a < t.H; a++ {
		for b := a + 1; b < t.H; b++ {
			if !(math.Abs(lb.X[a]-lb.X[b]) > 0.2) {
				extra = append(extra, label.SpreadPair(lb.X, a, b, []float64{0.003, 0.01, 0.03, 0.1})...)
			}
		}
	}
	if len(extra) > 0 {
		lb = lb.Merge(label.Choose(extra, fit, polefit.Same, l.workers), polefit.Same)
	}
	return kr.label(lb)
}

// knownRF is RF k of a later column with every value r_h and V known
// (labelKnown): its samples at n ≥ 1 are F(0) − Σ_h r_h·n/(n + e^{p_h}).
type knownRF struct {
	l   *learner
	k   int
	hc  int
	rr  []float64 // r_h(u), per head
	f0  float64   // F(0) = V·z
	rs  float64   // the largest |r_h|, or 1
	smp []row     // the samples at n ≥ 1
	u   []float64 // their rounding (stopping.Rounding)
}

func (l *learner) newKnownRF(k int, t theta) *knownRF {
	hc := t.H
	s := l.specs[k]
	kr := &knownRF{l: l, k: k, hc: hc, rr: make([]float64, hc)}
	for h := 0; h < hc; h++ {
		_, r, vz := s.headTerms(t, h, l.c)
		kr.rr[h] = r
		kr.f0 += vz
		kr.rs = math.Max(kr.rs, math.Abs(r))
	}
	if kr.rs == 0 {
		kr.rs = 1
	}
	return kr
}

// rationalStarts fits the RF as a rational function with its constant
// C = F(0) − Σ_h r_h known and returns its poles as the starting points,
// with the cost of head h taking pole b (how far its residue is from
// r_h); or, if the fit was rejected, the poles of the rejected fit, or
// guesses for the poles it misses (paddedGuesses), with no costs: the fit
// of the log-poles decides. It also gathers the samples at n ≥ 1.
func (kr *knownRF) rationalStarts() (pad, cost [][]float64, err error) {
	l, hc := kr.l, kr.hc
	rf := &l.res.Trace.RFs[kr.k]
	var sr float64
	for h := 0; h < hc; h++ {
		sr += kr.rr[h]
	}
	c := kr.f0 - sr
	cost = make([][]float64, hc)
	for h := range cost {
		cost[h] = make([]float64, hc)
	}
	var start []float64
	if err := l.fitRF(kr.k, rational.Options{Poles: hc, KnownC: true, C: c}, &kr.f0); err != nil {
		p, ok := poleGuess(err, hc)
		if ok {
			start = p
		} else if pad = paddedGuesses(err, hc); pad == nil {
			return nil, nil, err
		}
	} else {
		start = rf.P
		for h := range cost {
			for b := range cost[h] {
				cost[h][b] = math.Abs(rf.R[b]-kr.rr[h]) / kr.rs
			}
		}
	}
	if start != nil {
		pad = [][]float64{start}
	}
	for i, n := range rf.N {
		if n >= 1 {
			kr.smp = append(kr.smp, row{n: n, y: rf.F[i], sigma: l.sigma(rf.F[i])})
		}
	}
	kr.u = make([]float64, len(kr.smp))
	for i, r := range kr.smp {
		kr.u[i] = stopping.Rounding(r.y, r.sigma)
	}
	return pad, cost, nil
}

// starts returns every start's poles in the order of every candidate
// labelling (candidates of cost).
func (kr *knownRF) starts(pad, cost [][]float64) [][]float64 {
	var starts [][]float64
	for _, st := range pad {
		for _, perm := range label.Candidates(cost) {
			p := make([]float64, kr.hc)
			for h := range p {
				p[h] = st[perm[h]]
			}
			starts = append(starts, p)
		}
	}
	return starts
}

// newProb returns the fit of the log-poles p_h,
// e_i = (F(0) − Σ_h r_h n/(n + e^{p_h}) − y_i)/σ_i, with its own buffer
// for e^{p_h}, shared by its resid and jac: one per goroutine that fits
// (label.Choose, label.Fitter).
func (kr *knownRF) newProb() lsq.Problem {
	hc, smp, rr, f0 := kr.hc, kr.smp, kr.rr, kr.f0
	rho := make([]float64, hc)
	rhos := func(p []float64) {
		for h := range rho {
			rho[h] = xmath.Exp(p[h])
		}
	}
	prob := lsq.Problem{M: len(smp), N: hc, U: kr.u}
	prob.Resid = func(p, e []float64) {
		kr.l.tick()
		rhos(p)
		for i, r := range smp {
			y := f0
			for h := 0; h < hc; h++ {
				y -= rr[h] * r.n / (r.n + rho[h])
			}
			e[i] = (y - r.y) / r.sigma
		}
	}
	prob.Jac = func(p, j []float64) {
		rhos(p)
		for i, r := range smp {
			ji := j[i*hc : (i+1)*hc]
			for h := range ji {
				den := r.n + rho[h]
				ji[h] = rr[h] * r.n * rho[h] / (den * den) / r.sigma
			}
		}
	}
	return prob
}

// label labels the RF's poles by the fitted log-poles lb and returns them
// with their standard errors. Heads on which fits about as good as the
// best disagree are left undecided by this RF (an infinite error); if that
// is every head, the RF says nothing.
func (kr *knownRF) label(lb label.Fits) (p, sigma []float64, err error) {
	l, hc, smp := kr.l, kr.hc, kr.smp
	rf := &l.res.Trace.RFs[kr.k]
	amb := lb.Ambiguous(len(smp), 1e-6)
	nAmb := 0
	for _, a := range amb {
		if a {
			nAmb++
		}
	}
	if nAmb == hc {
		return nil, nil, fmt.Errorf("the known values r_h do not decide the labels (χ² %.3g vs rival %.3g)", lb.Chi2, lb.Rival)
	}
	// Label the poles by the fitted values (the fit may have moved away
	// from its starting labelling).
	rf.Heads = matchPoles(rf, func(h int) (float64, float64) { return lb.X[h], kr.rr[h] }, hc, kr.rs)
	for b, h := range rf.Heads {
		if h >= 0 && amb[h] {
			rf.Heads[b] = -1
		}
	}
	prob := kr.newProb()
	se := lsq.StandardErrors(prob.Jacobian(lb.X), prob.M, prob.N, math.Max(1, lb.Chi2/float64(max(1, len(smp)-hc))))
	for h := range se {
		if amb[h] {
			se[h] = math.Inf(1)
		}
	}
	n, y := make([]float64, len(smp)), make([]float64, len(smp))
	for i, r := range smp {
		n[i], y[i] = r.n, r.y
	}
	l.markRough(se, lb.X, kr.rr, n, y)
	return lb.X, se, nil
}
