package recovery

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"headlab/numerics/assign"
	"headlab/numerics/internal/stopping"
	"headlab/numerics/internal/xmath"
	"headlab/numerics/rational"
)

// learnColumnOne fits the RFs with z = z_1, finds the number of canonical
// heads, labels the heads through the links and returns the parameters of
// column 1 of every P_h and all of every r_h (MATH.md §4, "learn v first").
func (l *learner) learnColumnOne() (theta, error) {
	l.stage = stageColumnOne
	// Number of poles each RF shows, up to the bound.
	hc := 0
	errs := make(map[int]error)
	for _, k := range l.first {
		if err := l.fitRF(k, rational.Options{Poles: l.h0, UpperBound: true}, nil); err != nil {
			errs[k] = err
			continue
		}
		hc = max(hc, len(l.res.Trace.RFs[k].Fit.Poles))
	}
	if len(errs) == len(l.first) {
		k := l.first[0]
		return theta{}, l.fail(k, "cannot fit", errs[k])
	}
	if hc == 0 {
		return newTheta(0, l.d, l.ncols), nil
	}
	// Every RF is refitted with hc poles. Where that fails the RF keeps
	// its fit with fewer poles for the trace, and the poles of the rejected
	// fit still serve as a starting guess (a complex pair split into two
	// real poles): the joint fits below decide on all the samples.
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
	m11.Heads = l.matchPoles(m11, func(h int) (float64, float64) { return t.P(h, 0, 0), t.R(h, 0) }, hc, rs)
	// Joint fit of everything the RFs on z_1 determine.
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
	l.columns = 1
	return t, nil
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
	r, ok := solveLS(a, b, len(p))
	if !ok || math.IsNaN(f0) {
		return make([]float64, len(p))
	}
	return r
}

// linkColumnOne labels the heads of M_i1 and of its link RF(z_1, u_1+u_i)
// with the heads of M_11 (MATH.md §3.3): the link's poles are at
// p(M_11) + p(M_i1) with values r(M_11) + r(M_i1) for the same head. Each
// candidate labelling, started from the poles of M_i1 or from those of the
// link less M_11's, is fitted jointly to the samples of the three RFs (n ≥ 1,
// with F(0) the shared answer), and the best is accepted only if no
// distinct labelling fits nearly as well.
func (l *learner) linkColumnOne(t theta, i int, rs float64, guesses map[int]guess, errs map[int]error) error {
	hc := t.H
	k11, km, kl := l.first[0], l.first[2*i-1], l.first[2*i]
	m11, mi, li := &l.res.Trace.RFs[k11], &l.res.Trace.RFs[km], &l.res.Trace.RFs[kl]
	gm, okm := guesses[km]
	gl, okl := guesses[kl]
	if !okm && !okl {
		return l.fail(km, fmt.Sprintf("neither it nor its link shows the %d heads", hc), errs[km])
	}
	y0 := l.ans[0]
	if rs == 0 {
		rs = 1
	}
	dist := func(p1, r1, p2, r2 float64) float64 { return math.Abs(p1-p2) + math.Abs(r1-r2)/rs }
	// Costs of head h taking pole b of M_i1 (predicting the link's poles)
	// and pole q of the link (predicting M_i1's).
	costM := make([][]float64, hc)
	costL := make([][]float64, hc)
	for h := 0; h < hc; h++ {
		costM[h] = make([]float64, hc)
		costL[h] = make([]float64, hc)
		p0, r0 := t.P(h, 0, 0), t.R(h, 0)
		for b := 0; b < hc; b++ {
			best, bestL := 0.0, 0.0
			if okm && okl {
				best, bestL = math.Inf(1), math.Inf(1)
				for q := 0; q < hc; q++ {
					best = math.Min(best, dist(p0+gm.p[b], r0+gm.r[b], gl.p[q], gl.r[q]))
					bestL = math.Min(bestL, dist(gl.p[b]-p0, gl.r[b]-r0, gm.p[q], gm.r[q]))
				}
			}
			costM[h][b], costL[h][b] = best, bestL
		}
	}
	type sample struct {
		which int // 0: M_11, 1: M_i1, 2: link
		n, y  float64
		sigma float64
	}
	var smp []sample
	for w, rf := range []*RF{m11, mi, li} {
		for s, n := range rf.N {
			if n >= 1 {
				smp = append(smp, sample{w, n, rf.F[s], l.sigma(rf.F[s])})
			}
		}
	}
	// x = [p0 (hc), r0 (hc), pi (hc), ri (hc)].
	terms := func(x []float64, w, h int) (p, r float64) {
		p0, r0, pi, ri := x[h], x[hc+h], x[2*hc+h], x[3*hc+h]
		switch w {
		case 0:
			return p0, r0
		case 1:
			return pi, ri
		}
		return p0 + pi, r0 + ri
	}
	u := make([]float64, len(smp))
	for k, s := range smp {
		u[k] = stopping.Rounding(s.y, s.sigma)
	}
	// newProb returns the problem with its own buffers rho[w][h] = exp p
	// of head h in each of the three RFs, shared by its resid and jac: one
	// per goroutine that fits (chooseStarts, fitter).
	newProb := func() lsq {
		var rho [3][]float64
		for w := range rho {
			rho[w] = make([]float64, hc)
		}
		rhos := func(x []float64) {
			for w := range rho {
				for h := 0; h < hc; h++ {
					p, _ := terms(x, w, h)
					rho[w][h] = xmath.Exp(p)
				}
			}
		}
		prob := lsq{m: len(smp), n: 4 * hc, u: u}
		prob.resid = func(x, e []float64) {
			l.tick()
			rhos(x)
			for k, s := range smp {
				y := y0
				for h := 0; h < hc; h++ {
					_, r := terms(x, s.which, h)
					y -= r * s.n / (s.n + rho[s.which][h])
				}
				e[k] = (y - s.y) / s.sigma
			}
		}
		prob.jac = func(x, j []float64) {
			rhos(x)
			for k, s := range smp {
				jk := j[k*4*hc : (k+1)*4*hc]
				clear(jk)
				for h := 0; h < hc; h++ {
					_, r := terms(x, s.which, h)
					rho := rho[s.which][h]
					den := s.n + rho
					gp := r * s.n * rho / (den * den) / s.sigma
					gr := -s.n / den / s.sigma
					if s.which != 1 {
						jk[h] = gp
						jk[hc+h] = gr
					}
					if s.which != 0 {
						jk[2*hc+h] = gp
						jk[3*hc+h] = gr
					}
				}
			}
		}
		return prob
	}
	// Starting points: M_11's heads as they stand, and M_i1's heads taken
	// from a permutation of M_i1's poles or of the link's less M_11's.
	var starts [][]float64
	for src, g := range []guess{gm, gl} {
		if (src == 0 && !okm) || (src == 1 && !okl) {
			continue
		}
		cost := costM
		if src == 1 {
			cost = costL
		}
		for _, perm := range candidates(cost) {
			x := make([]float64, 4*hc)
			for h, b := range perm {
				x[h], x[hc+h] = t.P(h, 0, 0), t.R(h, 0)
				x[2*hc+h], x[3*hc+h] = g.p[b], g.r[b]
				if src == 1 {
					x[2*hc+h] -= x[h]
					x[3*hc+h] -= x[hc+h]
				}
			}
			starts = append(starts, x)
		}
	}
	fit := fitter(newProb, 100)
	// Two solutions are the same when they agree up to relabelling heads
	// (the fit may move M_11's poles too).
	heads := func(x []float64) [][4]float64 {
		out := make([][4]float64, hc)
		for h := range out {
			out[h] = [4]float64{x[h], x[hc+h], x[2*hc+h], x[3*hc+h]}
		}
		sort.Slice(out, func(a, b int) bool { return out[a][0] < out[b][0] })
		return out
	}
	same := func(a, b []float64) bool {
		ha, hb := heads(a), heads(b)
		for h := range ha {
			for k := 0; k < 4; k++ {
				tol := 1e-6
				if k%2 == 1 {
					tol *= rs
				}
				if math.Abs(ha[h][k]-hb[h][k]) > tol*(1+math.Abs(hb[h][k])) {
					return false
				}
			}
		}
		return true
	}
	lb := l.chooseStarts(starts, fit, same)
	if !lb.decided(len(smp)) {
		// Heads with nearly equal log-poles in one of the three RFs make
		// narrow valleys in which the fits stall: restart from the best fit
		// with each such pair spread apart around its mean.
		var extra [][]float64
		spread := func(ia, ib int) {
			m := float64((lb.x[ia] + lb.x[ib]) / 2)
			for _, delta := range []float64{0.01, 0.05, 0.2} {
				for _, sgn := range []float64{-1, 1} {
					x := append([]float64(nil), lb.x...)
					x[ia], x[ib] = m+float64(sgn*delta), m-float64(sgn*delta)
					extra = append(extra, x)
				}
			}
		}
		for a := 0; a < hc; a++ {
			for b := a + 1; b < hc; b++ {
				for _, off := range []int{0, 2 * hc} {
					if math.Abs(lb.x[off+a]-lb.x[off+b]) < 0.3 {
						spread(off+a, off+b)
					}
				}
			}
		}
		if len(extra) > 0 {
			lb = lb.merge(l.chooseStarts(extra, fit, same), same)
		}
	}
	if !lb.decided(len(smp)) {
		return l.fail(kl, fmt.Sprintf("cannot label the heads of %s: rival labellings fit about as well (χ² %.3g vs %.3g)", mi.Name(), lb.rival, lb.chi2), nil)
	}
	// The joint fit also refines M_11's heads and may have relabelled
	// them: head k of the fit is the current head relabel[h], the one with
	// the nearest (p, r) in M_11.
	back := make([][]float64, hc)
	for h := range back {
		back[h] = make([]float64, hc)
		for k := range back[h] {
			back[h][k] = dist(t.P(h, 0, 0), t.R(h, 0), lb.x[k], lb.x[hc+k])
		}
	}
	relabel := assign.MinSum(back) // head h is the fit's head relabel[h]
	for h, k := range relabel {
		t.x[t.pIndex(h, 0, 0)] = lb.x[k]
		t.x[t.rIndex(h, 0)] = lb.x[hc+k]
		t.x[t.pIndex(h, i, 0)] = lb.x[2*hc+k]
		t.x[t.rIndex(h, i)] = lb.x[3*hc+k]
	}
	mi.Heads = l.matchPoles(mi, func(h int) (float64, float64) { return terms(lb.x, 1, relabel[h]) }, hc, rs)
	li.Heads = l.matchPoles(li, func(h int) (float64, float64) { return terms(lb.x, 2, relabel[h]) }, hc, rs)
	return nil
}
