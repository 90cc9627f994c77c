package transformer

import (
	"math"
	"math/big"

	"headlab/numerics/internal/linalg"
	"headlab/numerics/recovery"
)

// phaseA recovers the canonical W_h from the odd part
// G(X) = F(X) − F(−X) = Σ_h f_{W_h, w_h}(X), w_h = Σ_k a_k V_h b_k (plus the
// readout's share twice): negating every token keeps the scores and
// negates the values (MATH.md §3.7).
func (l *learner) phaseA() error {
	if l.opt.heads != nil {
		for _, w := range l.opt.heads {
			l.w = append(l.w, l.a.matOf(w))
		}
		l.condition(C1, true, "heads given (test)")
		return nil
	}
	var gMax, fMax float64
	odd := func(X [][]*big.Float, kind StepKind, index int) *big.Float {
		first := l.calls
		neg := make([][]*big.Float, len(X))
		for i, x := range X {
			neg[i] = l.a.scaleVec(l.a.f(-1), x)
		}
		fp := l.query(X)
		fn := l.query(neg)
		y := l.a.sub(fp, fn)
		gMax = math.Max(gMax, math.Abs(float(y)))
		fMax = math.Max(fMax, math.Max(math.Abs(float(fp)), math.Abs(float(fn))))
		l.res.Steps = append(l.res.Steps, Step{Kind: kind, First: first, Calls: 2, Index: index, OK: true})
		l.res.HeadQueries += 2
		return y
	}
	var omega []*big.Float
	if l.opt.Residual {
		var err error
		if omega, err = l.residualShare(odd); err != nil {
			return err
		}
		l.res.Omega = floats(omega)
	}
	values := 0
	g := func(X [][]*big.Float) *big.Float {
		y := odd(X, HeadValue, values)
		values++
		if omega != nil {
			y = l.a.sub(y, l.a.dot(omega, X[len(X)-1]))
		}
		return y
	}
	ropt := recovery.DefaultOptions(l.opt.Heads, l.d)
	ropt.Mode = l.opt.Mode
	ropt.Seed = l.opt.Seed
	ropt.Precision = l.a.prec
	var res recovery.Result
	var err error
	if l.opt.Pause != nil {
		// The pause unwinds the whole run from inside recovery's.
		res, err = recovery.LearnBigPaused(g, ropt, func(recovery.Progress) bool { l.checkpoint(); return true })
	} else {
		res, err = recovery.LearnBig(g, ropt)
	}
	l.res.Heads = res
	vanishes := gMax <= math.Pow(10, 10-l.digits)*fMax
	if err != nil {
		if vanishes {
			return l.fail(C1, "the odd part vanishes (largest |G| %.3g against |F| up to %.3g): an even FFN, units in ± pairs", gMax, fMax)
		}
		ce := l.fail(C1, "recovery could not resolve the heads of the odd part")
		ce.(*ConditionError).Err = err
		return ce
	}
	if len(res.Layer) == 0 {
		return l.fail(C1, "no head is visible in the odd part (largest |G| %.3g against |F| up to %.3g): an even FFN, units in ± pairs", gMax, fMax)
	}
	for _, h := range res.BigLayer {
		l.w = append(l.w, h.W)
	}
	if res.Estimate > 0 {
		// The estimate (the RFs' largest disagreement with the heads) runs
		// 10–10⁹ times above the heads' true error: trust it to 10³.
		l.headDigits = math.Min(l.digits, headTrust-math.Log10(res.Estimate))
	}
	if l.checkDigits() < unitDigits+solveSlack {
		return l.fail(C4, "recovery's heads are good to about %.1f digits (estimate %.3g); the unit phase's checks need %d", l.headDigits, res.Estimate, unitDigits+solveSlack)
	}
	l.condition(C1, true, "%d canonical heads in the odd part, %d queries of G", len(l.w), l.res.HeadQueries/2)
	return nil
}

// residualShare measures ω, the residual's share ω·x_N of the odd part
// (ω = Σ_k a_k b_k, plus twice the readout), which is no attention head
// and would defeat recovery's schedule. On n copies of the zero token
// followed by z every head's weighted mean is z·ρ_h/(n + ρ_h),
// ρ_h = exp(zᵀW_h z), so G(n) = ω·z + Σ_h (w_h·z) ρ_h/(n + ρ_h): a rational
// function of type (H, H) whose value at n = ∞ is ω·z. Its 2H + 1
// coefficients come from n = 0…2H by the linearised system
// G(n)·Q(n) = P(n) (Q monic), and ω·z is P's leading coefficient; d random
// orthonormal z give ω.
func (l *learner) residualShare(odd func([][]*big.Float, StepKind, int) *big.Float) ([]*big.Float, error) {
	a, d, H := l.a, l.d, l.opt.Heads
	zs := make([][]*big.Float, 0, d)
	for len(zs) < d {
		z := l.direction()
		for _, y := range zs {
			z = a.axpy(z, a.neg(a.dot(z, y)), y)
		}
		if n := a.norm(z); float(n) > 1e-3 {
			zs = append(zs, a.scaleVec(a.quo(a.f(1), n), z))
		}
	}
	zero := a.vec(d)
	rhs := a.vec(d) // ω·z_j
	for j, z := range zs {
		n := 2*H + 1
		A := make([][]*big.Float, n)
		b := make([]*big.Float, n)
		for s := 0; s < n; s++ {
			X := make([][]*big.Float, s+1)
			for i := 0; i < s; i++ {
				X[i] = zero
			}
			X[s] = z
			y := odd(X, ResidualValue, j*n+s)
			ns := a.f(float64(s))
			pow := a.f(1)
			A[s] = make([]*big.Float, n)
			for i := 0; i < H; i++ { // q_i: G·n^i
				A[s][i] = a.mul(y, pow)
				A[s][H+i] = a.neg(pow) // p_i: −n^i
				pow = a.mul(pow, ns)
			}
			A[s][2*H] = a.neg(pow) // p_H
			b[s] = a.neg(a.mul(y, pow))
		}
		c, ok := linalg.SolveBig(A, b, a.prec, linalg.Pivoting{})
		if !ok {
			return nil, l.fail(C1, "the odd part on copies of 0 followed by z_%d does not show %d heads: the residual's share cannot be separated", j+1, H)
		}
		rhs[j] = c[2*H]
	}
	// ω = Σ_j (ω·z_j) z_j.
	omega := a.vec(d)
	for j, z := range zs {
		omega = a.axpy(omega, rhs[j], z)
	}
	return omega, nil
}
