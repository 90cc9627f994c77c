package fusion

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomHead returns a head of m atoms with keys, biases and values drawn
// from N(0, scale²).
func randomHead(m, d int, scale float64, rng *rand.Rand) Head {
	h := make(Head, m)
	for i := range h {
		k := make([]float64, d)
		for j := range k {
			k[j] = scale * rng.NormFloat64()
		}
		h[i] = Atom{Key: k, Bias: scale * rng.NormFloat64(), Value: rng.NormFloat64()}
	}
	return h
}

func randomQuery(d int, scale float64, rng *rand.Rand) []float64 {
	q := make([]float64, d)
	for j := range q {
		q[j] = scale * rng.NormFloat64()
	}
	return q
}

// naiveOutput evaluates y(q) without stabilisation, for moderate scores.
func naiveOutput(h Head, q []float64) float64 {
	var num, den float64
	for _, a := range h {
		s := a.Bias
		for j, k := range a.Key {
			s += k * q[j]
		}
		w := math.Exp(s)
		num += w * a.Value
		den += w
	}
	return num / den
}

func TestOutputMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 0x1))
	for trial := 0; trial < 300; trial++ {
		d, m := 1+rng.IntN(5), 1+rng.IntN(40)
		h := randomHead(m, d, 1, rng)
		q := randomQuery(d, 1, rng)
		got, err := h.Eval(q)
		if err != nil {
			t.Fatal(err)
		}
		if want := naiveOutput(h, q); math.Abs(got-want) > 1e-13*(1+math.Abs(want)) {
			t.Fatalf("trial %d: Output %v, definition %v", trial, got, want)
		}
		if h.Output(q) != got {
			t.Fatalf("trial %d: Output %v and Eval %v differ", trial, h.Output(q), got)
		}
		// The weights are a probability vector whose mean of values is y.
		w := h.Weights(nil, q)
		var sum, mean float64
		for i, a := range h {
			if !(w[i] >= 0) {
				t.Fatalf("trial %d: weight %d = %v", trial, i, w[i])
			}
			sum += w[i]
			mean += w[i] * a.Value
		}
		if math.Abs(sum-1) > 1e-14 || math.Abs(mean-got) > 1e-13*(1+math.Abs(got)) {
			t.Fatalf("trial %d: weights sum to %v, mean %v, output %v", trial, sum, mean, got)
		}
		// Flat does the same arithmetic: identical bits.
		f, err := NewFlat(h)
		if err != nil {
			t.Fatal(err)
		}
		if f.Output(q) != got {
			t.Fatalf("trial %d: Flat %v, Head %v", trial, f.Output(q), got)
		}
		fw := f.Weights(nil, q)
		for i := range w {
			if fw[i] != w[i] {
				t.Fatalf("trial %d: Flat weight %d = %v, Head %v", trial, i, fw[i], w[i])
			}
		}
	}
}

// TestOutputHugeScores checks the stable evaluation where exp overflows:
// the output is the (tied) top atoms' mean value, and adding one constant to
// every bias changes nothing.
func TestOutputHugeScores(t *testing.T) {
	for _, big := range []float64{1e4, 1e6, 1e300} {
		h := Head{
			{Key: []float64{1}, Value: 3},
			{Key: []float64{-1}, Value: -7},
			{Key: []float64{1}, Bias: -1, Value: 100},
		}
		// At q = big the first atom dominates by a factor e; the third is e
		// times smaller: y = (3 + 100/e)/(1 + 1/e) exactly when −2·big underflows.
		want := (3 + 100/math.E) / (1 + 1/math.E)
		if big-1 == big {
			want = (3 + 100) / 2.0 // the first and third scores tie in float64
		}
		for _, q := range [][]float64{{big}, {-big}} {
			got, err := h.Eval(q)
			if err != nil {
				t.Fatalf("big %v: %v", big, err)
			}
			w := want
			if q[0] < 0 {
				w = -7
			}
			if math.Abs(got-w) > 1e-14*math.Abs(w) {
				t.Errorf("q = %v: y = %v, want %v", q, got, w)
			}
		}
		shifted := make(Head, len(h))
		for i, a := range h {
			shifted[i] = Atom{Key: a.Key, Bias: a.Bias + big, Value: a.Value}
		}
		q := []float64{0.25}
		// Shifted scores are rounded to ulp(big); y moves by that times the
		// spread of the values at most.
		if a, b := h.Output(q), shifted.Output(q); big < 1e15 && math.Abs(a-b) > 107*4*big*0x1p-52 {
			t.Errorf("bias shift %v changed y from %v to %v", big, a, b)
		}
	}
	// Ties at ±1e4 average their values; nothing is NaN.
	h := Head{{Key: []float64{1e4}, Value: 1}, {Key: []float64{1e4}, Value: 3}, {Key: []float64{-1e4}, Value: 50}}
	if y := h.Output([]float64{1}); y != 2 {
		t.Errorf("tied top atoms: y = %v, want 2", y)
	}
	if y := h.Output([]float64{-1}); y != 50 {
		t.Errorf("single top atom: y = %v, want 50", y)
	}
}

// TestEvalErrors checks every documented failure and that Output is NaN and
// Weights all NaN exactly then.
func TestEvalErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	good := Head{{Key: []float64{1, 2}, Value: 1}, {Key: []float64{0, -1}, Bias: 1, Value: 2}}
	cases := []struct {
		name       string
		h          Head
		q          []float64
		weightsNaN bool
	}{
		{"empty head", Head{}, []float64{1, 2}, true},
		{"nil head", nil, nil, true},
		{"short query", good, []float64{1}, true},
		{"long query", good, []float64{1, 2, 3}, true},
		{"mismatched keys", Head{{Key: []float64{1, 2}}, {Key: []float64{1}}}, []float64{1, 2}, true},
		{"NaN query", good, []float64{nan, 0}, true},
		{"Inf query", good, []float64{inf, 0}, true},
		{"Inf key", Head{{Key: []float64{inf, 0}}}, []float64{0, 1}, true},
		{"NaN bias", Head{{Key: []float64{0, 0}, Bias: nan}}, []float64{0, 1}, true},
		{"Inf value", Head{{Key: []float64{0, 0}, Value: inf}}, []float64{0, 1}, false},
		{"overflowing score", Head{{Key: []float64{1e300, 0}}}, []float64{1e300, 0}, true},
		{"overflowing sum", Head{{Key: []float64{0, 0}, Value: 1.7e308}, {Key: []float64{0, 0}, Value: 1.7e308}}, []float64{0, 0}, false},
	}
	for _, c := range cases {
		y, err := c.h.Eval(c.q)
		if err == nil {
			t.Errorf("%s: Eval = %v, want an error", c.name, y)
			continue
		}
		if !math.IsNaN(c.h.Output(c.q)) {
			t.Errorf("%s: Output = %v, want NaN", c.name, c.h.Output(c.q))
		}
		w := c.h.Weights(make([]float64, 0, 8), c.q)
		if len(w) != len(c.h) {
			t.Errorf("%s: %d weights for %d atoms", c.name, len(w), len(c.h))
		}
		for _, x := range w {
			if math.IsNaN(x) != c.weightsNaN {
				t.Errorf("%s: weights %v", c.name, w)
				break
			}
		}
		if f, err := NewFlat(c.h); err == nil {
			if _, err := f.Eval(c.q); err == nil {
				t.Errorf("%s: Flat.Eval succeeded", c.name)
			}
			if !math.IsNaN(f.Output(c.q)) {
				t.Errorf("%s: Flat.Output not NaN", c.name)
			}
		}
	}
	if _, err := good.Eval([]float64{0.5, -2}); err != nil {
		t.Errorf("valid head: %v", err)
	}
}

func TestFlatShape(t *testing.T) {
	f := Flat{Dim: 2, Keys: []float64{1, 2, 3}, Bias: []float64{0, 0}, Value: []float64{0, 0}}
	if _, err := f.Eval([]float64{1, 1}); err == nil {
		t.Error("inconsistent Flat evaluated")
	}
	if f.Head() != nil {
		t.Error("inconsistent Flat gave a Head")
	}
	for _, g := range []Flat{{Dim: -1}, {Dim: 1 << 62, Keys: []float64{1}, Bias: []float64{0}, Value: []float64{0}}, {}} {
		if !math.IsNaN(g.Output(nil)) || !math.IsNaN(g.Output([]float64{1})) {
			t.Errorf("Flat %+v: output not NaN", g)
		}
	}
	if _, err := NewFlat(Head{{Key: []float64{1}}, {Key: []float64{1, 2}}}); err == nil {
		t.Error("NewFlat accepted keys of two lengths")
	}
	// Keys of length 0: scores are the biases alone.
	z := Head{{Bias: 0, Value: 1}, {Bias: math.Log(3), Value: 5}}
	if y := z.Output(nil); math.Abs(y-4) > 1e-15 {
		t.Errorf("zero-length keys: y = %v, want 4", y)
	}
	// Head aliases Flat's keys with capped slices.
	g := Flat{Dim: 1, Keys: []float64{1, 2}, Bias: []float64{0, 0}, Value: []float64{0, 0}}
	h := g.Head()
	_ = append(h[0].Key, 9)
	if g.Keys[1] != 2 {
		t.Error("appending to one key overwrote the next")
	}
}

func TestSplitOutput(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 0x1))
	heads := []Head{randomHead(3, 2, 1, rng), randomHead(5, 2, 1, rng)}
	q := randomQuery(2, 1, rng)
	if got, want := SplitOutput(heads, q), heads[0].Output(q)+heads[1].Output(q); got != want {
		t.Errorf("SplitOutput = %v, want %v", got, want)
	}
	if !math.IsNaN(SplitOutput(nil, q)) || !math.IsNaN(SplitOutput(heads, q[:1])) {
		t.Error("SplitOutput of no heads or a short query is not NaN")
	}
}

// TestTinyWeights covers weights in the subnormal range, where exp scales
// by math.Ldexp, and underflow to zero: a weight e^−720 times a value 1e300
// is visible in the output, and Flat (which writes exp out inline) agrees
// with Head bit for bit.
func TestTinyWeights(t *testing.T) {
	h := Head{
		{Key: []float64{0}, Bias: 0, Value: 0},
		{Key: []float64{0}, Bias: -720, Value: 1e300},
		{Key: []float64{0}, Bias: -744, Value: 1e300},
		{Key: []float64{0}, Bias: -1000, Value: 1e300},
		{Key: []float64{0}, Bias: -740, Value: -1e300},
	}
	f, err := NewFlat(h)
	if err != nil {
		t.Fatal(err)
	}
	q := []float64{0.5}
	y := h.Output(q)
	want := (math.Exp(-720) + math.Exp(-744) - math.Exp(-740)) * 1e300
	if math.Abs(y-want) > 1e-9*want {
		t.Errorf("y = %v, want %v", y, want)
	}
	if f.Output(q) != y {
		t.Errorf("Flat %v, Head %v", f.Output(q), y)
	}
}
