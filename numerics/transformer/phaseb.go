package transformer

import (
	"math"
	"math/big"
	"math/bits"

	"headlab/numerics/internal/linalg"
)

// The unit phase (MATH.md §3.7): with the W_h known, F = Λ_S·φ wherever the
// units' on/off pattern S is fixed. On single tokens every head's φ_h is
// the token itself, so along a line of single tokens F is piecewise linear
// with one kink per unit, where its single-token hyperplane
// (Σ_h V_h b_k)·x = 0 crosses. F is positively homogeneous there, so the
// learner walks the directions (p + t·q)/√(1+t²), t ∈ [−∞, +∞] (p ⊥ q unit
// vectors, t = ±∞ the tokens ±q), which keeps every token of unit norm.

// tpos is a position on the line: an end (inf = ±1) or t.
type tpos struct {
	inf int
	t   *big.Float
}

func (p tpos) float() float64 {
	if p.inf != 0 {
		return math.Inf(p.inf)
	}
	return float(p.t)
}

// less reports x < y.
func less(x, y tpos) bool {
	if x.inf != 0 || y.inf != 0 {
		return x.inf < y.inf
	}
	return x.t.Cmp(y.t) < 0
}

// Tolerances of phase B, as powers of ten relative to the run's digits
// (the 50-digit check of MATH.md §3.7 used 12 and 15).
const (
	solveSlack = 12 // a local solve's check query, 10^(12 − digits)
	sideSlack  = 15 // a kink's side queries, 10^(15 − digits)
	unitSlack  = 6  // pieces, units, the self-check: 10^(6 − digits)/ε²
	selfChecks = 4  // random sequences of the final check
	// sideAngle is tan γ, the angle between a candidate kink and its side
	// queries: single tokens need no conditioning, so it can be small,
	// which keeps two nearby kinks from passing as one.
	sideAngle = 1e-12
)

// pow10 returns 10^(x − the digits the checks can expect): the working
// digits, or fewer when phase A's heads are less accurate than that.
func (l *learner) pow10(x float64) float64 { return math.Pow(10, x-l.checkDigits()) }

func (l *learner) checkDigits() float64 { return math.Min(l.digits, l.headDigits) }

// unitTol is the relative accuracy the units are checked to: rounding
// amplified by the local solves' ε⁻² conditioning, with slack.
func (l *learner) unitTol() float64 { return l.pow10(unitSlack) / (l.minEps * l.minEps) }

type kink struct {
	t      tpos
	ia, ib int
	d      []*big.Float
	probed bool // its hyperplane probe passed
}

func (l *learner) phaseB() error {
	a, d := l.a, l.d
	blocks := len(l.w)
	if l.opt.Residual {
		blocks++
	}
	l.nf = blocks * d
	l.minEps = l.opt.step()
	// The line: p ⊥ q, unit vectors (p = 0 when d = 1).
	l.q = l.direction()
	l.p = a.vec(d)
	if d > 1 {
		for {
			p := l.direction()
			p = a.axpy(p, a.neg(a.dot(p, l.q)), l.q)
			if n := a.norm(p); float(n) > 1e-3 {
				l.p = a.scaleVec(a.quo(a.f(1), n), p)
				break
			}
		}
	}
	l.res.P, l.res.Q = floats(l.p), floats(l.q)
	lo, err := l.solve(tpos{inf: -1})
	if err != nil {
		return err
	}
	hi, err := l.solve(tpos{inf: 1})
	if err != nil {
		return err
	}
	var kinks []kink
	solves := 2
	if err := l.scan(tpos{inf: -1}, lo, tpos{inf: 1}, hi, 0, &kinks, &solves); err != nil {
		return err
	}
	// Rule out shared hyperplanes (C2). A probe that fails may also mean
	// two kinks closer than the side queries' offset: a local solve at the
	// kink then finds a piece between them, and the scan goes on there.
	for round := 0; ; round++ {
		if len(kinks) > MaxUnits {
			return l.fail(C2, "%d kinks on the line, more than the %d units Learn accepts", len(kinks), MaxUnits)
		}
		j, mis, tol := l.hyperplanes(kinks)
		if j < 0 {
			break
		}
		k := kinks[j]
		shared := func(why string) error {
			return l.fail(C2, "on the hyperplane of the kink at t = %.6g, F differs from both pieces by %.3g relative (tolerance %.3g), and %s: two units share its single-token hyperplane",
				k.t.float(), mis, tol, why)
		}
		if round >= MaxUnits {
			return shared("splitting kinks did not settle it")
		}
		im, _, err := l.trySolve(k.t)
		if err != nil {
			return err
		}
		if im < 0 {
			return shared("no local solve at the kink is linear")
		}
		if l.samePiece(im, k.ia) || l.samePiece(im, k.ib) {
			return shared("the piece at the kink is one of its sides")
		}
		solves++
		var sub []kink
		if err := l.scan(l.at[k.ia], k.ia, k.t, im, 0, &sub, &solves); err != nil {
			return err
		}
		if err := l.scan(k.t, im, l.at[k.ib], k.ib, 0, &sub, &solves); err != nil {
			return err
		}
		kinks = append(append(append([]kink(nil), kinks[:j]...), sub...), kinks[j+1:]...)
	}
	l.condition(C3, true, "%d local solves accepted, smallest step ε = %.0e", solves, l.minEps)
	l.assemble(kinks, lo)
	return l.selfCheck(kinks)
}

// direction returns a random unit vector of width d.
func (l *learner) direction() []*big.Float {
	for {
		v := make([]float64, l.d)
		for i := range v {
			v[i] = l.rng.NormFloat64()
		}
		x := l.a.vecOf(v)
		if n := l.a.norm(x); n.Sign() > 0 {
			return l.a.scaleVec(l.a.quo(l.a.f(1), n), x)
		}
	}
}

// token returns the single token at p, of unit norm (zero at t = 0 when
// d = 1).
func (l *learner) token(p tpos) []*big.Float {
	a := l.a
	if p.inf != 0 {
		return a.scaleVec(a.f(float64(p.inf)), l.q)
	}
	x := a.axpy(l.p, p.t, l.q)
	if n := a.norm(x); n.Sign() > 0 {
		return a.scaleVec(a.quo(a.f(1), n), x)
	}
	return x
}

// blockSum returns Σ over d-blocks of v: the single-token view of a map on
// φ, since φ of a single token x is (x, …, x).
func (l *learner) blockSum(v []*big.Float) []*big.Float {
	s := l.a.vec(l.d)
	for i, x := range v {
		s[i%l.d].Add(s[i%l.d], x)
	}
	return s
}

func (l *learner) seen(f *big.Float) {
	l.scale = math.Max(l.scale, math.Abs(float(f)))
}

func (l *learner) rel(diff *big.Float) float64 {
	return math.Abs(float(diff)) / math.Max(l.scale, math.SmallestNonzeroFloat64)
}

// solve finds the piece at p by a local solve (trySolve), and names the
// condition that fails when no step gives one.
func (l *learner) solve(p tpos) (int, error) {
	i, mismatches, err := l.trySolve(p)
	if err != nil || i >= 0 {
		return i, err
	}
	if len(l.w) < l.opt.Heads {
		return -1, l.fail(C1, "F is not linear in the features of the %d heads the odd part showed (of %d) near t = %.6g at any step (mismatches %.3g)",
			len(l.w), l.opt.Heads, p.float(), mismatches)
	}
	return -1, l.fail(C2, "F is not linear near the single token at t = %.6g at any step (mismatches %.3g, shrinking like ε²): a unit invisible on single tokens, whose hyperplane holds every single token",
		p.float(), mismatches)
}

// trySolve finds the piece at p by a local solve: Hd two-token queries
// (x + ε n_a, x + ε n_z) around the single token x, and one more to check
// the solution. A failed check means a kink within ε (C3): retry at ε/1000,
// twice, as long as the digits allow it (C4). It returns the piece's
// index, or −1 and the check mismatches when every step failed.
func (l *learner) trySolve(p tpos) (int, []float64, error) {
	a := l.a
	x := l.token(p)
	eps := l.opt.step()
	var mismatches []float64
	for try := 0; try < 3; try++ {
		if left := l.digitsLeft(eps); left < unitDigits {
			return -1, nil, l.fail(C4, "the local solve at t = %.6g needs ε = %.0e (check mismatches %.3g), which leaves %.1f digits < %d",
				p.float(), eps, mismatches, left, unitDigits)
		}
		first := l.calls
		rows := make([][]*big.Float, l.nf)
		rhs := make([]*big.Float, l.nf)
		var check []*big.Float
		var fc *big.Float
		e := a.f(eps)
		for i := 0; i <= l.nf; i++ {
			X := [][]*big.Float{a.axpy(x, e, l.direction()), a.axpy(x, e, l.direction())}
			phi := a.features(l.w, l.opt.Residual, X)
			f := l.query(X)
			l.seen(f)
			if i < l.nf {
				rows[i], rhs[i] = phi, f
			} else {
				check, fc = phi, f
			}
		}
		lam, ok := linalg.SolveBig(rows, rhs, a.prec, linalg.Pivoting{})
		mis := math.Inf(1)
		if ok {
			mis = l.rel(a.sub(fc, a.dot(lam, check)))
		}
		mismatches = append(mismatches, mis)
		accepted := mis <= l.pow10(solveSlack)
		st := Step{Kind: Probe, T: p.float(), First: first, Calls: l.nf + 1, Index: -1, Eps: eps, Mismatch: mis, OK: accepted}
		if accepted {
			st.Index = len(l.pieces)
			l.pieces = append(l.pieces, lam)
			l.at = append(l.at, p)
			l.res.Pieces = append(l.res.Pieces, Piece{T: p.float(), Lambda: floats(lam), Eps: eps})
			l.res.Steps = append(l.res.Steps, st)
			l.minEps = math.Min(l.minEps, eps)
			return st.Index, nil, nil
		}
		l.res.Steps = append(l.res.Steps, st)
		eps /= 1000
	}
	return -1, mismatches, nil
}

// scan finds the kinks strictly between ta and tb, whose pieces ia and ib
// are known, left to right (MATH.md §3.7, line scan).
func (l *learner) scan(ta tpos, ia int, tb tpos, ib int, depth int, kinks *[]kink, solves *int) error {
	return l.scanFrom(ta, ia, tb, ib, depth, kinks, solves, true)
}

// scanFrom is scan; useCand false skips the candidate and solves at the
// midpoint (the candidate is known to be an end).
func (l *learner) scanFrom(ta tpos, ia int, tb tpos, ib int, depth int, kinks *[]kink, solves *int, useCand bool) error {
	a := l.a
	la, lb := l.pieces[ia], l.pieces[ib]
	dv := a.subVec(lb, la)
	if l.samePiece(ia, ib) {
		return nil // no unit toggles in between
	}
	if ta.inf == 0 && tb.inf == 0 && math.Abs(float(a.sub(tb.t, ta.t))) <= 1e-9*(1+math.Abs(ta.float())) {
		// Different pieces with no room for a kink between them: local
		// solves near single tokens disagree, which a unit whose
		// hyperplane holds every single token does.
		return l.fail(C2, "the pieces at t = %.9g and %.9g differ with no kink between them: a unit invisible on single tokens", ta.float(), tb.float())
	}
	if depth > 64 || *solves > 8*(MaxUnits+1) {
		return l.fail(C3, "the line scan did not close after %d local solves (depth %d) between t = %.6g and %.6g", *solves, depth, ta.float(), tb.float())
	}
	sigma := l.blockSum(dv)
	sq := a.dot(sigma, l.q)
	inside := false
	var cand tpos
	if useCand && sq.Sign() != 0 {
		cand = tpos{t: a.neg(a.quo(a.dot(sigma, l.p), sq))}
		inside = l.strictly(ta, cand, tb)
	}
	if inside {
		left, right := l.confirm(ta, la, cand, tb, lb)
		switch {
		case left && right:
			*kinks = append(*kinks, kink{t: cand, ia: ia, ib: ib, d: dv})
			l.res.Steps = append(l.res.Steps, Step{Kind: KinkFound, T: cand.float(), First: l.calls, Index: -1, OK: true})
			return nil
		case left:
			// The left piece reaches the candidate: the kinks lie beyond.
			return l.scanFrom(cand, ia, tb, ib, depth+1, kinks, solves, false)
		case right:
			return l.scanFrom(ta, ia, cand, ib, depth+1, kinks, solves, false)
		}
	}
	tm := cand
	if !inside {
		tm = l.midpoint(ta, tb)
	}
	im, err := l.solve(tm)
	if err != nil {
		return err
	}
	*solves++
	if err := l.scan(ta, ia, tm, im, depth+1, kinks, solves); err != nil {
		return err
	}
	return l.scan(tm, im, tb, ib, depth+1, kinks, solves)
}

// strictly reports ta < c < tb with c at least 10⁻⁹(1 + |c|) from a
// finite end: a candidate that rounding puts a hair inside an interval
// whose end it is must not be solved at again.
func (l *learner) strictly(ta, c, tb tpos) bool {
	if !less(ta, c) || !less(c, tb) {
		return false
	}
	margin := 1e-9 * (1 + math.Abs(c.float()))
	for _, e := range []tpos{ta, tb} {
		if e.inf == 0 && math.Abs(float(l.a.sub(c.t, e.t))) <= margin {
			return false
		}
	}
	return true
}

// midpoint returns a point strictly between ta and tb: 0 between the two
// ends, ±(1 + |t|) beyond one end, the mean between finite points.
func (l *learner) midpoint(ta, tb tpos) tpos {
	a := l.a
	switch {
	case ta.inf == -1 && tb.inf == 1:
		return tpos{t: a.zero()}
	case ta.inf == -1:
		step := a.add(a.f(1), a.zero().Abs(tb.t))
		return tpos{t: a.sub(tb.t, step)}
	case tb.inf == 1:
		step := a.add(a.f(1), a.zero().Abs(ta.t))
		return tpos{t: a.add(ta.t, step)}
	}
	m := a.add(ta.t, tb.t)
	return tpos{t: m.SetMantExp(m, -1)}
}

// confirm queries one single token on each side of the candidate kink c
// and reports whether each lies on its side's piece. The sides are at the
// angles ±γ from c (tan γ = sideAngle, shrunk until both lie inside
// (ta, tb)). Two kinks closer than γ pass as one; the hyperplane probe
// catches that, and a local solve between them splits them.
func (l *learner) confirm(ta tpos, la []*big.Float, c tpos, tb tpos, lb []*big.Float) (left, right bool) {
	a := l.a
	sa, sb := l.blockSum(la), l.blockSum(lb)
	one := a.f(1)
	tau := a.f(sideAngle)
	for try := 0; try < 12; try++ {
		// tan(θ ∓ γ) = (t ∓ τ)/(1 ± tτ).
		lden := a.add(one, a.mul(c.t, tau))
		rden := a.sub(one, a.mul(c.t, tau))
		if lden.Sign() > 0 && rden.Sign() > 0 {
			lp := tpos{t: a.quo(a.sub(c.t, tau), lden)}
			rp := tpos{t: a.quo(a.add(c.t, tau), rden)}
			if less(ta, lp) && less(lp, c) && less(c, rp) && less(rp, tb) {
				return l.side(lp, sa), l.side(rp, sb)
			}
		}
		tau.Quo(tau, a.f(10))
	}
	return false, false
}

// side queries the single token at p and reports whether it lies on the
// line of the piece whose single-token view is s.
func (l *learner) side(p tpos, s []*big.Float) bool {
	x := l.token(p)
	first := l.calls
	f := l.query([][]*big.Float{x})
	l.seen(f)
	mis := l.rel(l.a.sub(f, l.a.dot(s, x)))
	good := mis <= l.pow10(sideSlack)
	l.res.Steps = append(l.res.Steps, Step{Kind: Side, T: p.float(), First: first, Calls: 1, Mismatch: mis, OK: good})
	return good
}

// hyperplanes rules out two units sharing a kink's single-token
// hyperplane (C2), which the line cannot see: their kinks coincide on
// every line of single tokens, and the difference D of the pieces is their
// sum. It returns the first kink whose probes fail (−1: none), with the
// mismatch and tolerance.
//
// Two tokens near the kink's token x, shifted together by τ along the
// kink's single-token normal σ, move φ along the single-token direction
// plus a fixed second-order offset that differs between heads. A lone unit
// then has one kink in τ, where D·φ = 0; two units sharing the hyperplane
// have two, at their own U_k·φ = 0, which the offset separates, and
// between them (and from the nearer one up to D·φ = 0) only one of them is
// on, which no single unit reproduces. The learner finds τ_D where D·φ = 0
// (secant iteration, no queries) and queries τ_D ± κ (κ = 10⁻⁶ε²): a lone
// unit's prediction — the left piece where D·φ has the left side's sign,
// the right one elsewhere — holds on both sides; with a pair, one side
// lies between their kinks and misses by about κ|σ|. A third probe keeps
// the tokens' mean on σ·x̄ = 0, with a fresh offset.
func (l *learner) hyperplanes(kinks []kink) (bad int, mismatch, tolerance float64) {
	a := l.a
	sigmas := make([][]*big.Float, len(kinks))
	for j, k := range kinks {
		sigmas[j] = l.blockSum(k.d)
	}
	for j, k := range kinks {
		if k.probed {
			continue
		}
		x := l.token(k.t)
		dist := 1.0
		for i, s := range sigmas {
			if i != j {
				dist = math.Min(dist, math.Abs(float(a.dot(s, x)))/float(a.norm(s)))
			}
		}
		eps2 := math.Min(1e-2, 0.05*dist)
		e := a.f(eps2)
		// Symmetric tokens x ± ε n: the offset between heads grows with
		// |a − z|, which two independent directions could make tiny.
		n0 := l.direction()
		a0, z0 := a.axpy(x, e, n0), a.axpy(x, a.neg(e), n0)
		ns := a.norm(sigmas[j])
		shat := a.scaleVec(a.quo(a.f(1), ns), sigmas[j])
		at := func(tau *big.Float) [][]*big.Float {
			return [][]*big.Float{a.axpy(a0, tau, shat), a.axpy(z0, tau, shat)}
		}
		g := func(tau *big.Float) *big.Float {
			return a.dot(k.d, a.features(l.w, l.opt.Residual, at(tau)))
		}
		// Secant iteration from τ = 0 and the linear estimate −g(0)/|σ|.
		t0, g0 := a.zero(), g(a.zero())
		t1 := a.neg(a.quo(g0, ns))
		g1 := g(t1)
		stop := l.pow10(8) * maxAbs(k.d)
		for it := 0; it < 200 && math.Abs(float(g1)) > stop && g1.Cmp(g0) != 0; it++ {
			t2 := a.sub(t1, a.quo(a.mul(g1, a.sub(t1, t0)), a.sub(g1, g0)))
			t0, g0 = t1, g1
			t1, g1 = t2, g(t2)
		}
		// The second probe keeps the tokens' mean on the single-token
		// hyperplane σ·x̄ = 0 instead, so that both units' values are
		// second order and take either sign: it catches the pairs whose
		// values have opposite signs all along D·φ = 0.
		n1 := l.direction()
		b0, y0 := a.axpy(x, e, n1), a.axpy(x, a.neg(e), n1)
		mean := a.scaleVec(a.f(0.5), a.addVec(b0, y0))
		tm := a.neg(a.dot(shat, mean))
		kappa := a.f(1e-6 * eps2 * eps2)
		probes := [][][]*big.Float{at(a.sub(t1, kappa)), at(a.add(t1, kappa)), {a.axpy(b0, tm, shat), a.axpy(y0, tm, shat)}}
		sq := a.dot(sigmas[j], l.q).Sign()
		tol := math.Max(l.pow10(sideSlack), l.pow10(6)*(eps2/l.minEps)*(eps2/l.minEps))
		for _, X := range probes {
			first := l.calls
			f := l.query(X)
			l.seen(f)
			// The lone unit's prediction: the right piece where D·φ has
			// the sign it has right of the kink on the line, else the left.
			phi := a.features(l.w, l.opt.Residual, X)
			pred := a.dot(l.pieces[k.ia], phi)
			if dphi := a.dot(k.d, phi); dphi.Sign() == sq {
				pred = a.add(pred, dphi)
			}
			mis := l.rel(a.sub(f, pred))
			ok := mis <= tol
			l.res.Steps = append(l.res.Steps, Step{Kind: HyperplaneProbe, T: k.t.float(), First: first, Calls: 1, Index: -1, Eps: eps2, Mismatch: mis, OK: ok})
			if !ok {
				return j, mis, tol
			}
		}
		kinks[j].probed = true
	}
	return -1, 0, 0
}

// samePiece reports whether pieces i and j are the same map.
func (l *learner) samePiece(i, j int) bool {
	li, lj := l.pieces[i], l.pieces[j]
	size := math.Max(math.Max(maxAbs(li), maxAbs(lj)), l.scale)
	return maxAbs(l.a.subVec(li, lj)) <= l.unitTol()*size
}

// assemble writes F = Λ₋·φ + Σ_j s_j ReLU(s_j D_j·φ), s_j = sign(σ_j·q),
// and folds Λ₋ into the units when a subset of kinks sums to −Λ₋ (the
// units that are on at t = −∞ and turn off along the line): those become
// s_j ReLU(−s_j D_j·φ) and the linear term vanishes. Otherwise (a
// readout) Λ₋ stays as the linear term.
func (l *learner) assemble(kinks []kink, lo int) {
	a := l.a
	lam := l.pieces[lo]
	n := len(kinks)
	// Exhaustive subset sum in float64 (Gray code), confirmed in big.
	ds := make([][]float64, n)
	for j, k := range kinks {
		ds[j] = floats(k.d)
	}
	cur := floats(lam)
	size := maxAbs(lam)
	for _, k := range kinks {
		size = math.Max(size, maxAbs(k.d))
	}
	best, bestRes := -1, math.Inf(1)
	mask := 0
	resid := func() float64 {
		m := 0.0
		for _, v := range cur {
			m = math.Max(m, math.Abs(v))
		}
		return m
	}
	if r := resid(); r < bestRes {
		best, bestRes = 0, r
	}
	for i := 1; i < 1<<n; i++ {
		j := bits.TrailingZeros(uint(i))
		sign := 1.0
		if mask&(1<<j) != 0 {
			sign = -1
		}
		mask ^= 1 << j
		for c := range cur {
			cur[c] += float64(sign * ds[j][c])
		}
		if r := resid(); r < bestRes {
			best, bestRes = mask, r
		}
	}
	folded := false
	if best >= 0 && bestRes <= 1e-8*size {
		sum := a.copyVec(lam)
		for j := range kinks {
			if best&(1<<j) != 0 {
				sum = a.addVec(sum, kinks[j].d)
			}
		}
		folded = maxAbs(sum) <= l.unitTol()*float64(n+1)*math.Max(size, l.scale)
	}
	net := Canonical{Width: l.d, Heads: l.w, Residual: l.opt.Residual}
	if folded {
		net.Linear = a.vec(l.nf)
	} else {
		net.Linear = a.copyVec(lam)
	}
	for j, k := range kinks {
		s := 1
		if a.dot(l.blockSum(k.d), l.q).Sign() < 0 {
			s = -1
		}
		eta := k.d
		if s < 0 {
			eta = a.scaleVec(a.f(-1), eta)
		}
		if folded && best&(1<<j) != 0 {
			eta = a.scaleVec(a.f(-1), eta)
		}
		net.Units = append(net.Units, CanonicalUnit{Sign: s, Eta: eta})
		l.res.Kinks = append(l.res.Kinks, Kink{T: k.t.float(), Left: k.ia, Right: k.ib, D: floats(k.d), Unit: j})
		l.res.Steps = append(l.res.Steps, Step{Kind: UnitFound, T: k.t.float(), First: l.calls, Index: j, OK: true})
	}
	l.res.Net = net
	l.res.Folded = folded
}

// selfCheck compares the assembled network with the oracle on selfChecks
// random sequences (normal draws) that no step above has seen: a unit
// invisible on single tokens shows there (C2), and so would anything else
// the local steps missed.
func (l *learner) selfCheck(kinks []kink) error {
	a := l.a
	f := l.res.Net
	worst := 0.0
	tol := l.unitTol() * 1e3
	check := func(X [][]*big.Float, t float64) bool {
		first := l.calls
		y := l.query(X)
		l.seen(y)
		mis := l.rel(a.sub(y, f.eval(a, a.features(f.Heads, f.Residual, X))))
		worst = math.Max(worst, mis)
		ok := mis <= tol
		l.res.Steps = append(l.res.Steps, Step{Kind: SelfCheck, T: t, First: first, Calls: 1, Index: -1, Mismatch: mis, OK: ok})
		return ok
	}
	for s := 0; s < selfChecks; s++ {
		X := make([][]*big.Float, 2+s%3)
		for i := range X {
			X[i] = a.vecOf(l.normals(l.d))
		}
		if !check(X, 0) {
			return l.fail(C2, "the assembled network misses the oracle on a random sequence of %d tokens by %.3g relative (tolerance %.3g): a unit invisible on single tokens, or two sharing one hyperplane", len(X), worst, tol)
		}
	}
	l.condition(C2, true, "%d kinks, each on a hyperplane of its own (probed off the line); %d random sequences agree to %.3g", len(kinks), selfChecks, worst)
	return nil
}

func (l *learner) normals(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = l.rng.NormFloat64()
	}
	return v
}
