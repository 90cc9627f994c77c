package recovery

import (
	"fmt"
	"math"
	"math/big"

	"headlab/numerics/internal/bigmath"
	"headlab/numerics/rational"
	"headlab/numerics/recovery/internal/label"
)

// In extended precision the learner runs the plain pipeline of MATH.md
// §3.3: every RF fitted on its own by the linearised interpolation
// (rational.FitBig), its poles labelled by an assignment, P_h and r_h read
// off the labelled measurements, and W_h, v_h solved from them; no global
// fit (§4: at 80 digits this alone gives errors below 1e-68). The schedule,
// the trace, the labels' bookkeeping and the final checks (finish) are the
// float64 run's; the labelling decisions are made on float64 roundings of
// the extended numbers, which separate the right labelling from its rivals
// by many orders of magnitude whenever the precision suffices, and the
// run is flagged when they do not.

// matchTolerance is the largest disagreement, in p and in r relative to
// the values' scale, between the poles an RF shows and those its labelling
// predicts; every rival labelling must miss by ambiguity times more (and
// by more than matchTolerance), or the run is unresolved at this precision.
const matchTolerance = 1e-6

// perturbBits is how many bits the perturbed refit of an RF drops from
// its samples; answerBits is how many low bits of an answer the estimate
// takes to be rounding error, generously (with 4, runs at 96 bits with
// errors of 3e-3 estimated theirs below 1e-4).
const (
	perturbBits = 16
	answerBits  = 10
)

// perturbed estimates the error of a fit from its sensitivity: it refits
// with the samples (and the known constant) rounded to perturbBits fewer
// bits and scales the change of the log-poles p and the values r (relative
// to max |r|) from that perturbation down to answerBits units of the
// working precision. An RF with no redundancy (d = 1 has one) can show its
// conditioning no other way; +Inf when the perturbed fit fails.
func (l *learner) perturbed(n []float64, f []*big.Float, opt rational.BigOptions, res rational.BigResult) float64 {
	round := func(v *big.Float) *big.Float {
		r := new(big.Float).SetPrec(opt.Prec - perturbBits).Set(v)
		return r.SetPrec(opt.Prec)
	}
	g := make([]*big.Float, len(f))
	for i := range f {
		g[i] = round(f[i])
	}
	o := opt
	o.Poles, o.UpperBound, o.Tolerance = len(res.Poles), false, matchTolerance
	if o.KnownC {
		o.C = round(opt.C)
	}
	pr, err := rational.FitBig(n, g, o)
	if err != nil || len(pr.Poles) != len(res.Poles) {
		return math.Inf(1)
	}
	var rs, worst float64
	t := new(big.Float).SetPrec(opt.Prec)
	r0 := make([]float64, len(res.Poles))
	for i := range res.Poles {
		t.Quo(res.Residues[i], res.Poles[i])
		r0[i], _ = t.Float64()
		rs = math.Max(rs, math.Abs(r0[i]))
	}
	if rs == 0 {
		rs = 1
	}
	for i := range res.Poles {
		t.Sub(pr.Poles[i], res.Poles[i])
		t.Quo(t, res.Poles[i])
		dp, _ := t.Float64()
		t.Quo(pr.Residues[i], pr.Poles[i])
		r1, _ := t.Float64()
		worst = math.Max(worst, math.Max(math.Abs(dp), math.Abs(r1-r0[i])/rs))
	}
	return math.Ldexp(worst, answerBits-perturbBits)
}

// epsX is the noise model's relative accuracy in extended precision:
// half the working digits, or the oracle's stated accuracy if coarser.
func (l *learner) epsX() float64 {
	return math.Max(l.opt.Tolerance, math.Ldexp(1, -int(l.x.prec/2)))
}

// fitBig fits RF k with rational.FitBig and records the fit in the trace:
// with upper, the fewest poles up to h that explain its samples, else
// exactly h; with c non-nil the constant C = c is known and f0 = F(0) is
// an extra sample (checked, not interpolated).
func (l *learner) fitBig(k, h int, upper bool, c, f0 *big.Float) (*bigFit, error) {
	x := l.x
	rf := &l.res.Trace.RFs[k]
	n := append([]float64(nil), rf.N...)
	f := make([]*big.Float, len(n))
	for s, q := range rf.Query {
		f[s] = x.ans[q]
	}
	// Counting the poles needs the samples reproduced to near the working
	// precision (a head whose term is small must still count); a fit with
	// a known number of poles only has to pass a gross check here, the
	// self-check of every answer (finishPlain) being the fine one.
	opt := rational.BigOptions{Poles: h, UpperBound: upper, Prec: x.prec, Tolerance: matchTolerance}
	if upper {
		// Three quarters of the working digits: with half, two heads whose
		// poles nearly coincide in one RF pass for one (measured: H = 10,
		// d = 2 then needs 320 bits instead of 256).
		// No more slack than a few units at that level: at 64 bits a
		// looser count let a head whose term is below 1e-9 go unseen.
		opt.Tolerance = math.Min(1e-8, 16*math.Max(l.opt.Tolerance, math.Ldexp(1, -int(3*l.x.prec/4))))
	}
	if c != nil {
		opt.KnownC, opt.C = true, c
		if f0 != nil {
			n, f = append(n, 0), append(f, f0)
		}
	}
	res, err := rational.FitBig(n, f, opt)
	l.tick()
	rf.KnownC, rf.C, rf.Heads = c != nil, 0, nil
	if c != nil {
		rf.C, _ = c.Float64()
	}
	if err != nil {
		rf.Fit, rf.P, rf.R = rational.Result{}, nil, nil
		return nil, err
	}
	bf := &bigFit{}
	for i, rho := range res.Poles {
		p := bigmath.Log(x.num(), rho)
		r := x.num().Quo(res.Residues[i], rho)
		pf, _ := p.Float64()
		rr, _ := r.Float64()
		bf.p, bf.r = append(bf.p, p), append(bf.r, r)
		bf.pf, bf.rf = append(bf.pf, pf), append(bf.rf, rr)
	}
	rf.Fit, rf.P, rf.R = res.Float64(), bf.pf, bf.rf
	x.fits[k] = bf
	bf.err = l.perturbed(n, f, opt, res)
	return bf, nil
}

// decidedPlain reports whether a labelling with the given misfit and
// rival is accepted.
func decidedPlain(miss, rival float64) bool {
	return miss <= matchTolerance && rival > math.Max(label.Ambiguity*miss, matchTolerance)
}

// bigPipeline is the extended-precision pipeline, the plain one of
// MATH.md §3.3 at the working precision.
type bigPipeline struct {
	l  *learner
	hc int // the heads column one shows
}

// columnOne counts the canonical heads, the most poles any RF on z_1
// shows, and labels the RFs on z_1 (plainColumnOne).
func (p *bigPipeline) columnOne() (int, error) {
	l := p.l
	x, d := l.x, l.d
	hc := 0
	for _, k := range l.first {
		bf, err := l.fitBig(k, l.h0, true, nil, nil)
		if err != nil {
			return 0, l.fail(k, fmt.Sprintf("cannot be fitted with at most %d poles %s", l.h0, l.precisionName()), err)
		}
		hc = max(hc, len(bf.p))
	}
	p.hc = hc
	x.P = make([][][]*big.Float, hc)
	x.R = make([][]*big.Float, hc)
	for h := range x.P {
		x.P[h] = make([][]*big.Float, d)
		for a := range x.P[h] {
			x.P[h][a] = make([]*big.Float, l.ncols)
		}
		x.R[h] = make([]*big.Float, d)
	}
	if hc == 0 {
		return 0, nil
	}
	return hc, l.plainColumnOne(hc)
}

// columnOrder puts the column of the biases last: the links here only
// check, and frugal's pole search reads the columns before it.
func (p *bigPipeline) columnOrder() []int {
	var order []int
	for j := 1; j < p.l.ncols; j++ {
		order = append(order, j)
	}
	return order
}

func (p *bigPipeline) column(j int) error { return p.l.plainColumn(p.hc, j) }

// solve solves for the heads at the working precision and checks them
// (finishPlain).
func (p *bigPipeline) solve() (Result, error) {
	res, err := p.l.finishPlain(p.hc)
	if err != nil {
		return res, err
	}
	if p.l.missing(p.hc) {
		return p.l.missingHeads(p.hc)
	}
	return res, nil
}

// plainColumnOne labels the RFs on z_1: M_11's poles name the heads, and
// each M_i1 is labelled through its link RF(z_1, u_1+u_i), whose poles are
// at p(M_11) + p(M_i1) with values r(M_11) + r(M_i1) (MATH.md §3.3).
func (l *learner) plainColumnOne(hc int) error {
	x := l.x
	fits := make([]*bigFit, len(l.first))
	for i, k := range l.first {
		bf := x.fits[k]
		if len(bf.p) != hc {
			var err error
			if bf, err = l.fitBig(k, hc, false, nil, nil); err != nil {
				return l.fail(k, fmt.Sprintf("does not show all %d heads %s", hc, l.precisionName()), err)
			}
		}
		fits[i] = bf
	}
	m11 := fits[0]
	var rs float64
	for h := 0; h < hc; h++ {
		x.P[h][0][0], x.R[h][0] = m11.p[h], m11.r[h]
		rs = math.Max(rs, math.Abs(m11.rf[h]))
	}
	if rs == 0 {
		rs = 1
	}
	rf11 := &l.res.Trace.RFs[l.first[0]]
	rf11.Heads = make([]int, hc)
	for h := range rf11.Heads {
		rf11.Heads[h] = h
	}
	dist := func(p1, r1, p2, r2 float64) float64 { return math.Abs(p1-p2) + math.Abs(r1-r2)/rs }
	for i := 1; i < l.d; i++ {
		km, kl := l.first[2*i-1], l.first[2*i]
		fm, fl := fits[2*i-1], fits[2*i]
		// cost[h][b]: head h takes pole b of M_i1; the link must then show
		// a pole at the sums.
		cost := make([][]float64, hc)
		for h := range cost {
			cost[h] = make([]float64, hc)
			for b := range cost[h] {
				best := math.Inf(1)
				for q := 0; q < hc; q++ {
					best = math.Min(best, dist(m11.pf[h]+fm.pf[b], m11.rf[h]+fm.rf[b], fl.pf[q], fl.rf[q]))
				}
				cost[h][b] = best
			}
		}
		perm, miss, rival := label.Decide(cost)
		if !decidedPlain(miss, rival) {
			return l.fail(kl, fmt.Sprintf("cannot label the heads of %s %s: the best label.Fits misses its link by %.3g, the rival by %.3g", l.res.Trace.RFs[km].Name(), l.precisionName(), miss, rival), nil)
		}
		for h, b := range perm {
			x.P[h][i][0], x.R[h][i] = fm.p[b], fm.r[b]
		}
		l.res.Trace.RFs[km].Heads = label.Inverse(perm)
		l.labelByModel(kl, hc, rs)
		l.links++
	}
	return nil
}

// modelTerms returns, at the working precision, p_h, r_h(u) and v_h·z of
// RF k for every head from the heads as far as they are known (MATH.md
// §3.3: p_h = Σ P_h[a][b] over a ∈ α, b ∈ β; r_h(u) = Σ r_h[a];
// v_h·z = r_hᵀ(Uᵀz)/c); entries not yet known count as 0.
func (l *learner) modelTerms(k, hc int) (p, r, vz []*big.Float) {
	x, s := l.x, l.specs[k]
	t := x.num()
	var q float64
	if l.ncols > l.d {
		q = s.qWeight(theta{d: l.d, cols: l.ncols})
	}
	for h := 0; h < hc; h++ {
		ph, rh, v := x.num(), x.num(), x.num()
		for _, a := range s.alpha {
			for _, b := range s.beta {
				if x.P[h][a][b] != nil {
					ph.Add(ph, x.P[h][a][b])
				}
			}
			if qa := x.biasQ(h, a); q != 0 && qa != nil {
				ph.Add(ph, qa.Mul(qa, x.num().SetFloat64(q)))
			}
			if x.R[h][a] != nil {
				rh.Add(rh, x.R[h][a])
			}
		}
		for kk := range x.uz[k] {
			if x.R[h][kk] != nil {
				v.Add(v, t.Mul(x.R[h][kk], x.uz[k][kk]))
			}
		}
		v.Quo(v, x.c)
		p, r, vz = append(p, ph), append(r, rh), append(vz, v)
	}
	return p, r, vz
}

// biasQ returns Q_h[a] = (P̃_h[a][d] + P̃_h[a][0])/2 (model.go), nil while the
// column of the biases is not known (or there is none).
func (x *ext) biasQ(h, a int) *big.Float {
	d := len(x.u)
	if len(x.P[h][a]) <= d || x.P[h][a][d] == nil || x.P[h][a][0] == nil {
		return nil
	}
	q := x.num().Add(x.P[h][a][d], x.P[h][a][0])
	return q.Quo(q, x.num().SetInt64(2))
}

// labelByModel labels RF k's fitted poles with the heads whose predicted
// (p, r) are nearest, for the trace.
func (l *learner) labelByModel(k, hc int, rs float64) {
	p, r, _ := l.modelTerms(k, hc)
	rf := &l.res.Trace.RFs[k]
	rf.Heads = matchPoles(rf, func(h int) (float64, float64) {
		pf, _ := p[h].Float64()
		rf, _ := r[h].Float64()
		return pf, rf
	}, hc, rs)
}

// plainColumn learns column j of every P_h from the RFs on z_j. With every
// r_h and V known, each RF's constant C = V·a and F(0) = V·z are known, so
// its fit needs 2H samples and checks one more, and its poles are labelled
// by their values r_h(u), which the heads' r_h predict (MATH.md §4, "learn
// v first"). The measurements give P_h[i][j]; the links (paper mode) are
// checks.
func (l *learner) plainColumn(hc, j int) error {
	x := l.x
	var rs float64
	for h := 0; h < hc; h++ {
		for a := 0; a < l.d; a++ {
			v, _ := x.R[h][a].Float64()
			rs = math.Max(rs, math.Abs(v))
		}
	}
	if rs == 0 {
		rs = 1
	}
	return l.sched.bigColumn(l, hc, j, rs)
}

// plainKnownColumn fits and labels every RF on z_j by the known values
// (plainKnown): paper's and economy's column in extended precision. The
// measurements go first: a link's check needs the measurements' values.
func (l *learner) plainKnownColumn(hc, j int, rs float64) error {
	for pass := 0; pass < 2; pass++ {
		for _, k := range l.cols[j] {
			rf := &l.res.Trace.RFs[k]
			if (rf.Kind == Measurement) != (pass == 0) {
				continue
			}
			if err := l.plainKnown(k, hc, j, rs); err != nil {
				return err
			}
		}
	}
	return nil
}

// fitKnown fits RF k with hc poles, its constant and F(0) known from the
// values found so far (C = F(0) − Σ_h r_h), and matches its residues to
// the known r_h, scaled by rs (decide): perm[h] is head h's pole in bf,
// with the misfit of that labelling and of its best rival.
func (l *learner) fitKnown(k, hc int, rs float64) (bf *bigFit, perm []int, miss, rival float64, err error) {
	x := l.x
	_, r, vz := l.modelTerms(k, hc)
	f0, sr := x.num(), x.num()
	for h := 0; h < hc; h++ {
		f0.Add(f0, vz[h])
		sr.Add(sr, r[h])
	}
	c := x.num().Sub(f0, sr)
	if bf, err = l.fitBig(k, hc, false, c, f0); err != nil {
		return nil, nil, 0, 0, err
	}
	if len(bf.p) != hc {
		return nil, nil, 0, 0, fmt.Errorf("recovery: the fit has %d poles for %d heads", len(bf.p), hc)
	}
	cost := make([][]float64, hc)
	for h := range cost {
		rh, _ := r[h].Float64()
		cost[h] = make([]float64, hc)
		for b := range cost[h] {
			cost[h][b] = math.Abs(bf.rf[b]-rh) / rs
		}
	}
	perm, miss, rival = label.Decide(cost)
	return bf, perm, miss, rival, nil
}

// plainKnown fits RF k of column j with the known constant and F(0) and
// labels its poles by the known values r_h (plainColumn); a measurement's
// log-poles become P_h[i][j].
func (l *learner) plainKnown(k, hc, j int, rs float64) error {
	x := l.x
	rf := &l.res.Trace.RFs[k]
	bf, perm, miss, rival, err := l.fitKnown(k, hc, rs)
	if err != nil {
		return l.fail(k, fmt.Sprintf("cannot be fitted with the known values %s", l.precisionName()), err)
	}
	if !decidedPlain(miss, rival) {
		return l.fail(k, fmt.Sprintf("the known values r_h do not label its poles %s: the best label.Fits misses by %.3g, the rival by %.3g", l.precisionName(), miss, rival), nil)
	}
	rf.Heads = label.Inverse(perm)
	if rf.Kind == Measurement {
		for h, b := range perm {
			x.P[h][rf.I][j] = bf.p[b]
		}
	}
	return nil
}

// finishPlain estimates the run's error from the RFs' disagreement with
// the recovered heads, checks the heads against every answer at the
// working precision, solves for W_h and v_h and hands over to finish.
func (l *learner) finishPlain(hc int) (Result, error) {
	x, d := l.x, l.d
	t := newTheta(hc, d, l.ncols)
	var pmax, rmax float64
	for h := 0; h < hc; h++ {
		for a := 0; a < d; a++ {
			for b := 0; b < l.ncols; b++ {
				t.x[t.pIndex(h, a, b)], _ = x.P[h][a][b].Float64()
				pmax = math.Max(pmax, math.Abs(t.P(h, a, b)))
			}
			t.x[t.rIndex(h, a)], _ = x.R[h][a].Float64()
			rmax = math.Max(rmax, math.Abs(t.R(h, a)))
		}
	}
	chi2, est, worst := l.plainResiduals(hc, pmax, rmax)
	heads := l.bigHeads(hc)
	eps := l.epsX()
	return l.finish(t, &fitStats{chi2: chi2, rows: len(l.res.Trace.Queries), est: math.Max(est, worst), scale: math.Max(1, est/eps)}, heads)
}

// plainResiduals holds every answer against the heads at the working
// precision and returns the weighted sum of squared residuals under the
// noise model, the RFs' own disagreement with the heads (est, relative to
// the largest |p| and |r|, pmax and rmax) and the largest relative
// residual of an answer (worst).
func (l *learner) plainResiduals(hc int, pmax, rmax float64) (chi2, est, worst float64) {
	x := l.x
	// Every answer against the heads, per RF: two distinct scores per head
	// make one Exp per head and RF.
	eps := l.epsX()
	// est is the RFs' own disagreement with the heads; worst the largest
	// relative residual of an answer.
	diff := x.num()
	byRF := make(map[int][]int) // RF → its samples' query indices
	for q, qq := range l.res.Trace.Queries {
		byRF[qq.RF] = append(byRF[qq.RF], q)
	}
	for k := range l.res.Trace.RFs {
		p, r, vz := l.modelTerms(k, hc)
		if bf := x.fits[k]; bf != nil {
			est = math.Max(est, bf.err)
		}
		if bf := x.fits[k]; bf != nil && len(bf.p) == hc && hc > 0 {
			// The RF's own fit against the heads' prediction for it.
			rfk := l.res.Trace.RFs[k]
			for b, h := range rfk.Heads {
				if h < 0 {
					continue
				}
				dp, _ := diff.Sub(bf.p[b], p[h]).Float64()
				dr, _ := diff.Sub(bf.r[b], r[h]).Float64()
				ep := math.Max(math.Abs(dp)/math.Max(pmax, 1e-300), math.Abs(dr)/math.Max(rmax, 1e-300))
				est = math.Max(est, ep)
			}
		}
		rho := make([]*big.Float, hc)
		for h := range rho {
			rho[h] = bigmath.Exp(x.num(), p[h])
		}
		for _, q := range byRF[k] {
			n := x.num().SetFloat64(float64(l.res.Trace.Queries[q].Length - 1))
			y := x.num()
			tt := x.num()
			for h := 0; h < hc; h++ {
				// v_h·z − r_h(u)·n/(n + ρ_h)
				tt.Add(n, rho[h])
				tt.Quo(n, tt)
				tt.Mul(tt, r[h])
				y.Add(y, vz[h])
				y.Sub(y, tt)
			}
			y.Sub(y, x.ans[q])
			e, _ := y.Float64()
			ya, _ := x.ans[q].Float64()
			e /= float64(eps*(math.Abs(ya)+l.s)) + math.SmallestNonzeroFloat64
			chi2 += float64(e * e)
			worst = math.Max(worst, math.Abs(e)*eps)
		}
	}
	return chi2, est, worst
}

// bigHeads solves for the heads at the working precision:
// W_h = U (P̃_h − Q_h 1ᵀ) Zᵀ/c and v_h = U r_h/c (Q_h = 0 without biases).
func (l *learner) bigHeads(hc int) []BigHead {
	x, d := l.x, l.d
	heads := make([]BigHead, hc)
	tmp := x.num()
	for h := 0; h < hc; h++ {
		pz := make([][]*big.Float, d) // (P̃_h − Q_h 1ᵀ) Zᵀ
		for a := 0; a < d; a++ {
			pz[a] = make([]*big.Float, d)
			qa := x.biasQ(h, a)
			for y := 0; y < d; y++ {
				acc := x.num()
				for b := 0; b < d; b++ {
					pab := x.P[h][a][b]
					if qa != nil {
						pab = x.num().Sub(pab, qa)
					}
					acc.Add(acc, tmp.Mul(pab, x.z[b][y]))
				}
				pz[a][y] = acc
			}
		}
		w := make([][]*big.Float, d)
		v := make([]*big.Float, d)
		for xi := 0; xi < d; xi++ {
			w[xi] = make([]*big.Float, d)
			for y := 0; y < d; y++ {
				acc := x.num()
				for a := 0; a < d; a++ {
					acc.Add(acc, tmp.Mul(x.u[a][xi], pz[a][y]))
				}
				w[xi][y] = acc.Quo(acc, x.cts)
			}
			acc := x.num()
			for a := 0; a < d; a++ {
				acc.Add(acc, tmp.Mul(x.u[a][xi], x.R[h][a]))
			}
			v[xi] = acc.Quo(acc, x.c)
		}
		heads[h] = BigHead{W: w, V: v}
	}
	return heads
}
