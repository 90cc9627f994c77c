package fusion

import "fmt"

// SigmoidSum returns the d two-atom heads of W_d(q) = Σ_j σ(q_j) (MATH.md
// §2): head j has the atoms (e_j, 0, 1) and (0, 0, 0), so its output is
// σ(q_j). It fails for d < 1 or when the 2d keys of length d would exceed
// MaxKeyEntries.
func SigmoidSum(d int) ([]Head, error) {
	if d < 1 {
		return nil, fmt.Errorf("fusion: SigmoidSum(d = %d), want d ≥ 1", d)
	}
	if d > MaxKeyEntries/(2*d) {
		return nil, fmt.Errorf("fusion: SigmoidSum(d = %d) needs 2d² key entries, over the limit MaxKeyEntries = %d", d, MaxKeyEntries)
	}
	keys := make([]float64, 2*d*d)
	heads := make([]Head, d)
	for j := range heads {
		in := keys[2*j*d : 2*j*d+d : 2*j*d+d]
		out := keys[2*j*d+d : 2*j*d+2*d : 2*j*d+2*d]
		in[j] = 1
		heads[j] = Head{{Key: in, Value: 1}, {Key: out}}
	}
	return heads, nil
}

// SigmoidSumFlat builds the fused W_d head directly, without pairwise
// products: the 2^d atoms (1_S, 0, |S|), in the order Fuse gives them for
// SigmoidSum(d) (atom t leaves j out of S exactly when bit d−1−j of t is
// set), with identical bits. It fails for d < 1 and, before allocating,
// with a *LimitError beyond MaxAtoms or MaxKeyEntries (d > 20).
func SigmoidSumFlat(d int) (Flat, error) {
	count, err := SigmoidSumCount(d)
	if err != nil {
		return Flat{}, err
	}
	if err := checkLimit(fmt.Sprintf("fused W_d at d = %d", d), count, d); err != nil {
		return Flat{}, err
	}
	n := 1 << d
	f := Flat{Dim: d, Keys: make([]float64, n*d), Bias: make([]float64, n), Value: make([]float64, n)}
	for t := 0; t < n; t++ {
		key := f.Keys[t*d : t*d+d]
		size := 0
		for j := range key {
			if t>>(d-1-j)&1 == 0 {
				key[j] = 1
				size++
			}
		}
		f.Value[t] = float64(size)
	}
	return f, nil
}

// SigmoidSumFused is SigmoidSumFlat as a Head.
func SigmoidSumFused(d int) (Head, error) {
	f, err := SigmoidSumFlat(d)
	if err != nil {
		return nil, err
	}
	return f.Head(), nil
}

// SigmoidSumValue returns W_d(q) = Σ_j σ(q_j) for d = len(q) in O(d), the
// floor that the 2^d-atom head computes explicitly. It is NaN when an entry
// of q is NaN.
func SigmoidSumValue(q []float64) float64 {
	var s float64
	for _, x := range q {
		s += Sigmoid(x)
	}
	return s
}

// PoissonBinomial returns P(Σ_j B_j = s), s = 0…len(p), for independent
// Bernoulli(p_j): the attention mass the fused W_d head puts on the atoms
// with |S| = s (MATH.md §2). It is computed by the O(d²) recursion over j, which never
// subtracts and so keeps every entry to a few ulps.
func PoissonBinomial(p []float64) []float64 {
	out := make([]float64, len(p)+1)
	out[0] = 1
	for j, pj := range p {
		for s := j + 1; s >= 1; s-- {
			out[s] = float64(out[s]*(1-pj)) + float64(out[s-1]*pj)
		}
		out[0] *= 1 - pj
	}
	return out
}
