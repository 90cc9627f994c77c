package transformer

import (
	"fmt"
	"math/big"

	"headlab/numerics/internal/bigmath"
)

// attend returns head W's weighted token mean φ = Xᵀ softmax(X W x_N) at
// prec. Scores are shifted by their largest so every exp is of a number
// ≤ 0, and a score equal to the previous one reuses its exp (an n-copy
// query has two distinct scores).
func (a arith) attend(W [][]*big.Float, X [][]*big.Float) []*big.Float {
	d := len(W)
	last := X[len(X)-1]
	wz := make([]*big.Float, d)
	for i := 0; i < d; i++ {
		wz[i] = a.dot(W[i], last)
	}
	s := make([]*big.Float, len(X))
	top := (*big.Float)(nil)
	for i, x := range X {
		s[i] = a.dot(x, wz)
		if top == nil || s[i].Cmp(top) > 0 {
			top = s[i]
		}
	}
	e := make([]*big.Float, len(X))
	total := a.zero()
	for i := range X {
		if i > 0 && s[i].Cmp(s[i-1]) == 0 {
			e[i] = e[i-1]
		} else {
			e[i] = bigmath.Exp(a.zero(), a.sub(s[i], top))
		}
		total.Add(total, e[i])
	}
	phi := a.vec(d)
	t := a.zero()
	for i, x := range X {
		for j := 0; j < d; j++ {
			t.Mul(e[i], x[j])
			phi[j].Add(phi[j], t)
		}
	}
	for j := range phi {
		phi[j].Quo(phi[j], total)
	}
	return phi
}

// features returns φ(X) = (φ_1, …, φ_H[, x_N]) ∈ R^{(H[+1])d}: the heads'
// weighted token means, then the query token when the residual is on.
func (a arith) features(W [][][]*big.Float, residual bool, X [][]*big.Float) []*big.Float {
	var phi []*big.Float
	for _, w := range W {
		phi = append(phi, a.attend(w, X)...)
	}
	if residual {
		phi = append(phi, a.copyVec(X[len(X)-1])...)
	}
	return phi
}

// checkSequence rejects what no oracle should be asked: an empty sequence,
// tokens of the wrong width, non-finite entries.
func checkSequence(X [][]*big.Float, d int) error {
	if len(X) == 0 {
		return fmt.Errorf("transformer: empty sequence")
	}
	for i, x := range X {
		if len(x) != d {
			return fmt.Errorf("transformer: token %d has width %d, want %d", i, len(x), d)
		}
		for _, v := range x {
			if v == nil || v.IsInf() {
				return fmt.Errorf("transformer: token %d has a missing or infinite entry", i)
			}
		}
	}
	return nil
}
