package fusion

import (
	"headlab/numerics/internal/linalg"
	"headlab/numerics/internal/xmath"

	"math"
)

// Flat is a head stored as a struct of arrays: one slice of all keys, one of
// biases and one of values. It holds the same function as a Head in far less
// memory (no per-atom slice headers) and evaluates it faster, which is what
// an interactive view of a fused head with 2^20 atoms needs.
//
// A Flat is consistent when len(Bias) == len(Value) == n and
// len(Keys) == n·Dim; methods on an inconsistent Flat report an error (or
// NaN) and never panic.
type Flat struct {
	// Dim is the key length d.
	Dim int
	// Keys holds atom i's key in Keys[i*Dim : (i+1)*Dim].
	Keys []float64
	// Bias holds atom i's bias b_i.
	Bias []float64
	// Value holds atom i's value u_i.
	Value []float64
}

// NewFlat copies a valid head into a Flat. It returns Validate's error for an
// invalid one.
func NewFlat(h Head) (Flat, error) {
	if err := h.Validate(); err != nil {
		return Flat{}, err
	}
	d := h.Dim()
	f := Flat{
		Dim:   d,
		Keys:  make([]float64, len(h)*d),
		Bias:  make([]float64, len(h)),
		Value: make([]float64, len(h)),
	}
	for i, a := range h {
		copy(f.Keys[i*d:], a.Key)
		f.Bias[i] = a.Bias
		f.Value[i] = a.Value
	}
	return f, nil
}

// Len returns the number of atoms, len(f.Bias).
func (f Flat) Len() int { return len(f.Bias) }

// consistent reports whether the slices' lengths agree with Dim.
func (f Flat) consistent() bool {
	n := len(f.Bias)
	if len(f.Value) != n || f.Dim < 0 {
		return false
	}
	if f.Dim == 0 {
		return len(f.Keys) == 0
	}
	return len(f.Keys)%f.Dim == 0 && len(f.Keys)/f.Dim == n
}

// Head returns the atoms of f as a Head whose keys alias f.Keys (each capped
// at its own length, so appending to one never touches another).
func (f Flat) Head() Head {
	if !f.consistent() {
		return nil
	}
	h := make(Head, f.Len())
	d := f.Dim
	for i := range h {
		h[i] = Atom{Key: f.Keys[i*d : (i+1)*d : (i+1)*d], Bias: f.Bias[i], Value: f.Value[i]}
	}
	return h
}

// Output returns y(q) with exactly the arithmetic of Head.Output, so the two
// agree bit for bit; NaN exactly when Eval(q) returns an error.
//
// The evaluation is explicit: one dot product and one exp per atom, O(n·d),
// using nothing about the keys but their entries.
func (f Flat) Output(q []float64) float64 {
	y, flt := f.eval(q)
	if flt.kind != faultNone {
		return math.NaN()
	}
	return y
}

// Eval returns y(q), or an error for an inconsistent or empty Flat, a query
// whose length is not Dim, or the non-finite cases of Head.Eval.
func (f Flat) Eval(q []float64) (float64, error) {
	y, flt := f.eval(q)
	return y, flt.err(len(q))
}

func (f Flat) eval(q []float64) (float64, fault) {
	if !f.consistent() {
		return math.NaN(), fault{kind: faultShape}
	}
	n, d := f.Len(), f.Dim
	if n == 0 {
		return math.NaN(), fault{kind: faultEmpty}
	}
	if len(q) != d {
		return math.NaN(), fault{kind: faultLength, n: d}
	}
	keys, bias, value := f.Keys[:n*d], f.Bias[:n], f.Value[:n]
	acc := newLSE()
	i := 0
	// Four atoms at a time: their dot products are independent chains the
	// processor overlaps. Each score is still summed exactly as dot does
	// (j ascending from 0, then the bias), so the bits equal Head.Output's.
	for ; i+4 <= n; i += 4 {
		k0 := keys[i*d : i*d+d][:len(q)]
		k1 := keys[(i+1)*d : (i+1)*d+d][:len(q)]
		k2 := keys[(i+2)*d : (i+2)*d+d][:len(q)]
		k3 := keys[(i+3)*d : (i+3)*d+d][:len(q)]
		var s0, s1, s2, s3 float64
		for j, x := range q {
			s0 += float64(k0[j] * x)
			s1 += float64(k1[j] * x)
			s2 += float64(k2[j] * x)
			s3 += float64(k3[j] * x)
		}
		s := [4]float64{s0 + bias[i], s1 + bias[i+1], s2 + bias[i+2], s3 + bias[i+3]}
		for a, sa := range s {
			u := value[i+a]
			if !finite(sa) || !finite(u) {
				return math.NaN(), fault{kind: faultNonFinite, atom: i + a, score: sa, value: u}
			}
			// acc.add(sa, u) written out: the rescale is rare, and x ≤ lazyGap.
			if sa > acc.m+lazyGap {
				r := xmath.Exp(acc.m - sa)
				acc.num *= r
				acc.den *= r
				acc.m = sa
			}
			w := xmath.Exp(sa - acc.m)
			acc.den += w
			acc.num += float64(w * u)
		}
	}
	for ; i < n; i++ {
		s := linalg.Dot(keys[i*d:i*d+d], q) + bias[i]
		u := value[i]
		if !finite(s) || !finite(u) {
			return math.NaN(), fault{kind: faultNonFinite, atom: i, score: s, value: u}
		}
		acc.add(s, u)
	}
	return acc.result()
}

// Weights writes the softmax weight of every atom at q into dst and returns
// it, reusing dst when its capacity suffices; all NaN when f is inconsistent
// or empty, len(q) ≠ Dim, or a score is not finite.
func (f Flat) Weights(dst, q []float64) []float64 {
	n, d := f.Len(), f.Dim
	dst = resize(dst, n)
	if !f.consistent() || n == 0 || len(q) != d {
		fillNaN(dst)
		return dst
	}
	for i := range dst {
		dst[i] = linalg.Dot(f.Keys[i*d:i*d+d], q) + f.Bias[i]
	}
	if !softmaxInPlace(dst) {
		fillNaN(dst)
	}
	return dst
}
