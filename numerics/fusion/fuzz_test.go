package fusion

import (
	"encoding/binary"
	"math"
	"testing"
)

// floats decodes data as little-endian float64s (any bit pattern, so NaN,
// ±Inf, subnormals and huge values all occur).
func floats(data []byte) []float64 {
	x := make([]float64, len(data)/8)
	for i := range x {
		x[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return x
}

// fuzzHeads builds up to three heads from shape bytes and a pool of numbers:
// shape[0] is the key length (0–3), each further shape byte one head's atom
// count (0–5), and every atom's key length is perturbed by shape bits so
// that mismatched lengths occur.
func fuzzHeads(shape []byte, pool []float64) (heads []Head, d int) {
	next := func(i *int) float64 {
		if len(pool) == 0 {
			return 0
		}
		x := pool[*i%len(pool)]
		*i++
		return x
	}
	if len(shape) == 0 {
		return nil, 0
	}
	d = int(shape[0] % 4)
	mismatch := shape[0]&0x80 != 0
	p := 0
	for h := 1; h < len(shape) && h <= 3; h++ {
		head := make(Head, shape[h]%6)
		for i := range head {
			kd := d
			if mismatch && i == 1 {
				kd++
			}
			key := make([]float64, kd)
			for j := range key {
				key[j] = next(&p)
			}
			head[i] = Atom{Key: key, Bias: next(&p), Value: next(&p)}
		}
		heads = append(heads, head)
	}
	return heads, d
}

func seedCorpus(f *testing.F) {
	le := func(xs ...float64) []byte {
		b := make([]byte, 8*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		return b
	}
	nan, inf := math.NaN(), math.Inf(1)
	f.Add([]byte{2, 3, 2}, le(0.5, -1, 2, 0.1, 3, 1e4, -1e4, 0, 7))
	f.Add([]byte{1, 2, 2, 2}, le(1, 0, 1, 0, 0, 0))
	f.Add([]byte{2, 4}, le(nan, 1, inf, -inf, 0, 1e308, -1e308))
	f.Add([]byte{3, 0, 3}, le(1e300, 1e300, -1e300, 5e-324, 2))
	f.Add([]byte{0x82, 3, 1}, le(1, 2, 3, 4, 5, 6, 7))
	f.Add([]byte{}, []byte{})
	f.Add([]byte{1, 5, 5, 5}, le(1e200, -3, 1e-200, 0.25))
	// Found by fuzzing: two identical atoms whose merged value overflowed.
	f.Add([]byte("02"), []byte("000000\xea\x7f"))
}

// FuzzOutput checks Head.Output, Eval, Weights and Flat on hostile heads:
// never a panic; NaN exactly with an error; otherwise a finite weighted
// mean, inside [min u, max u] up to rounding, the same bits from Flat.
func FuzzOutput(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, shape, data []byte) {
		pool := floats(data)
		heads, d := fuzzHeads(shape, pool)
		q := make([]float64, d)
		for j := range q {
			if len(pool) > 0 {
				q[j] = pool[(j*7+3)%len(pool)]
			}
		}
		for _, h := range heads {
			y, err := h.Eval(q)
			out := h.Output(q)
			w := h.Weights(nil, q)
			if len(w) != len(h) {
				t.Fatalf("%d weights for %d atoms", len(w), len(h))
			}
			if err != nil {
				if !math.IsNaN(out) {
					t.Fatalf("Eval error %v but Output %v", err, out)
				}
				continue
			}
			if out != y || !finite(y) {
				t.Fatalf("Eval %v, Output %v", y, out)
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, a := range h {
				lo, hi = math.Min(lo, a.Value), math.Max(hi, a.Value)
			}
			slack := 1e-12 * math.Max(math.Abs(lo), math.Abs(hi))
			if y < lo-slack || y > hi+slack {
				t.Fatalf("y = %v outside the values' range [%v, %v]", y, lo, hi)
			}
			var sum float64
			for _, x := range w {
				sum += x
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("weights sum to %v", sum)
			}
			if flat, err := NewFlat(h); err == nil && flat.Output(q) != y {
				t.Fatalf("Flat %v, Head %v", flat.Output(q), y)
			}
		}
		if s := SplitOutput(heads, q); !math.IsNaN(s) && !finite(s) {
			t.Fatalf("SplitOutput = %v", s)
		}
	})
}

// FuzzFuse checks Fuse on hostile heads: an error, or a valid head with at
// most Π m_h atoms that agrees with the split sum wherever the inputs are
// tame enough for a tolerance to mean something.
func FuzzFuse(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, shape, data []byte) {
		pool := floats(data)
		heads, d := fuzzHeads(shape, pool)
		fused, err := Fuse(heads...)
		if err != nil {
			return
		}
		if err := fused.Validate(); err != nil {
			t.Fatalf("fused head invalid: %v", err)
		}
		bound := 1
		tame := true
		for _, h := range heads {
			bound *= len(h)
			for _, a := range h {
				for _, x := range append([]float64{a.Bias, a.Value}, a.Key...) {
					tame = tame && math.Abs(x) <= 10
				}
			}
		}
		if len(fused) > bound || fused.Dim() != d {
			t.Fatalf("%d atoms of width %d, product bound %d, width %d", len(fused), fused.Dim(), bound, d)
		}
		if !tame {
			return
		}
		q := make([]float64, d)
		for j := range q {
			q[j] = float64(j) - 0.5
		}
		got, want := fused.Output(q), SplitOutput(heads, q)
		if math.Abs(got-want) > 1e-11*(1+math.Abs(want)) {
			t.Fatalf("fused %v, split %v", got, want)
		}
	})
}
