package transformer

import (
	"math"
	"math/big"

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
	g := func(X [][]*big.Float) *big.Float {
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
		l.res.Steps = append(l.res.Steps, Step{Kind: HeadValue, First: first, Calls: 2, Index: l.res.HeadQueries / 2, OK: true})
		l.res.HeadQueries += 2
		return y
	}
	ropt := recovery.DefaultOptions(l.opt.Heads, l.d)
	ropt.Mode = l.opt.Mode
	ropt.Seed = l.opt.Seed
	ropt.Precision = l.a.prec
	res, err := recovery.LearnBig(g, ropt)
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
	l.condition(C1, true, "%d canonical heads in the odd part, %d queries of G", len(l.w), l.res.HeadQueries/2)
	return nil
}
