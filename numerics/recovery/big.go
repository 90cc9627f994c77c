package recovery

import (
	"math/big"

	"headlab/numerics/attention"
	"headlab/numerics/internal/bigmath"
	"headlab/numerics/internal/linalg"
)

// BigOracle answers a value query in extended precision: X[i] is token i
// (of length d), the last token the query, every entry at the run's
// precision, and the answer is at that precision. The learner passes the
// same slice for repeated tokens and never modifies X; the oracle must not
// either.
type BigOracle func(X [][]*big.Float) *big.Float

// BigHead is one canonical head at the working precision.
type BigHead struct {
	W [][]*big.Float // d×d, W[i][j]
	V []*big.Float   // d
}

// BigLayerOracle returns the exact oracle of a float64 layer evaluated at
// prec bits (MATH.md §1): every score, exponential and sum rounded to prec
// bits, the softmax in its stable form. Equal tokens of a query (the copies
// of a token, passed as one slice) share their score and exponential, so an
// n-copy query costs one Exp per head. The oracle is safe for concurrent
// use.
func BigLayerOracle(l attention.Layer, prec uint) BigOracle {
	return BigBiasedOracle(attention.Biased{Layer: l}, prec)
}

// BigBiasedOracle is BigLayerOracle for a layer with biases: the scores
// are x_iᵀ(W_h x_N + c_h) and the output has the constant C added last.
// Without biases its answers are BigLayerOracle's, bit for bit.
func BigBiasedOracle(b attention.Biased, prec uint) BigOracle {
	l := b.Layer
	d := l.Width()
	type head struct {
		w [][]*big.Float
		v []*big.Float
		c []*big.Float // nil without biases
	}
	hs := make([]head, len(l))
	for h, hd := range l {
		hs[h].w = make([][]*big.Float, d)
		hs[h].v = make([]*big.Float, d)
		if b.QueryBias != nil {
			hs[h].c = make([]*big.Float, d)
			for i := range hs[h].c {
				hs[h].c[i] = new(big.Float).SetPrec(prec).SetFloat64(b.QueryBias[h][i])
			}
		}
		for i := 0; i < d; i++ {
			hs[h].w[i] = make([]*big.Float, d)
			for j := 0; j < d; j++ {
				hs[h].w[i][j] = new(big.Float).SetPrec(prec).SetFloat64(hd.W.At(i, j))
			}
			hs[h].v[i] = new(big.Float).SetPrec(prec).SetFloat64(hd.V.AtVec(i))
		}
	}
	return func(X [][]*big.Float) *big.Float {
		out := new(big.Float).SetPrec(prec)
		N := len(X)
		if N == 0 {
			return out
		}
		q := X[N-1]
		// Distinct tokens (by identity, then by value) and their counts.
		var tok [][]*big.Float
		var cnt []int64
	next:
		for _, x := range X {
			for k, t := range tok {
				if sameToken(t, x) {
					cnt[k]++
					continue next
				}
			}
			tok, cnt = append(tok, x), append(cnt, 1)
		}
		wq := make([]*big.Float, d)
		s := make([]*big.Float, len(tok))
		vx := make([]*big.Float, len(tok))
		t := new(big.Float).SetPrec(prec)
		num := new(big.Float).SetPrec(prec)
		den := new(big.Float).SetPrec(prec)
		e := new(big.Float).SetPrec(prec)
		for _, hd := range hs {
			for i := 0; i < d; i++ {
				wq[i] = linalg.DotBig(prec, hd.w[i], q)
				if hd.c != nil {
					wq[i].Add(wq[i], hd.c[i])
				}
			}
			m := -1
			for k, x := range tok {
				s[k] = linalg.DotBig(prec, x, wq)
				vx[k] = linalg.DotBig(prec, hd.v, x)
				if m < 0 || s[k].Cmp(s[m]) > 0 {
					m = k
				}
			}
			num.SetInt64(0)
			den.SetInt64(0)
			for k := range tok {
				if k == m {
					e.SetInt64(1)
				} else {
					bigmath.Exp(e, t.Sub(s[k], s[m]))
				}
				e.Mul(e, t.SetInt64(cnt[k]))
				den.Add(den, e)
				num.Add(num, e.Mul(e, vx[k]))
			}
			out.Add(out, num.Quo(num, den))
		}
		if b.Const != 0 {
			out.Add(out, new(big.Float).SetPrec(prec).SetFloat64(b.Const))
		}
		return out
	}
}

// sameToken reports whether two tokens are equal (the same slice, or equal
// entries).
func sameToken(a, b []*big.Float) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) > 0 && &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i].Cmp(b[i]) != 0 {
			return false
		}
	}
	return true
}
