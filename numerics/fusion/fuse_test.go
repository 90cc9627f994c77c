package fusion

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// sharedKeyHeads returns H heads that all use the m keys e_1, …, e_m of
// R^m (integer keys, so every key sum is exact and generic: distinct
// multisets have distinct sums), each with its own random biases and values.
func sharedKeyHeads(m, heads int, rng *rand.Rand) []Head {
	out := make([]Head, heads)
	for h := range out {
		out[h] = make(Head, m)
		for i := range out[h] {
			k := make([]float64, m)
			k[i] = 1
			out[h][i] = Atom{Key: k, Bias: rng.NormFloat64(), Value: rng.NormFloat64()}
		}
	}
	return out
}

// closeTo reports |a−b| ≤ tol·(1 + |b|).
func closeTo(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

func TestFuseEqualsSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 0x1))
	for trial := 0; trial < 200; trial++ {
		d, H := 1+rng.IntN(4), 1+rng.IntN(4)
		heads := make([]Head, H)
		bound := 1
		for h := range heads {
			heads[h] = randomHead(1+rng.IntN(5), d, 1, rng)
			bound *= len(heads[h])
		}
		fused, err := Fuse(heads...)
		if err != nil {
			t.Fatal(err)
		}
		// Random real keys: no sums coincide, so nothing merges.
		if len(fused) != bound {
			t.Fatalf("trial %d: %d atoms, product bound %d", trial, len(fused), bound)
		}
		if err := fused.Validate(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			q := randomQuery(d, 2, rng)
			if got, want := fused.Output(q), SplitOutput(heads, q); !closeTo(got, want, 1e-12) {
				t.Fatalf("trial %d: fused %v, split %v", trial, got, want)
			}
		}
	}
}

// TestFuseLexOrder checks the documented atom order on a small case.
func TestFuseLexOrder(t *testing.T) {
	a := Head{{Key: []float64{1}, Bias: 1, Value: 10}, {Key: []float64{2}, Bias: 2, Value: 20}}
	b := Head{{Key: []float64{100}, Bias: 100, Value: 1000}, {Key: []float64{300}, Bias: 300, Value: 3000}, {Key: []float64{500}, Bias: 500, Value: 5000}}
	f, err := Fuse(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{101, 301, 501, 102, 302, 502}
	for i, w := range want {
		if f[i].Key[0] != w || f[i].Bias != w || f[i].Value != 10*w {
			t.Fatalf("atom %d = %+v, want key and bias %v, value %v", i, f[i], w, 10*w)
		}
	}
}

// TestFuseSharedKeys builds and merges heads that share keys and checks the
// count against SharedKeyCount = C(m+H−1, H) and the output against the sum.
func TestFuseSharedKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 0x1))
	for m := 1; m <= 5; m++ {
		for H := 1; H <= 5; H++ {
			heads := sharedKeyHeads(m, H, rng)
			fused, err := Fuse(heads...)
			if err != nil {
				t.Fatal(err)
			}
			want, err := SharedKeyCount(m, H)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(fused)) != want.Int64() {
				t.Errorf("m = %d, H = %d: %d atoms after merging, C(m+H−1, H) = %v", m, H, len(fused), want)
			}
			for i := 0; i < 4; i++ {
				q := randomQuery(m, 3, rng)
				if got, want := fused.Output(q), SplitOutput(heads, q); !closeTo(got, want, 1e-12) {
					t.Fatalf("m = %d, H = %d: fused %v, split %v", m, H, got, want)
				}
			}
		}
	}
}

// TestFuseGenericSharedKeys documents what exact-bit merging does with
// real-valued shared keys: two heads merge fully (addition commutes), three
// may keep a few near-duplicates whose sums rounded differently, and the
// output is exact either way.
func TestFuseGenericSharedKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 0x1))
	m, d := 6, 3
	keys := randomHead(m, d, 1, rng)
	heads := make([]Head, 3)
	for h := range heads {
		heads[h] = make(Head, m)
		for i := range heads[h] {
			heads[h][i] = Atom{Key: keys[i].Key, Bias: rng.NormFloat64(), Value: rng.NormFloat64()}
		}
	}
	two, err := Fuse(heads[0], heads[1])
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := SharedKeyCount(m, 2); int64(len(two)) != c.Int64() {
		t.Errorf("two heads with shared real keys: %d atoms, want %v", len(two), c)
	}
	three, err := Fuse(heads...)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := SharedKeyCount(m, 3); int64(len(three)) < c.Int64() || len(three) > m*m*m {
		t.Errorf("three heads: %d atoms, want between %v and %d", len(three), c, m*m*m)
	}
	for i := 0; i < 10; i++ {
		q := randomQuery(d, 3, rng)
		if got, want := three.Output(q), SplitOutput(heads, q); !closeTo(got, want, 1e-12) {
			t.Fatalf("fused %v, split %v", got, want)
		}
	}
}

// TestMerge checks the merged bias and value of identical keys exactly
// against their definition, including biases far apart.
func TestMerge(t *testing.T) {
	for _, b := range [][2]float64{{0, 0}, {1, -2}, {700, -700}, {1e4, 1e4 - 3}} {
		h := Head{
			{Key: []float64{1, -0.0}, Bias: b[0], Value: 2},
			{Key: []float64{5, 5}, Bias: 0, Value: 9},
			{Key: []float64{1, 0}, Bias: b[1], Value: -4}, // −0 and +0 are one key
		}
		f, err := Fuse(h)
		if err != nil {
			t.Fatal(err)
		}
		if len(f) != 2 || f[1].Key[0] != 5 {
			t.Fatalf("biases %v: merged head %+v", b, f)
		}
		hi, lo := math.Max(b[0], b[1]), math.Min(b[0], b[1])
		wantBias := hi + math.Log1p(math.Exp(lo-hi))
		p := 1 / (1 + math.Exp(b[1]-b[0])) // weight of the first atom
		wantValue := 2*p - 4*(1-p)
		if !closeTo(f[0].Bias, wantBias, 1e-15) || !closeTo(f[0].Value, wantValue, 1e-15) {
			t.Errorf("biases %v: merged (%v, %v), want (%v, %v)", b, f[0].Bias, f[0].Value, wantBias, wantValue)
		}
		q := []float64{0.3, -1.1}
		if b[0] < 1e3 && !closeTo(f.Output(q), h.Output(q), 1e-14) {
			t.Errorf("biases %v: merged output %v, original %v", b, f.Output(q), h.Output(q))
		}
	}
}

func TestFuseSigmoidSum(t *testing.T) {
	for d := 1; d <= 10; d++ {
		heads, err := SigmoidSum(d)
		if err != nil {
			t.Fatal(err)
		}
		fused, err := Fuse(heads...)
		if err != nil {
			t.Fatal(err)
		}
		if len(fused) != 1<<d {
			t.Fatalf("d = %d: %d atoms, want 2^d = %d", d, len(fused), 1<<d)
		}
		direct, err := SigmoidSumFused(d)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range fused {
			b := direct[i]
			if a.Bias != b.Bias || a.Value != b.Value || !equalKeys(a.Key, b.Key) {
				t.Fatalf("d = %d, atom %d: Fuse %+v, direct %+v", d, i, a, b)
			}
		}
	}
}

func TestFuseErrors(t *testing.T) {
	one := Head{{Key: []float64{1}, Value: 1}}
	two := Head{{Key: []float64{1, 2}, Value: 1}}
	cases := []struct {
		name  string
		heads []Head
	}{
		{"no heads", nil},
		{"empty head", []Head{one, {}}},
		{"two widths", []Head{one, two}},
		{"NaN key", []Head{one, {{Key: []float64{math.NaN()}}}}},
		{"Inf value", []Head{{{Key: []float64{0}, Value: math.Inf(-1)}}}},
		{"key overflow", []Head{{{Key: []float64{1e308}}}, {{Key: []float64{1e308}}}}},
		{"value overflow", []Head{{{Key: []float64{0}, Value: -1e308}}, {{Key: []float64{1}, Value: -1e308}}}},
		{"merged value overflow", []Head{{{Key: []float64{0}, Value: 1.5e308}, {Key: []float64{0}, Value: 1.5e308}}}},
	}
	for _, c := range cases {
		if f, err := Fuse(c.heads...); err == nil {
			t.Errorf("%s: Fuse = %v, want an error", c.name, f)
		} else if !strings.HasPrefix(err.Error(), "fusion: ") {
			t.Errorf("%s: error %q lacks the package prefix", c.name, err)
		}
	}
}

// allocated returns the bytes allocated while fn runs.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLimits checks that over-limit builds fail with a *LimitError naming
// the limit, before allocating the atoms (gigabytes here).
func TestLimits(t *testing.T) {
	w23, err := SigmoidSum(23)
	if err != nil {
		t.Fatal(err)
	}
	wide := make([]Head, 3)
	for h := range wide {
		wide[h] = randomHead(200, 1, 1, rand.New(rand.NewPCG(23, uint64(h))))
	}
	cases := []struct {
		name, limit string
		build       func() error
	}{
		{"Fuse of 23 W heads", "MaxAtoms", func() error { _, err := Fuse(w23...); return err }},
		{"Fuse of 200³ atoms", "MaxAtoms", func() error { _, err := Fuse(wide...); return err }},
		{"fused W_21", "MaxKeyEntries", func() error { _, err := SigmoidSumFlat(21); return err }},
		{"fused W_23", "MaxAtoms", func() error { _, err := SigmoidSumFused(23); return err }},
		{"fused W_60", "MaxAtoms", func() error { _, err := SigmoidSumFlat(60); return err }},
		{"SigmoidSum(10^5)", "MaxKeyEntries", func() error { _, err := SigmoidSum(100000); return err }},
	}
	for _, c := range cases {
		var err error
		bytes := allocated(func() { err = c.build() })
		if err == nil || !strings.Contains(err.Error(), c.limit) {
			t.Errorf("%s: error %v, want one naming %s", c.name, err, c.limit)
		}
		if bytes > 1<<20 {
			t.Errorf("%s: allocated %d bytes before refusing", c.name, bytes)
		}
	}
	_, err = Fuse(w23...)
	var le *LimitError
	if !errors.As(err, &le) || le.Atoms.Int64() != 1<<23 {
		t.Errorf("Fuse of 23 heads: %v, want a *LimitError for 2^23 atoms", err)
	}
}
