package recovery

import (
	"fmt"
	"math"

	"headlab/numerics/internal/xmath"
	"headlab/numerics/rational"
)

var debugHook func(l *learner, k int, p []float64)
var chiHook func(float64)

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

// labelKnown fits RF k when every r_h and V are known (MATH.md §4, idea 3):
// C = V·a and F(0) = V·z are known, the rational fit gives the poles, the
// known values r_h(u) label them, and each labelling is refitted as a fit of
// the H log-poles alone. It returns p̂_h per head, or an error saying why
// the RF is unresolved.
func (l *learner) labelKnown(k int, t theta) (p, sigma []float64, err error) {
	hc := t.H
	s := l.specs[k]
	rf := &l.res.Trace.RFs[k]
	rr := make([]float64, hc)
	var f0, sr, rs float64
	for h := 0; h < hc; h++ {
		_, r, vz := l.headTerms(s, t, h)
		rr[h] = r
		f0 += vz
		sr += r
		rs = math.Max(rs, math.Abs(r))
	}
	if rs == 0 {
		rs = 1
	}
	c := f0 - sr
	// Start from the fitted poles or, if the fit was rejected, from the
	// poles of the rejected fit: the fit of the log-poles below decides.
	var start []float64
	cost := make([][]float64, hc)
	for h := range cost {
		cost[h] = make([]float64, hc)
	}
	if err := l.fitRF(k, rational.Options{Poles: hc, KnownC: true, C: c}, &f0); err != nil {
		p, ok := poleGuess(err, hc)
		if !ok {
			return nil, nil, err
		}
		start = p
	} else {
		start = rf.P
		for h := range cost {
			for b := range cost[h] {
				cost[h][b] = math.Abs(rf.R[b]-rr[h]) / rs
			}
		}
	}
	var smp []row
	for i, n := range rf.N {
		if n >= 1 {
			smp = append(smp, row{n: n, y: rf.F[i], sigma: l.sigma(rf.F[i])})
		}
	}
	resid := func(p []float64) []float64 {
		e := make([]float64, len(smp))
		for i, r := range smp {
			y := f0
			for h := 0; h < hc; h++ {
				y -= rr[h] * r.n / (r.n + xmath.Exp(p[h]))
			}
			e[i] = (y - r.y) / r.sigma
		}
		return e
	}
	jac := func(p []float64) [][]float64 {
		j := make([][]float64, len(smp))
		for i, r := range smp {
			j[i] = make([]float64, hc)
			for h := 0; h < hc; h++ {
				rho := xmath.Exp(p[h])
				den := r.n + rho
				j[i][h] = rr[h] * r.n * rho / (den * den) / r.sigma
			}
		}
		return j
	}
	var starts [][]float64
	for _, perm := range candidates(cost) {
		p := make([]float64, hc)
		for h := range p {
			p[h] = start[perm[h]]
		}
		starts = append(starts, p)
	}
	fit := func(p []float64) ([]float64, float64) { return gaussNewton(p, resid, jac, 60) }
	same := func(a, b []float64) bool {
		for h := range a {
			if math.Abs(a[h]-b[h]) > 1e-6*(1+math.Abs(b[h])) {
				return false
			}
		}
		return true
	}
	lb := chooseStarts(starts, fit, same)
	// Two heads with nearly equal log-poles make a narrow valley in which
	// the fit can stall: restart with the pair spread apart around its mean.
	var extra [][]float64
	for a := 0; a < hc; a++ {
		for b := a + 1; b < hc; b++ {
			if math.Abs(lb.x[a]-lb.x[b]) > 0.2 {
				continue
			}
			m := (lb.x[a] + lb.x[b]) / 2
			for _, delta := range []float64{0.003, 0.01, 0.03, 0.1} {
				for _, sgn := range []float64{-1, 1} {
					p := append([]float64(nil), lb.x...)
					p[a], p[b] = m+sgn*delta, m-sgn*delta
					extra = append(extra, p)
				}
			}
		}
	}
	if len(extra) > 0 {
		lb = lb.merge(chooseStarts(extra, fit, same), same)
	}
	if !lb.decided(len(smp)) {
		return nil, nil, fmt.Errorf("the known values r_h do not decide the labels (χ² %.3g vs rival %.3g)", lb.chi2, lb.rival)
	}
	// Label the poles by the fitted values (the fit may have moved away
	// from its starting labelling).
	rf.Heads = l.matchPoles(rf, func(h int) (float64, float64) { return lb.x[h], rr[h] }, hc, rs)
	if chiHook != nil {
		chiHook(lb.chi2 / float64(len(smp)))
	}
	return lb.x, standardErrors(jac(lb.x), math.Max(1, lb.chi2/float64(max(1, len(smp)-hc)))), nil
}

// standardErrors returns √diag((JᵀJ)⁻¹)·√scale for the Jacobian j (by
// rows), +Inf for parameters it does not determine.
func standardErrors(j [][]float64, scale float64) []float64 {
	m := len(j)
	if m == 0 {
		return nil
	}
	n := len(j[0])
	out := make([]float64, n)
	a := make([]float64, m*n)
	for r := range j {
		copy(a[r*n:(r+1)*n], j[r])
	}
	if m < n || !householder(a, m, n, n) {
		for i := range out {
			out[i] = math.Inf(1)
		}
		return out
	}
	r := make([]float64, n*n)
	for i := 0; i < n; i++ {
		copy(r[i*n:(i+1)*n], a[i*n:(i+1)*n])
		if r[i*n+i] == 0 {
			for k := range out {
				out[k] = math.Inf(1)
			}
			return out
		}
	}
	x := invUpper(r, n)
	for i := 0; i < n; i++ {
		var v float64
		for c := i; c < n; c++ {
			v += x[i*n+c] * x[i*n+c]
		}
		out[i] = math.Sqrt(v * scale)
		if math.IsNaN(out[i]) {
			out[i] = math.Inf(1)
		}
	}
	return out
}

// column learns column j of every P_h (W_h z_j) from the RFs on z_j:
// each RF is labelled by the known values, economy mode falls back to a
// link RF(z_j, u_i+u_k) for a measurement it cannot label, the labelled
// log-poles give P_h[·][j] by least squares, and a fit of the column to
// all its samples polishes them.
func (l *learner) column(t theta, j int) error {
	hc, d := t.H, l.d
	var good []resolved
	var bad []int
	var why []error
	done := make([]bool, d) // measurement M_ij labelled, every head located
	for _, k := range l.phaseB[j] {
		p, sigma, err := l.labelKnown(k, t)
		if err != nil {
			bad, why = append(bad, k), append(why, err)
			continue
		}
		good = append(good, resolved{k, p, sigma})
		if rf := l.res.Trace.RFs[k]; rf.Kind == Measurement && located(sigma) {
			done[rf.I] = true
		}
	}
	if l.opt.Mode == Economy {
		// A measurement that is unresolved, or that locates some head too
		// poorly, gets a link to a row that is resolved (MATH.md §3.4).
		var need []int
		var needWhy []error
		for bi, k := range bad {
			if l.res.Trace.RFs[k].Kind == Measurement {
				need, needWhy = append(need, k), append(needWhy, why[bi])
			}
		}
		for _, g := range good {
			if rf := l.res.Trace.RFs[g.rf]; rf.Kind == Measurement && !located(g.sigma) {
				need, needWhy = append(need, g.rf), append(needWhy, fmt.Errorf("a head's log-pole has standard error above %g", maxPoleError))
			}
		}
		for ni, k := range need {
			rf := l.res.Trace.RFs[k]
			i := rf.I
			partner := l.partner(t, i, done)
			if partner < 0 {
				return l.fail(k, "cannot locate its heads and no resolved measurement to link it to", needWhy[ni])
			}
			lk := l.addRF(Link, i, j, []int{i, partner}, []int{j})
			l.phaseB[j] = append(l.phaseB[j], lk)
			for n := 1; n <= 2*l.h0; n++ {
				if err := l.ask(lk, n); err != nil {
					return err
				}
			}
			p, sigma, err := l.labelKnown(lk, t)
			if err != nil {
				bad, why = append(bad, lk), append(why, err)
				continue
			}
			good = append(good, resolved{lk, p, sigma})
		}
	}
	if len(good) == 0 {
		return l.fail(bad[0], fmt.Sprintf("no RF on z_%d could be labelled", j+1), why[0])
	}
	if debugHook != nil {
		for _, g := range good {
			debugHook(l, g.rf, append(append([]float64(nil), g.p...), g.sigma...))
		}
	}
	// Weighted least squares for P_h[·][j], per head, from every labelled
	// RF that locates the head, dropping equations that disagree with the
	// others beyond their errors (MATH.md §4, idea 4).
	for h := 0; h < hc; h++ {
		var a [][]float64
		var b, sd []float64
		for _, g := range good {
			if !(g.sigma[h] <= maxPoleError) {
				continue
			}
			s := l.specs[g.rf]
			row := make([]float64, d)
			rhs := g.p[h]
			for _, al := range s.alpha {
				for _, be := range s.beta {
					if be == j {
						row[al]++
					} else {
						rhs -= t.P(h, al, be)
					}
				}
			}
			a, b, sd = append(a, row), append(b, rhs), append(sd, math.Max(g.sigma[h], 1e-12))
		}
		x, full := robustLS(a, b, sd, d)
		if !full {
			k := l.phaseB[j][0]
			var err error
			if len(bad) > 0 {
				k, err = bad[0], why[0]
			}
			return l.fail(k, fmt.Sprintf("column %d of W is not determined by the labelled RFs", j+1), err)
		}
		for a := 0; a < d; a++ {
			t.x[t.pIndex(h, a, j)] = x[a]
		}
	}
	for bi, k := range bad {
		// Label unresolved RFs from the column's parameters, for the trace.
		_ = why[bi]
		rf := &l.res.Trace.RFs[k]
		rf.Heads = l.matchPoles(rf, func(h int) (float64, float64) {
			p, r, _ := l.headTerms(l.specs[k], t, h)
			return p, r
		}, hc, 0)
	}
	free := make([]bool, len(t.x))
	for h := 0; h < hc; h++ {
		for a := 0; a < d; a++ {
			free[t.pIndex(h, a, j)] = true
		}
	}
	in := make(map[int]bool)
	for _, k := range l.phaseB[j] {
		in[k] = true
	}
	sv := l.newSolver(l.queryRowsWhere(func(k int) bool { return in[k] }), free, hc)
	nt, _ := sv.fit(t, 30)
	copy(t.x, nt.x)
	return nil
}

// located reports whether every head's log-pole has a small standard error.
func located(sigma []float64) bool {
	for _, s := range sigma {
		if !(s <= maxPoleError) {
			return false
		}
	}
	return true
}

// robustLS solves the weighted least-squares problem A x ≈ b with
// standard errors sd, dropping the equation with the largest normalised
// residual while it exceeds 10 and the rest still determine x. It reports
// whether x is determined.
func robustLS(a [][]float64, b, sd []float64, n int) ([]float64, bool) {
	for {
		wa := make([][]float64, len(a))
		wb := make([]float64, len(a))
		for e := range a {
			wa[e] = make([]float64, n)
			for c := range a[e] {
				wa[e][c] = a[e][c] / sd[e]
			}
			wb[e] = b[e] / sd[e]
		}
		x, ok := solveLS(wa, wb, n)
		if !ok {
			return nil, false
		}
		worst, at := 0.0, -1
		for e := range a {
			var y float64
			for c := range a[e] {
				y += a[e][c] * x[c]
			}
			if r := math.Abs(y-b[e]) / sd[e]; r > worst {
				worst, at = r, e
			}
		}
		if worst <= 10 || len(a) <= n {
			return x, true
		}
		na := append(append([][]float64(nil), a[:at]...), a[at+1:]...)
		nb := append(append([]float64(nil), b[:at]...), b[at+1:]...)
		nsd := append(append([]float64(nil), sd[:at]...), sd[at+1:]...)
		if _, ok := solveLS(na, nb, n); !ok {
			return x, true
		}
		a, b, sd = na, nb, nsd
	}
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

// solveLS returns the least-squares solution of A x = b (A by rows, n
// columns) by Householder QR, and whether A has full column rank.
func solveLS(a [][]float64, b []float64, n int) ([]float64, bool) {
	m := len(a)
	if m < n {
		return nil, false
	}
	w := n + 1
	q := make([]float64, m*w)
	for i, row := range a {
		copy(q[i*w:i*w+n], row)
		q[i*w+n] = b[i]
	}
	if !householder(q, m, w, n) {
		return nil, false
	}
	var big float64
	for i := 0; i < n; i++ {
		big = math.Max(big, math.Abs(q[i*w+i]))
	}
	r := make([]float64, n*n)
	x := make([]float64, n)
	for i := 0; i < n; i++ {
		if math.Abs(q[i*w+i]) <= 1e-10*big {
			return nil, false
		}
		copy(r[i*n:(i+1)*n], q[i*w:i*w+n])
		x[i] = q[i*w+n]
	}
	if !backSolve(r, n, x) {
		return nil, false
	}
	return x, true
}
