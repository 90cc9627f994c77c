package recovery

import (
	"math"
	"math/big"

	"headlab/numerics/internal/bigmath"
	"headlab/numerics/internal/linalg"
	"headlab/numerics/internal/xmath"
	"headlab/numerics/recovery/internal/label"
	"headlab/numerics/recovery/internal/lsq"
	"headlab/numerics/recovery/internal/polefit"
)

// Frugal in extended precision (MATH.md §3.4, "Frugal mode"): a
// measurement's poles are located in float64 on the roundings of its
// samples (bigPoleSearch), and every distinct candidate, with every
// transposition of the best, is polished by Gauss–Newton at the working
// precision (settleFrugal): the poles are accepted when exactly one
// distinct candidate reproduces every sample to the noise model (epsX).
// bigLadder (frugal_ladder.go) gives what follows where they are not.

// searchedHeads is the most heads whose poles the float64 search looks
// for in extended precision; beyond, it costs more time than the samples
// it saves, and the measurement goes to the line family at once (MATH.md
// §3.4).
const searchedHeads = polefit.HomotopyHeads

// frugalPolishes bounds the float64 candidates polished per search.
const frugalPolishes = 8

// lineFrugal solves the poles of frugal measurement k from the line
// family of its samples (lineStarts), polished on all of them
// (settleFrugal).
func (l *learner) lineFrugal(k, hc int) (p []*big.Float, ok bool) {
	f0, r := l.frugalTerms(k, hc)
	return l.settleFrugal(k, f0, r, l.lineStarts(l.res.Trace.RFs[k].N, l.bigAnswers(k), f0, r))
}

// frugalTerms returns, at the working precision, F(0) = Σ_h v_h·z and the
// known r_h of frugal measurement k (modelTerms).
func (l *learner) frugalTerms(k, hc int) (f0 *big.Float, r []*big.Float) {
	_, r, vz := l.modelTerms(k, hc)
	f0 = l.x.num()
	for h := 0; h < hc; h++ {
		f0.Add(f0, vz[h])
	}
	return f0, r
}

// bigAnswers returns the answers of RF k at the working precision, in the
// order of its samples.
func (l *learner) bigAnswers(k int) []*big.Float {
	rf := &l.res.Trace.RFs[k]
	y := make([]*big.Float, len(rf.N))
	for s, qi := range rf.Query {
		y[s] = l.x.ans[qi]
	}
	return y
}

// plainFrugalRational fits frugal measurement k of column j, asked at
// n = 1…2H−1, as economy does (fitKnown: C and F(0) known, 2H values for
// the 2H poles and residues) and accepts the fit only
// where the known r_h label its residues as economy demands of its own
// (decidedPlain): H checks the interpolation does not use. Otherwise it
// reports false and leaves the measurement to economy's samples.
func (l *learner) plainFrugalRational(k, hc, j int, rs float64) bool {
	x := l.x
	rf := &l.res.Trace.RFs[k]
	bf, perm, miss, rival, err := l.fitKnown(k, hc, rs)
	if err != nil || !decidedPlain(miss, rival) {
		return false
	}
	rf.Heads = label.Inverse(perm)
	for h, b := range perm {
		x.P[h][rf.I][j] = bf.p[b]
	}
	return true
}

// plainFrugal solves the poles of frugal measurement k of column j at
// the working precision (bigPoleSearch, then settleFrugal) and records
// them, or reports that its samples leave them undecided. located reports whether the float64 search found
// poles that explain the rounded samples (false: it found none, or did
// not look beyond searchedHeads, and one more sample would not help it).
func (l *learner) plainFrugal(k, hc, j int) (p []*big.Float, ok, located bool) {
	if hc > searchedHeads {
		return nil, false, false
	}
	x := l.x
	f0, r := l.frugalTerms(k, hc)
	// The float64 search on the roundings.
	f0f, _ := f0.Float64()
	rr := roundVec(r)
	q := l.frugalSamples(k, f0f, rr)
	t := newTheta(hc, l.d, l.ncols)
	for h := 0; h < hc; h++ {
		for a := 0; a < l.d; a++ {
			for b := 0; b < j; b++ {
				t.x[t.pIndex(h, a, b)], _ = x.P[h][a][b].Float64()
			}
		}
	}
	mu, width := poleRange(t, j)
	// The steps of bigPoleSearch, until some fit explains the rounded
	// samples.
	explains := func(lb label.Fits) bool { return lb.Chi2 <= frugalSolution*float64(len(q.N)) }
	lb, _ := l.newPoleSearch(k, t, q, mu, width, nil, true).run(bigPoleSearch, explains)
	located = explains(lb)
	// Candidates: the distinct fits, best first, and the transpositions of
	// the best.
	idx := lb.ByChi2()
	var cands [][]float64
	for _, i := range idx {
		if len(cands) >= frugalPolishes {
			break
		}
		if !math.IsNaN(lb.AllChi2[i]) {
			cands = lsq.AppendDistinct(cands, lb.All[i])
		}
	}
	if len(cands) == 0 || !located {
		return nil, false, located
	}
	best := cands[0]
	for a := 0; a < hc; a++ {
		for b := a + 1; b < hc; b++ {
			p := append([]float64(nil), best...)
			p[a], p[b] = p[b], p[a]
			cands = lsq.AppendDistinct(cands, p)
		}
	}
	// Only candidates that fit the rounded samples about as well as the
	// best are worth a polish at the working precision.
	prob := q.Problem(func() {})
	e := make([]float64, prob.M)
	chi := func(p []float64) float64 {
		prob.Resid(p, e)
		return lsq.SumSquares(e)
	}
	limit := float64(1e4*chi(best)) + float64(frugalSolution*float64(prob.M))
	var polish [][]*big.Float
	for i, c := range cands {
		if i > 0 && !(chi(c) <= limit) {
			continue
		}
		if rho := l.bigPoles(c); rho != nil {
			polish = append(polish, rho)
		}
	}
	p, ok = l.settleFrugal(k, f0, r, polish)
	return p, ok, true
}

// bigPoles returns the poles ρ_h = exp p_h of the log-poles p at the
// working precision, or nil where one is not finite or beyond ±700.
func (l *learner) bigPoles(p []float64) []*big.Float {
	rho := make([]*big.Float, len(p))
	for h, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 700 {
			return nil
		}
		rho[h] = l.x.num().SetFloat64(xmath.Exp(v))
	}
	return rho
}

// settleFrugal polishes the candidate poles starts of frugal measurement
// k (terms f0 and r, as plainFrugal takes them) on all its samples at the
// working precision and, where exactly one distinct solution comes out,
// records it with its error estimate and returns its log-poles; where
// none or two do, it reports false (undecided).
func (l *learner) settleFrugal(k int, f0 *big.Float, r []*big.Float, starts [][]*big.Float) (p []*big.Float, ok bool) {
	x := l.x
	hc := len(r)
	rf := &l.res.Trace.RFs[k]
	y := l.bigAnswers(k)
	var sols [][]*big.Float
	var solf [][]float64
	for _, c := range starts {
		rho, ok := l.polishPoles(rf.N, y, f0, r, c)
		if !ok {
			continue
		}
		pf := make([]float64, hc)
		for h := range pf {
			pf[h] = xmath.Log(bigFloat64(rho[h]))
		}
		dup := false
		for _, s := range solf {
			if samePolesTo(s, pf, 1e-9) {
				dup = true
				break
			}
		}
		if !dup {
			sols, solf = append(sols, rho), append(solf, pf)
			if len(sols) > 1 {
				break // two solutions: undecided, whatever the rest give
			}
		}
	}
	if len(sols) != 1 {
		return nil, false
	}
	rho := sols[0]
	p = make([]*big.Float, hc)
	for h := range p {
		p[h] = bigmath.Log(x.num(), rho[h])
	}
	// The error estimate: the same polish on the samples with perturbBits
	// fewer bits, scaled down to answerBits units of the working precision.
	yp := make([]*big.Float, len(y))
	for s := range y {
		yp[s] = new(big.Float).SetPrec(x.prec - perturbBits).Set(y[s])
		yp[s].SetPrec(x.prec)
	}
	f0p := new(big.Float).SetPrec(x.prec - perturbBits).Set(f0)
	f0p.SetPrec(x.prec)
	errEst := math.Inf(1)
	if rp, ok := l.polishPolesLoose(rf.N, yp, f0p, r, rho); ok {
		var worst float64
		tt := x.num()
		for h := range rp {
			tt.Sub(rp[h], rho[h])
			tt.Quo(tt, rho[h])
			worst = math.Max(worst, math.Abs(bigFloat64(tt)))
		}
		errEst = math.Ldexp(worst, answerBits-perturbBits)
	}
	pf := make([]float64, hc)
	for h := range p {
		pf[h] = bigFloat64(p[h])
	}
	// The RF's own fit in pole order, as the trace lists it.
	f0f, rr := bigFloat64(f0), roundVec(r)
	bf := &bigFit{err: errEst}
	for _, h := range l.recordFrugal(k, f0f, rr, pf) {
		bf.p, bf.r = append(bf.p, p[h]), append(bf.r, r[h])
		bf.pf, bf.rf = append(bf.pf, pf[h]), append(bf.rf, rr[h])
	}
	x.fits[k] = bf
	return p, true
}

// bigFloat64 rounds v to float64.
func bigFloat64(v *big.Float) float64 {
	f, _ := v.Float64()
	return f
}

// samePolesTo reports whether two sets of log-poles agree to tol.
func samePolesTo(a, b []float64, tol float64) bool {
	for h := range a {
		if math.Abs(a[h]-b[h]) > tol*(1+math.Abs(b[h])) {
			return false
		}
	}
	return true
}

// polishPoles refines the poles start of the samples (n, y) of a frugal
// measurement, y(n) = f0 − Σ_h r_h·n/(n + ρ_h), by Gauss–Newton in ρ at the
// working precision, and reports whether the result reproduces every
// sample to the noise model (a solution).
func (l *learner) polishPoles(n []float64, y []*big.Float, f0 *big.Float, r []*big.Float, start []*big.Float) ([]*big.Float, bool) {
	rho, res := l.gaussNewtonPoles(n, y, f0, r, start)
	return rho, rho != nil && res <= 16
}

// polishPolesLoose is polishPoles for perturbed samples, from the poles
// start: any converged point is returned.
func (l *learner) polishPolesLoose(n []float64, y []*big.Float, f0 *big.Float, r []*big.Float, start []*big.Float) ([]*big.Float, bool) {
	rho, res := l.gaussNewtonPoles(n, y, f0, r, start)
	return rho, rho != nil && !math.IsInf(res, 0)
}

// gaussNewtonPoles runs the Gauss–Newton iteration of polishPoles and
// returns the poles with the largest residual in units of the noise
// model (+Inf when the iteration fails). It starts from the poles start.
func (l *learner) gaussNewtonPoles(n []float64, y []*big.Float, f0 *big.Float, r []*big.Float, start []*big.Float) ([]*big.Float, float64) {
	x := l.x
	hc, m := len(r), len(n)
	// The steps need only a few correct digits (the residual, at the
	// working precision, sets the fixed point): the working precision
	// suffices for the normal equations.
	wp := x.prec
	num := func() *big.Float { return new(big.Float).SetPrec(wp) }
	rho := make([]*big.Float, hc)
	for h := range rho {
		rho[h] = num().Set(start[h])
	}
	w := make([]float64, m)
	ny := make([]*big.Float, m)
	ww := make([]*big.Float, m) // the weights w², as the normal equations take them
	for i := range n {
		w[i] = 1 / (math.Abs(bigFloat64(y[i])) + l.s)
		ny[i] = num().SetFloat64(n[i])
		ww[i] = num().SetFloat64(w[i] * w[i])
	}
	eps := l.epsX()
	tmp, den := num(), num()
	resid := func(rho []*big.Float) ([]*big.Float, float64) {
		e := make([]*big.Float, m)
		worst := 0.0
		for i := range n {
			v := num().Set(f0)
			for h := 0; h < hc; h++ {
				den.Add(ny[i], rho[h])
				tmp.Quo(ny[i], den)
				tmp.Mul(tmp, r[h])
				v.Sub(v, tmp)
			}
			v.Sub(v, y[i])
			e[i] = v
			worst = math.Max(worst, math.Abs(bigFloat64(v))*w[i]/eps)
		}
		return e, worst
	}
	e, worst := resid(rho)
	jac := make([][]*big.Float, m) // poleStep's, where float64 cannot take the step
	// small reports a step at rounding's level relative to the poles.
	small := func(delta []*big.Float) bool {
		for h := range delta {
			if !(math.Abs(bigFloat64(tmp.Quo(delta[h], rho[h]))) < math.Ldexp(1, -int(x.prec)+8)) {
				return false
			}
		}
		return true
	}
	slow := 0
	for iter := 0; iter < 40; iter++ {
		delta, ok := l.poleStep(ny, rho, r, e, w, ww, jac)
		if !ok {
			return nil, math.Inf(1)
		}
		// A step at rounding's level, or from residuals within the noise
		// model, is not damped: the residual there is noise.
		converged := small(delta)
		noise := worst <= 1
		// Damp a step that would leave ρ > 0 or raise the residual.
		var next []*big.Float
		var ne []*big.Float
		nw := math.Inf(1)
		for damp := 0; damp < 30; damp++ {
			next = make([]*big.Float, hc)
			pos := true
			for h := range next {
				next[h] = num().Add(rho[h], delta[h])
				// ρ > 0, and within float64's range (log ρ is a log-pole).
				if next[h].Sign() <= 0 || next[h].MantExp(nil) < -1000 || next[h].MantExp(nil) > 1000 {
					pos = false
				}
			}
			if pos {
				ne, nw = resid(next)
				if nw <= worst || damp == 29 || converged || noise {
					break
				}
			}
			for h := range delta {
				delta[h].Quo(delta[h], num().SetInt64(2))
			}
			if small(delta) {
				break
			}
		}
		if converged || noise {
			// No step at rounding's level, nor from residuals within the
			// noise model, that raises the residual.
			if !(nw <= worst) {
				break
			}
			if converged {
				rho, e, worst = next, ne, nw
				break
			}
		}
		if math.IsInf(nw, 0) || nw > worst*1.000001 && iter > 0 {
			break
		}
		// Newton converges fast near a solution: a start that gains less
		// than a factor 2 three times running is not near one.
		if nw > worst/2 {
			slow++
		} else {
			slow = 0
		}
		rho, e, worst = next, ne, nw
		if slow >= 3 {
			break
		}
	}
	out := make([]*big.Float, hc)
	for h := range rho {
		out[h] = x.num().Set(rho[h])
	}
	if math.IsNaN(worst) {
		worst = math.Inf(1)
	}
	return out, worst
}

// poleStep returns the Gauss–Newton step δρ of the weighted residuals e
// (weights w, their squares ww) of a frugal measurement's samples at the
// poles rho. The step needs only a few correct digits, as the residual at
// the working precision sets the fixed point: it is the float64
// least-squares solution (Householder QR, in units of each ρ_h) of the
// float64 Jacobian, each iteration gaining some 16 digits less the
// digits the Jacobian's conditioning loses; where float64 cannot solve it
// (the Jacobian's columns dependent to 1e-10), the normal equations at
// the working precision, into jac.
func (l *learner) poleStep(ny, rho, r, e []*big.Float, w []float64, ww []*big.Float, jac [][]*big.Float) ([]*big.Float, bool) {
	x := l.x
	hc, m := len(rho), len(ny)
	rf, nf := make([]float64, hc), make([]float64, m)
	for h := range rho {
		rf[h] = bigFloat64(rho[h])
	}
	a := make([][]float64, m)
	b := make([]float64, m)
	for i := range a {
		nf[i] = bigFloat64(ny[i])
		a[i] = make([]float64, hc)
		for h := range a[i] {
			d := nf[i] + rf[h]
			// ∂e_i/∂ρ_h = r_h·n_i/(n_i + ρ_h)², times ρ_h and the weight.
			a[i][h] = float64(float64(float64(bigFloat64(r[h])*nf[i])/float64(d*d))*rf[h]) * w[i]
		}
		b[i] = -float64(bigFloat64(e[i]) * w[i])
	}
	if u, ok := linalg.SolveLS(a, b, hc); ok {
		delta := make([]*big.Float, hc)
		for h := range delta {
			delta[h] = x.num().Mul(rho[h], x.num().SetFloat64(u[h]))
		}
		return delta, true
	}
	tmp, den := x.num(), x.num()
	for i := range ny {
		if jac[i] == nil {
			jac[i] = make([]*big.Float, hc)
			for h := range jac[i] {
				jac[i][h] = x.num()
			}
		}
		for h := 0; h < hc; h++ {
			den.Add(ny[i], rho[h])
			den.Mul(den, den)
			jac[i][h].Mul(r[h], ny[i])
			jac[i][h].Quo(jac[i][h], den)
		}
	}
	// (JᵀWJ) δ = −JᵀW e with W = diag(w²).
	na := make([][]*big.Float, hc)
	nb := make([]*big.Float, hc)
	for g := 0; g < hc; g++ {
		na[g] = make([]*big.Float, hc)
		for h := 0; h < hc; h++ {
			if h < g { // symmetric: a big.Float product is exactly commutative
				na[g][h] = x.num().Set(na[h][g])
				continue
			}
			s := x.num()
			for i := range ny {
				tmp.Mul(jac[i][g], jac[i][h])
				tmp.Mul(tmp, ww[i])
				s.Add(s, tmp)
			}
			na[g][h] = s
		}
		s := x.num()
		for i := range ny {
			tmp.Mul(jac[i][g], e[i])
			tmp.Mul(tmp, ww[i])
			s.Sub(s, tmp)
		}
		nb[g] = s
	}
	return solveBig(na, nb)
}

// solveBig solves a·x = b by Gaussian elimination with partial pivoting
// (a and b are overwritten) and reports whether a is nonsingular.
func solveBig(a [][]*big.Float, b []*big.Float) ([]*big.Float, bool) {
	if len(b) == 0 {
		return nil, true
	}
	return linalg.SolveBig(a, b, b[0].Prec(), linalg.Pivoting{Rounded: true})
}
