package transformer

import (
	"math"
	"math/big"

	"gonum.org/v1/gonum/mat"

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
	res, err := learnHeads(g, ropt, l.a)
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
	for _, h := range res.Layer {
		l.w = append(l.w, l.a.denseOf(h.W))
	}
	l.condition(C1, true, "%d canonical heads in the odd part, %d queries of G", len(l.w), l.res.HeadQueries/2)
	return nil
}

func (a arith) denseOf(m *mat.Dense) [][]*big.Float {
	r, c := m.Dims()
	out := make([][]*big.Float, r)
	for i := range out {
		out[i] = a.vec(c)
		for j := range out[i] {
			out[i][j].SetFloat64(m.At(i, j))
		}
	}
	return out
}

// learnHeads runs recovery on the odd part.
//
// TEMPORARY: until recovery.LearnBig lands (branch i13), this is the
// float64 recovery.Learn on G rounded to float64; its heads are accurate
// to about 1e-14, far from what phase B needs, so runs end in a C3/C2
// error. It is replaced by recovery.LearnBig at the run's precision.
func learnHeads(g func([][]*big.Float) *big.Float, ropt recovery.Options, a arith) (recovery.Result, error) {
	o := func(X *mat.Dense) float64 {
		r, c := X.Dims()
		seq := make([][]*big.Float, r)
		for i := range seq {
			seq[i] = a.vec(c)
			for j := range seq[i] {
				seq[i][j].SetFloat64(X.At(i, j))
			}
		}
		return float(g(seq))
	}
	return recovery.Learn(o, ropt)
}
