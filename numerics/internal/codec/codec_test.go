package codec

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

type inner struct {
	N    int8
	U    uint16
	F32  float32
	Tags []string
}

type sample struct {
	B       bool
	I       int
	I64     int64
	U       uint64
	F       []float64
	S       string
	D       time.Duration
	P       *inner
	Nil     *inner
	Empty   []int
	NilS    []int
	Arr     [3]inner
	Dense   *mat.Dense
	Vec     *mat.VecDense
	Big     [][]*big.Float
	Err     error
	Fn      func()
	private int
}

func full() sample {
	return sample{
		B: true, I: -7, I64: math.MinInt64, U: math.MaxUint64,
		F: []float64{math.NaN(), math.Inf(-1), math.Copysign(0, -1), math.SmallestNonzeroFloat64, math.Pi},
		S: "héad\x00lab", D: -3 * time.Millisecond,
		P:       &inner{N: -128, U: 65535, F32: float32(math.Inf(1)), Tags: []string{"", "a"}},
		Empty:   []int{},
		Arr:     [3]inner{{N: 1}, {}, {Tags: []string{}}},
		Dense:   mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, math.NaN()}),
		Vec:     mat.NewVecDense(2, []float64{-1, 1e300}),
		Big:     [][]*big.Float{{new(big.Float).SetPrec(200).SetFloat64(1.5), new(big.Float).SetPrec(300).Quo(big.NewFloat(1).SetPrec(300), big.NewFloat(3).SetPrec(300))}, {}},
		private: 9,
	}
}

// show prints s with its pointers followed and its matrices and big
// floats as numbers, so that two values compare as text (NaN equal to
// NaN, -0 apart from 0, nil apart from empty).
func show(s sample) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %v %v %v %#v %q %v ", s.B, s.I, s.I64, s.U, s.F, s.S, s.D)
	if s.P != nil {
		fmt.Fprintf(&b, "%#v ", *s.P)
	}
	fmt.Fprintf(&b, "%v %#v %#v %#v %#v ", s.Nil == nil, s.Empty, s.NilS, s.Arr, s.Err)
	if s.Dense != nil {
		fmt.Fprintf(&b, "%v ", mat.Formatted(s.Dense))
	}
	if s.Vec != nil {
		fmt.Fprintf(&b, "%v ", mat.Formatted(s.Vec))
	}
	for _, row := range s.Big {
		for _, x := range row {
			fmt.Fprintf(&b, "%d:%s ", x.Prec(), x.Text('p', 0))
		}
		b.WriteString("| ")
	}
	fmt.Fprintf(&b, "%d", s.private)
	return b.String()
}

// TestRoundTrip: every kind the values sent use comes back as it went,
// floats bit for bit, nil as nil and empty as empty; the unexported field
// and the func are not sent.
func TestRoundTrip(t *testing.T) {
	in := full()
	in.Fn = func() {}
	b, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out sample
	if err := Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	want := full()
	want.private = 0
	if got, want := show(out), show(want); got != want {
		t.Errorf("decoded\n%s\nwant\n%s", got, want)
	}
	if math.Float64bits(out.F[0]) != math.Float64bits(in.F[0]) {
		t.Error("the NaN's bits changed")
	}
	if out.Fn != nil {
		t.Error("a func field was sent")
	}
	again, err := Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, b) {
		t.Error("the decoded value encodes to other bytes")
	}
}

// TestRefused: what the package does not carry is an error, and so are
// malformed messages: every truncation of a good one, other formats, and
// a decoding target that is not a pointer.
func TestRefused(t *testing.T) {
	for _, v := range []any{map[string]int{}, struct{ E error }{fmt.Errorf("x")}, complex(1, 2)} {
		if _, err := Marshal(v); err == nil {
			t.Errorf("%T encoded", v)
		}
	}
	b, err := Marshal(full())
	if err != nil {
		t.Fatal(err)
	}
	var s sample
	for n := range len(b) {
		if err := Unmarshal(b[:n], &s); err == nil {
			t.Errorf("the first %d of %d bytes decoded", n, len(b))
		}
	}
	if err := Unmarshal(append(b, 0), &s); err == nil {
		t.Error("a trailing byte was accepted")
	}
	for _, bad := range [][]byte{[]byte(`{"B":true}`), append([]byte(magic), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)} {
		if err := Unmarshal(bad, &s); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
	if err := Unmarshal(b, s); err == nil {
		t.Error("decoded into a struct, not a pointer")
	}
	var small struct{ N int8 }
	if err := Unmarshal(mustMarshal(t, struct{ N int }{300}), &small); err == nil {
		t.Error("300 decoded into an int8")
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzUnmarshal: whatever the bytes, Unmarshal returns (an error or a
// value) and never panics; what it accepts encodes to bytes that decode to
// the same value (not always the same bytes: a boolean is any nonzero
// byte).
func FuzzUnmarshal(f *testing.F) {
	b, err := Marshal(full())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s sample
		if Unmarshal(b, &s) != nil {
			return
		}
		again, err := Marshal(s)
		if err != nil {
			t.Fatalf("decoded %s, which does not encode: %v", show(s), err)
		}
		var s2 sample
		if err := Unmarshal(again, &s2); err != nil || show(s2) != show(s) {
			t.Fatalf("%s encoded and decoded again is %s (%v)", show(s), show(s2), err)
		}
	})
}
