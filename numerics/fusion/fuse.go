package fusion

import (
	"headlab/numerics/internal/xmath"

	"errors"
	"fmt"
	"math"
	"strings"
)

// Fuse returns one head equal to the sum of heads, Σ_h y_h(q) for every q:
// the product construction of MATH.md §2, whose atoms are the tuples
// (i_1, …, i_H) with key Σ_h k_{h,i_h}, bias Σ_h b_{h,i_h} and value
// Σ_h u_{h,i_h}, with atoms of identical keys merged exactly (bias
// log Σ e^{b}, value the e^{b}-weighted mean, both computed stably).
//
// Order. Atoms come in lexicographic order of their tuples, head 0's index
// most significant; a merged atom takes the place of its first tuple. The
// heads are folded left to right and duplicates merged after every step
// (this keeps shared-key fusions small), so a key is summed as
// ((k_{0,i_0} + k_{1,i_1}) + k_{2,i_2}) + …. Fuse of a single head merges
// that head's duplicate keys.
//
// Merging compares keys bit for bit (−0 equals +0); it never merges keys
// that are merely close, because that would change the function. Keys that
// are equal in exact arithmetic but summed in different orders can differ in
// the last bit and then stay separate atoms: the output is still exact, only
// the count is higher. Two heads always merge fully (a+b = b+a exactly); for
// H ≥ 3 heads sharing keys, use keys whose sums are exact in float64
// (integers, or dyadic rationals of modest size) to reach the multiset count
// C(m+H−1, H) of SharedKeyCount.
//
// Fuse fails for no heads, an invalid head (see Head.Validate), heads of
// different key lengths, a fused key, bias or value that overflows float64,
// and with a *LimitError, before allocating, when the product bound Π m_h
// exceeds MaxAtoms or Π m_h·d exceeds MaxKeyEntries (the bound is the only
// count known before building; merging may end far below it).
func Fuse(heads ...Head) (Head, error) {
	f, err := fuseFlat(heads)
	if err != nil {
		return nil, err
	}
	return f.Head(), nil
}

func fuseFlat(heads []Head) (Flat, error) {
	if len(heads) == 0 {
		return Flat{}, errors.New("fusion: Fuse of no heads")
	}
	for i, h := range heads {
		if err := h.Validate(); err != nil {
			return Flat{}, fmt.Errorf("fusion: Fuse head %d: %s", i, strings.TrimPrefix(err.Error(), "fusion: "))
		}
		if h.Dim() != heads[0].Dim() {
			return Flat{}, fmt.Errorf("fusion: Fuse head %d has keys of length %d, head 0 of length %d", i, h.Dim(), heads[0].Dim())
		}
	}
	bound, err := ProductCount(Sizes(heads...)...)
	if err != nil {
		return Flat{}, fmt.Errorf("fusion: Fuse: %s", strings.TrimPrefix(err.Error(), "fusion: "))
	}
	if err := checkLimit(fmt.Sprintf("Fuse of %d heads (product bound)", len(heads)), bound, heads[0].Dim()); err != nil {
		return Flat{}, err
	}
	acc, err := NewFlat(heads[0])
	if err != nil {
		return Flat{}, err
	}
	if acc, err = merge(acc); err != nil {
		return Flat{}, fmt.Errorf("fusion: Fuse of head 0: %w", err)
	}
	for h := 1; h < len(heads); h++ {
		next, err := NewFlat(heads[h])
		if err != nil {
			return Flat{}, err
		}
		acc, err = product(acc, next)
		if err != nil {
			return Flat{}, fmt.Errorf("fusion: Fuse of heads 0..%d: %w", h, err)
		}
		if acc, err = merge(acc); err != nil {
			return Flat{}, fmt.Errorf("fusion: Fuse of heads 0..%d: %w", h, err)
		}
	}
	return acc, nil
}

// product returns the product construction of two consistent Flats of one
// Dim: atom a·m + i is (key_a + key_i, bias_a + bias_i, value_a + value_i).
func product(a, b Flat) (Flat, error) {
	na, nb, d := a.Len(), b.Len(), a.Dim
	n := na * nb
	out := Flat{Dim: d, Keys: make([]float64, n*d), Bias: make([]float64, n), Value: make([]float64, n)}
	for i := 0; i < na; i++ {
		ka := a.Keys[i*d : i*d+d]
		for j := 0; j < nb; j++ {
			t := i*nb + j
			kb := b.Keys[j*d : j*d+d]
			kt := out.Keys[t*d : t*d+d]
			for c := range kt {
				kt[c] = ka[c] + kb[c]
			}
			out.Bias[t] = a.Bias[i] + b.Bias[j]
			out.Value[t] = a.Value[i] + b.Value[j]
			for c, x := range kt {
				if !finite(x) {
					return Flat{}, fmt.Errorf("fused atom %d has key entry %d = %v (overflow)", t, c, x)
				}
			}
			if !finite(out.Bias[t]) || !finite(out.Value[t]) {
				return Flat{}, fmt.Errorf("fused atom %d has bias %v and value %v (overflow)", t, out.Bias[t], out.Value[t])
			}
		}
	}
	return out, nil
}

// merge returns f with atoms of identical keys merged, each group in the
// place of its first atom; f itself when all keys are distinct. A group with
// biases b_i and values u_i becomes bias m + log Σ e^{b_i−m} and value
// Σ e^{b_i−m} u_i / Σ e^{b_i−m}, m = max b_i, summed in atom order. It
// fails when a weighted sum of values overflows (values near ±1.8e308).
func merge(f Flat) (Flat, error) {
	n, d := f.Len(), f.Dim
	if n < 2 {
		return f, nil
	}
	size := 2
	for size < 2*n {
		size *= 2
	}
	mask := uint64(size - 1)
	// table holds 1 + the first atom of a group (0: empty); group[i] is the
	// group of atom i; first[g] is group g's first atom. Open addressing with
	// linear probing, in atom order: deterministic on every platform.
	table := make([]int32, size)
	group := make([]int32, n)
	first := make([]int32, 0, n)
	for i := 0; i < n; i++ {
		key := f.Keys[i*d : i*d+d]
		slot := hashKey(key) & mask
		for {
			r := table[slot]
			if r == 0 {
				table[slot] = int32(i) + 1
				group[i] = int32(len(first))
				first = append(first, int32(i))
				break
			}
			j := int(r - 1)
			if equalKeys(key, f.Keys[j*d:j*d+d]) {
				group[i] = group[j]
				break
			}
			slot = (slot + 1) & mask
		}
	}
	g := len(first)
	if g == n {
		return f, nil
	}
	out := Flat{Dim: d, Keys: make([]float64, g*d), Bias: make([]float64, g), Value: make([]float64, g)}
	top := out.Bias // the largest bias of each group, then the merged bias
	for k, i := range first {
		copy(out.Keys[k*d:k*d+d], f.Keys[int(i)*d:int(i)*d+d])
		top[k] = math.Inf(-1)
	}
	for i, k := range group {
		top[k] = math.Max(top[k], f.Bias[i])
	}
	z := make([]float64, g)
	num := out.Value
	for i, k := range group {
		w := xmath.Exp(f.Bias[i] - top[k])
		z[k] += w
		num[k] += float64(w * f.Value[i])
	}
	for k := range out.Bias {
		out.Value[k] = num[k] / z[k]
		out.Bias[k] = top[k] + xmath.Log(z[k])
		if !finite(out.Value[k]) {
			return Flat{}, fmt.Errorf("merged atom %d: the weighted sum of its values overflows float64", k)
		}
	}
	return out, nil
}

// hashKey mixes the bits of a key's entries, −0 read as +0.
func hashKey(key []float64) uint64 {
	h := uint64(0x9E3779B97F4A7C15)
	for _, x := range key {
		b := math.Float64bits(x)
		if b == 1<<63 {
			b = 0
		}
		h ^= b
		h *= 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	h ^= h >> 29
	h *= 0x94D049BB133111EB
	h ^= h >> 32
	return h
}

func equalKeys(a, b []float64) bool {
	b = b[:len(a)]
	for i, x := range a {
		if x != b[i] {
			return false
		}
	}
	return true
}
