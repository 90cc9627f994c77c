package fusion

import (
	"headlab/numerics/internal/linalg"
	"headlab/numerics/internal/xmath"

	"errors"
	"fmt"
	"math"
)

// Atom is one explicit key–value entry of a head: it scores a query q by
// q·Key + Bias and contributes Value with the softmax weight of that score.
type Atom struct {
	Key   []float64
	Bias  float64
	Value float64
}

// Head is a softmax head given by its atoms (MATH.md §2):
//
//	y(q) = Σ_i xmath.Exp(q·k_i + b_i) u_i / Σ_i xmath.Exp(q·k_i + b_i).
//
// A head is valid when it has at least one atom, all keys have one length
// and every entry is finite; Validate says which atom is not.
type Head []Atom

// Dim returns the key length of the head's first atom, or 0 for an empty head.
func (h Head) Dim() int {
	if len(h) == 0 {
		return 0
	}
	return len(h[0].Key)
}

// Validate returns an error naming the first atom that makes h invalid: an
// empty head, a key whose length differs from the first atom's, or a
// non-finite key entry, bias or value.
func (h Head) Validate() error {
	if len(h) == 0 {
		return errors.New("fusion: head has no atoms")
	}
	d := len(h[0].Key)
	for i, a := range h {
		if len(a.Key) != d {
			return fmt.Errorf("fusion: atom %d has a key of length %d, atom 0 of length %d", i, len(a.Key), d)
		}
		for j, x := range a.Key {
			if !finite(x) {
				return fmt.Errorf("fusion: atom %d has key entry %d = %v", i, j, x)
			}
		}
		if !finite(a.Bias) || !finite(a.Value) {
			return fmt.Errorf("fusion: atom %d has bias %v and value %v, want finite", i, a.Bias, a.Value)
		}
	}
	return nil
}

// Output returns y(q), or NaN exactly when Eval(q) returns an error (an
// empty head, a key whose length is not len(q), or a non-finite score,
// value or result). It never panics.
//
// The softmax is stabilised by a reference score, raised whenever a score
// exceeds it by more than 32, so scores of ±1e4 (or ±1e300) give the
// weighted mean they should, with one exp per atom in a single pass.
func (h Head) Output(q []float64) float64 {
	y, f := h.eval(q)
	if f.kind != faultNone {
		return math.NaN()
	}
	return y
}

// Eval returns y(q), or an error saying why it is undefined in float64: an
// empty head, a key whose length is not len(q), a score q·k_i + b_i or a
// value u_i that is NaN or ±Inf (a NaN or ±Inf query entry shows up here),
// or a weighted sum that overflows.
func (h Head) Eval(q []float64) (float64, error) {
	y, f := h.eval(q)
	return y, f.err(len(q))
}

func (h Head) eval(q []float64) (float64, fault) {
	if len(h) == 0 {
		return math.NaN(), fault{kind: faultEmpty}
	}
	acc := newLSE()
	for i, a := range h {
		if len(a.Key) != len(q) {
			return math.NaN(), fault{kind: faultLength, atom: i, n: len(a.Key)}
		}
		s := linalg.Dot(a.Key, q) + a.Bias
		if !finite(s) || !finite(a.Value) {
			return math.NaN(), fault{kind: faultNonFinite, atom: i, score: s, value: a.Value}
		}
		acc.add(s, a.Value)
	}
	return acc.result()
}

// Weights writes the softmax weight of every atom at q into dst and returns
// it; dst is reused when its capacity suffices and allocated otherwise. The
// weights are all NaN exactly when Eval(q) would fail on a length or a
// non-finite score (values are not needed and not checked).
func (h Head) Weights(dst, q []float64) []float64 {
	dst = resize(dst, len(h))
	ok := len(h) > 0
	for i, a := range h {
		if !ok {
			break
		}
		if len(a.Key) != len(q) {
			ok = false
			break
		}
		dst[i] = linalg.Dot(a.Key, q) + a.Bias
	}
	if !ok || !softmaxInPlace(dst) {
		fillNaN(dst)
	}
	return dst
}

// SplitOutput returns the split evaluation Σ_h y_h(q) of a multi-head layer,
// at a cost of Σ_h m_h·d. It is NaN when any head's Output is NaN, when
// heads is empty, or when the sum overflows.
func SplitOutput(heads []Head, q []float64) float64 {
	if len(heads) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, h := range heads {
		sum += h.Output(q)
	}
	if !finite(sum) {
		return math.NaN()
	}
	return sum
}

// lazyGap is how far a score may exceed the reference before the running
// sums are rescaled. Weights stay ≤ e^32 ≈ 8e13, so even MaxAtoms of them
// sum far below overflow, and rescaling happens at most once per 32 units
// of score range instead of whenever a new maximum appears.
const lazyGap = 32

// lse accumulates Σ w_i and Σ w_i u_i with w_i = xmath.Exp(s_i − m), m a reference
// score raised lazily; the head's output is num/den.
type lse struct{ m, num, den float64 }

func newLSE() lse { return lse{m: math.Inf(-1)} }

func (a *lse) add(s, u float64) {
	if s > a.m+lazyGap {
		r := xmath.Exp(a.m - s)
		a.num *= r
		a.den *= r
		a.m = s
	}
	w := xmath.Exp(s - a.m)
	a.den += w
	a.num += float64(w * u)
}

// result returns num/den; den ≥ 1 because the atom that last raised the
// reference has weight at least 1.
func (a *lse) result() (float64, fault) {
	y := a.num / a.den
	if !finite(y) {
		return math.NaN(), fault{kind: faultOverflow}
	}
	return y, fault{}
}

// softmaxInPlace replaces scores by their softmax (max subtracted first). It
// reports false when a score is not finite.
func softmaxInPlace(s []float64) bool {
	m := math.Inf(-1)
	for _, x := range s {
		if !finite(x) {
			return false
		}
		m = math.Max(m, x)
	}
	var z float64
	for i, x := range s {
		w := xmath.Exp(x - m)
		s[i] = w
		z += w
	}
	for i := range s {
		s[i] /= z
	}
	return true
}

type faultKind uint8

const (
	faultNone faultKind = iota
	faultEmpty
	faultLength
	faultNonFinite
	faultOverflow
	faultShape
)

// fault records why an evaluation failed without allocating; err formats it
// only when a caller asks for an error.
type fault struct {
	kind         faultKind
	atom, n      int
	score, value float64
}

func (f fault) err(lenQ int) error {
	switch f.kind {
	case faultNone:
		return nil
	case faultEmpty:
		return errors.New("fusion: head has no atoms")
	case faultLength:
		return fmt.Errorf("fusion: atom %d has a key of length %d, query has length %d", f.atom, f.n, lenQ)
	case faultNonFinite:
		return fmt.Errorf("fusion: atom %d has score q·k+b = %v and value %v, want finite", f.atom, f.score, f.value)
	case faultOverflow:
		return errors.New("fusion: weighted sum of values overflows float64")
	default:
		return errors.New("fusion: flat head has inconsistent lengths of Keys, Bias, Value and Dim")
	}
}

func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func fillNaN(s []float64) {
	for i := range s {
		s[i] = math.NaN()
	}
}
