package bigmath

import (
	"math"
	"math/big"
	"testing"
)

func parse(t testing.TB, s string, prec uint) *big.Float {
	t.Helper()
	f, _, err := big.ParseFloat(s, 0, prec, big.ToNearestEven)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return f
}

// TestExpKnown checks Exp against correctly rounded values, bit for bit.
func TestExpKnown(t *testing.T) {
	for _, c := range expCases {
		x := parse(t, c.x, 4096)
		want := parse(t, c.want, c.prec)
		got := Exp(new(big.Float).SetPrec(c.prec), x)
		if got.Cmp(want) != 0 {
			t.Errorf("Exp(%s) at %d bits = %s, want %s", c.x, c.prec, got.Text('p', 0), want.Text('p', 0))
		}
	}
}

// TestLogKnown checks Log against correctly rounded values, bit for bit.
func TestLogKnown(t *testing.T) {
	for _, c := range logCases {
		x := parse(t, c.x, 4096)
		want := parse(t, c.want, c.prec)
		got := Log(new(big.Float).SetPrec(c.prec), x)
		if got.Cmp(want) != 0 {
			t.Errorf("Log(%s) at %d bits = %s, want %s", c.x, c.prec, got.Text('p', 0), want.Text('p', 0))
		}
	}
}

// TestLn2 recomputes the stored ln 2 by the series ln 2 = 2·atanh(1/3) =
// Σ 2/((2k+1)·3^(2k+1)).
func TestLn2(t *testing.T) {
	const prec = 2500
	sum := new(big.Float).SetPrec(prec)
	pow := new(big.Float).SetPrec(prec).SetInt64(3) // 3^(2k+1)
	term := new(big.Float).SetPrec(prec)
	for k := 0; k < 1000; k++ {
		term.SetInt64(2)
		term.Quo(term, pow)
		term.Quo(term, new(big.Float).SetInt64(int64(2*k+1)))
		sum.Add(sum, term)
		pow.Mul(pow, big.NewFloat(9))
	}
	got := new(big.Float).SetPrec(2400).SetMode(big.ToZero).Set(sum)
	if got.Cmp(ln2) != 0 {
		t.Fatalf("stored ln 2 differs from the series:\n%s\n%s", got.Text('p', 0), ln2.Text('p', 0))
	}
}

// TestRoundTrip checks Log(Exp(x)) = x to within a few ulps of max(1, |x|)
// (the rounding of Exp(x) to 1 + x limits it for small x) over a range of
// magnitudes and precisions.
func TestRoundTrip(t *testing.T) {
	for _, prec := range []uint{64, 128, 256, 512} {
		for _, xf := range []float64{-300.5, -20.25, -1, -1e-9, 3e-12, 0.3, 1, 2.5, 40, 1e4} {
			x := new(big.Float).SetPrec(prec).SetFloat64(xf)
			y := Log(new(big.Float).SetPrec(prec), Exp(new(big.Float).SetPrec(prec), x))
			d := new(big.Float).Sub(y, x)
			rel, _ := new(big.Float).Quo(d, big.NewFloat(math.Max(1, math.Abs(xf)))).Float64()
			if math.Abs(rel) > math.Ldexp(8, -int(prec)) {
				t.Errorf("prec %d: Log(Exp(%g)) off by %g relative", prec, xf, rel)
			}
		}
	}
}

// TestSpecial checks the special cases and the limits of the exponent range.
func TestSpecial(t *testing.T) {
	z := new(big.Float).SetPrec(100)
	if Exp(z, new(big.Float)).Cmp(big.NewFloat(1)) != 0 {
		t.Error("Exp(0) ≠ 1")
	}
	if !Exp(z, new(big.Float).SetInf(false)).IsInf() {
		t.Error("Exp(+Inf) not +Inf")
	}
	if Exp(z, new(big.Float).SetInf(true)).Sign() != 0 {
		t.Error("Exp(−Inf) not 0")
	}
	if !Exp(z, big.NewFloat(1e10)).IsInf() {
		t.Error("Exp(1e10) not +Inf")
	}
	if Exp(z, big.NewFloat(-1e10)).Sign() != 0 {
		t.Error("Exp(−1e10) not 0")
	}
	if Log(z, big.NewFloat(1)).Sign() != 0 {
		t.Error("Log(1) ≠ 0")
	}
	if l := Log(z, new(big.Float)); !l.IsInf() || l.Sign() > 0 {
		t.Error("Log(0) not −Inf")
	}
	defer func() {
		if _, ok := recover().(big.ErrNaN); !ok {
			t.Error("Log(−1) did not panic with big.ErrNaN")
		}
	}()
	Log(z, big.NewFloat(-1))
}

func benchmarkExp(b *testing.B, prec uint) {
	x := new(big.Float).SetPrec(prec).SetFloat64(-1.2345678)
	z := new(big.Float).SetPrec(prec)
	for b.Loop() {
		Exp(z, x)
	}
}

func BenchmarkExp128(b *testing.B) { benchmarkExp(b, 128) }
func BenchmarkExp256(b *testing.B) { benchmarkExp(b, 256) }
func BenchmarkExp384(b *testing.B) { benchmarkExp(b, 384) }

func BenchmarkLog256(b *testing.B) {
	x := new(big.Float).SetPrec(256).SetFloat64(3.7)
	z := new(big.Float).SetPrec(256)
	for b.Loop() {
		Log(z, x)
	}
}

func BenchmarkMulAdd256(b *testing.B) {
	x := new(big.Float).SetPrec(256).SetFloat64(1.2345)
	y := new(big.Float).SetPrec(256).SetFloat64(0.987)
	z := new(big.Float).SetPrec(256).SetFloat64(0.5)
	t := new(big.Float).SetPrec(256)
	for b.Loop() {
		t.Mul(x, y)
		z.Add(z, t)
	}
}
