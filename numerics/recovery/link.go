package recovery

import (
	"fmt"
	"math"
	"sort"

	"headlab/numerics/assign"
	"headlab/numerics/internal/stopping"
	"headlab/numerics/internal/xmath"
	"headlab/numerics/recovery/internal/label"
	"headlab/numerics/recovery/internal/lsq"
)

// linkColumnOne labels the heads of M_i1 and of its link RF(z_1, u_1+u_i)
// with the heads of M_11 (MATH.md §3.3): the link's poles are at
// p(M_11) + p(M_i1) with values r(M_11) + r(M_i1) for the same head. Each
// candidate labelling, started from the poles of M_i1 or from those of the
// link less M_11's, is fitted jointly to the samples of the three RFs (n ≥ 1,
// with F(0) the shared answer), and the best is accepted only if no
// distinct labelling fits nearly as well.
func (l *learner) linkColumnOne(t theta, i int, rs float64, guesses map[int]guess, errs map[int]error) error {
	k := l.newColumnOneLink(t, i, rs)
	gm, okm := guesses[k.km]
	gl, okl := guesses[k.kl]
	if !okm && !okl {
		return l.fail(k.km, fmt.Sprintf("neither it nor its link shows the %d heads", t.H), errs[k.km])
	}
	costM, costL := k.costs(gm, okm, gl, okl)
	starts := k.starts(gm, okm, costM, gl, okl, costL)
	fit := label.Fitter(k.newProb, 100)
	lb := label.Choose(starts, fit, k.same, l.workers)
	if !lb.Decided(len(k.smp)) {
		lb = k.spreadPairs(lb, fit)
	}
	if !lb.Decided(len(k.smp)) {
		return l.fail(k.kl, fmt.Sprintf("cannot label the heads of %s: rival labellings fit about as well (χ² %.3g vs %.3g)", k.mi.Name(), lb.Rival, lb.Chi2), nil)
	}
	k.adopt(lb)
	return nil
}

// columnOneLink is the joint fit of M_11, M_i1 and the link
// RF(z_1, u_1+u_i) that labels row i of column one (linkColumnOne). Its
// parameters are x = [p0 (hc), r0 (hc), pi (hc), ri (hc)]: M_11's heads
// and M_i1's.
type columnOneLink struct {
	l           *learner
	t           theta
	i, hc       int
	rs          float64 // the scale of the values, for dist
	km, kl      int     // M_i1 and its link
	m11, mi, li *RF
	y0          float64 // F(0), the answer all three share
	smp         []linkSample
	u           []float64 // the samples' rounding (stopping.Rounding)
}

// linkSample is one sample (n ≥ 1) of the three RFs of a columnOneLink.
type linkSample struct {
	which int // 0: M_11, 1: M_i1, 2: link
	n, y  float64
	sigma float64
}

func (l *learner) newColumnOneLink(t theta, i int, rs float64) *columnOneLink {
	k11, km, kl := l.first[0], l.first[2*i-1], l.first[2*i]
	k := &columnOneLink{l: l, t: t, i: i, hc: t.H, km: km, kl: kl,
		m11: &l.res.Trace.RFs[k11], mi: &l.res.Trace.RFs[km], li: &l.res.Trace.RFs[kl]}
	k.y0 = l.ans[0]
	if rs == 0 {
		rs = 1
	}
	k.rs = rs
	for w, rf := range []*RF{k.m11, k.mi, k.li} {
		for s, n := range rf.N {
			if n >= 1 {
				k.smp = append(k.smp, linkSample{w, n, rf.F[s], l.sigma(rf.F[s])})
			}
		}
	}
	k.u = make([]float64, len(k.smp))
	for j, s := range k.smp {
		k.u[j] = stopping.Rounding(s.y, s.sigma)
	}
	return k
}

// dist is how far apart two heads' (p, r) are.
func (k *columnOneLink) dist(p1, r1, p2, r2 float64) float64 {
	return math.Abs(p1-p2) + math.Abs(r1-r2)/k.rs
}

// costs returns the costs of head h taking pole b of M_i1 (predicting the
// link's poles) and pole b of the link (predicting M_i1's).
func (k *columnOneLink) costs(gm guess, okm bool, gl guess, okl bool) (costM, costL [][]float64) {
	hc, t := k.hc, k.t
	costM = make([][]float64, hc)
	costL = make([][]float64, hc)
	for h := 0; h < hc; h++ {
		costM[h] = make([]float64, hc)
		costL[h] = make([]float64, hc)
		p0, r0 := t.P(h, 0, 0), t.R(h, 0)
		for b := 0; b < hc; b++ {
			best, bestL := 0.0, 0.0
			if okm && okl {
				best, bestL = math.Inf(1), math.Inf(1)
				for q := 0; q < hc; q++ {
					best = math.Min(best, k.dist(p0+gm.p[b], r0+gm.r[b], gl.p[q], gl.r[q]))
					bestL = math.Min(bestL, k.dist(gl.p[b]-p0, gl.r[b]-r0, gm.p[q], gm.r[q]))
				}
			}
			costM[h][b], costL[h][b] = best, bestL
		}
	}
	return costM, costL
}

// terms returns head h's (p, r) in RF w (0: M_11, 1: M_i1, 2: link).
func (k *columnOneLink) terms(x []float64, w, h int) (p, r float64) {
	hc := k.hc
	p0, r0, pi, ri := x[h], x[hc+h], x[2*hc+h], x[3*hc+h]
	switch w {
	case 0:
		return p0, r0
	case 1:
		return pi, ri
	}
	return p0 + pi, r0 + ri
}

// newProb returns the problem with its own buffers rho[w][h] = exp p of
// head h in each of the three RFs, shared by its resid and jac: one per
// goroutine that fits (label.Choose, label.Fitter).
func (k *columnOneLink) newProb() lsq.Problem {
	hc, smp, y0 := k.hc, k.smp, k.y0
	var rho [3][]float64
	for w := range rho {
		rho[w] = make([]float64, hc)
	}
	rhos := func(x []float64) {
		for w := range rho {
			for h := 0; h < hc; h++ {
				p, _ := k.terms(x, w, h)
				rho[w][h] = xmath.Exp(p)
			}
		}
	}
	prob := lsq.Problem{M: len(smp), N: 4 * hc, U: k.u}
	prob.Resid = func(x, e []float64) {
		k.l.tick()
		rhos(x)
		for j, s := range smp {
			y := y0
			for h := 0; h < hc; h++ {
				_, r := k.terms(x, s.which, h)
				y -= r * s.n / (s.n + rho[s.which][h])
			}
			e[j] = (y - s.y) / s.sigma
		}
	}
	prob.Jac = func(x, jm []float64) {
		rhos(x)
		for j, s := range smp {
			jk := jm[j*4*hc : (j+1)*4*hc]
			clear(jk)
			for h := 0; h < hc; h++ {
				_, r := k.terms(x, s.which, h)
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

// starts returns the starting points: M_11's heads as they stand, and
// M_i1's heads taken from a permutation of M_i1's poles or of the link's
// less M_11's.
func (k *columnOneLink) starts(gm guess, okm bool, costM [][]float64, gl guess, okl bool, costL [][]float64) [][]float64 {
	hc, t := k.hc, k.t
	var starts [][]float64
	for src, g := range []guess{gm, gl} {
		if (src == 0 && !okm) || (src == 1 && !okl) {
			continue
		}
		cost := costM
		if src == 1 {
			cost = costL
		}
		for _, perm := range label.Candidates(cost) {
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
	return starts
}

// same reports whether two solutions are the same up to relabelling heads
// (the fit may move M_11's poles too).
func (k *columnOneLink) same(a, b []float64) bool {
	ha, hb := k.heads(a), k.heads(b)
	for h := range ha {
		for j := 0; j < 4; j++ {
			tol := 1e-6
			if j%2 == 1 {
				tol *= k.rs
			}
			if math.Abs(ha[h][j]-hb[h][j]) > tol*(1+math.Abs(hb[h][j])) {
				return false
			}
		}
	}
	return true
}

// heads returns every head's (p0, r0, pi, ri) of x, in increasing p0.
func (k *columnOneLink) heads(x []float64) [][4]float64 {
	hc := k.hc
	out := make([][4]float64, hc)
	for h := range out {
		out[h] = [4]float64{x[h], x[hc+h], x[2*hc+h], x[3*hc+h]}
	}
	sort.Slice(out, func(a, b int) bool { return out[a][0] < out[b][0] })
	return out
}

// spreadPairs restarts from the best fit lb with each pair of heads whose
// log-poles nearly coincide in M_11 or M_i1 spread apart around its mean:
// such pairs make narrow valleys in which the fits stall.
func (k *columnOneLink) spreadPairs(lb label.Fits, newFit func() label.Fit) label.Fits {
	hc := k.hc
	var extra [][]float64
	for a := 0; a < hc; a++ {
		for b := a + 1; b < hc; b++ {
			for _, off := range []int{0, 2 * hc} {
				if math.Abs(lb.X[off+a]-lb.X[off+b]) < 0.3 {
					extra = append(extra, label.SpreadPair(lb.X, off+a, off+b, []float64{0.01, 0.05, 0.2})...)
				}
			}
		}
	}
	if len(extra) == 0 {
		return lb
	}
	return lb.Merge(label.Choose(extra, newFit, k.same, k.l.workers), k.same)
}

// adopt takes the accepted fit lb into the heads. The joint fit also
// refines M_11's heads and may have relabelled them: head k of the fit is
// the current head relabel[h], the one with the nearest (p, r) in M_11.
func (k *columnOneLink) adopt(lb label.Fits) {
	hc, t, i := k.hc, k.t, k.i
	back := make([][]float64, hc)
	for h := range back {
		back[h] = make([]float64, hc)
		for j := range back[h] {
			back[h][j] = k.dist(t.P(h, 0, 0), t.R(h, 0), lb.X[j], lb.X[hc+j])
		}
	}
	relabel := assign.MinSum(back) // head h is the fit's head relabel[h]
	for h, j := range relabel {
		t.x[t.pIndex(h, 0, 0)] = lb.X[j]
		t.x[t.rIndex(h, 0)] = lb.X[hc+j]
		t.x[t.pIndex(h, i, 0)] = lb.X[2*hc+j]
		t.x[t.rIndex(h, i)] = lb.X[3*hc+j]
	}
	k.mi.Heads = matchPoles(k.mi, func(h int) (float64, float64) { return k.terms(lb.X, 1, relabel[h]) }, hc, k.rs)
	k.li.Heads = matchPoles(k.li, func(h int) (float64, float64) { return k.terms(lb.X, 2, relabel[h]) }, hc, k.rs)
}
