// Package bigmath has the elementary functions on big.Float that math/big
// lacks: Exp and Log, to any precision up to MaxPrecision bits. They are
// pure Go on math/big, so they give the same bits natively and under
// GOOS=js.
//
// Exp reduces the argument twice, x = k·ln2 + r and r = 2^m·s, sums the
// Taylor series of e^s − 1 (a dozen terms at 256 bits) and squares m times
// in the form t ↦ t(2 + t), which keeps e^s − 1 to full relative accuracy.
// Log inverts Exp by Halley's iteration started from float64, the working
// precision tripling each step. Both work with 32 guard bits and round once
// at the end, so results are the correctly rounded values except within
// about 2^-32 of a rounding boundary (checked against Python's correctly
// rounded decimal arithmetic in the tests).
//
// A general-purpose library (github.com/ALTree/bigfloat) exists, but its Exp
// costs about 2,000 multiplications (numerics/MATH.md §4); this one costs
// about 40 at 256 bits, which is what lets the extended-precision oracle and
// learner of package recovery finish in seconds.
package bigmath

import (
	"math"
	"math/big"
	"math/bits"

	"headlab/numerics/internal/xmath"
)

// MaxPrecision is the largest precision in bits Exp and Log support (the
// stored ln 2 has 2400 bits, enough for MaxPrecision plus guard bits and a
// reduction by k·ln2 with |k| < 2^31).
const MaxPrecision = 2048

// guard is the number of extra bits of the working precision.
const guard = 32

// ln2 is ln 2 to 2400 bits (rounded down). It is read, never written.
var ln2 = func() *big.Float {
	f, _, err := big.ParseFloat(ln2Hex, 0, 2400, big.ToZero)
	if err != nil {
		panic("bigmath: bad ln 2 constant: " + err.Error())
	}
	return f
}()

// precision is z's precision, else x's, else 53, capped at MaxPrecision.
func precision(z, x *big.Float) uint {
	p := z.Prec()
	if p == 0 {
		p = x.Prec()
	}
	if p == 0 {
		p = 53
	}
	return min(p, MaxPrecision)
}

// Exp sets z to e^x rounded to z's precision (x's if z's is 0, at most
// MaxPrecision) in z's rounding mode, and returns z. It returns +Inf for
// x = +Inf and for results beyond big.Float's exponent range, and 0 for
// x = −Inf and results below it.
func Exp(z, x *big.Float) *big.Float {
	return exp(z, x, precision(z, x))
}

// exp is Exp at precision p, which may exceed MaxPrecision (by the bits
// Log adds near 1, where k = 0 and ln 2 is not needed).
func exp(z, x *big.Float, p uint) *big.Float {
	z.SetPrec(p)
	switch {
	case x.IsInf():
		if x.Signbit() {
			return z.SetInt64(0)
		}
		return z.SetInf(false)
	case x.Sign() == 0:
		return z.SetInt64(1)
	}
	xf, _ := x.Float64()
	kf := math.Round(xf / math.Ln2)
	// e^x = 2^k·e^r; beyond these k the power of two leaves big.Float's
	// exponent range (|exponent| < 2^31).
	const kmax = 1 << 31
	switch {
	case kf > kmax:
		return z.SetInf(false)
	case kf < -kmax:
		return z.SetInt64(0)
	}
	k := int64(kf)
	wp := p + guard
	// r = x − k·ln2, with enough bits of ln 2 that the absolute error of r
	// (which is the relative error of e^x) stays below 2^-wp.
	kbits := uint(64 - bits.LeadingZeros64(uint64(abs64(k))))
	r := new(big.Float).SetPrec(wp + kbits + guard).Set(x)
	if k != 0 {
		t := new(big.Float).SetPrec(wp + kbits + guard).Set(ln2)
		t.Mul(t, new(big.Float).SetInt64(k))
		r.Sub(r, t)
	}
	r.SetPrec(wp)
	// m halvings balance the series' length against the squarings: about
	// √(2p) − 3 of each minimises their sum.
	m := max(0, int(math.Sqrt(2*float64(p)))-3)
	if r.Sign() != 0 {
		r.SetMantExp(r, -m)
	}
	t := expm1Series(r, wp)
	two := big.NewFloat(2)
	u := new(big.Float).SetPrec(wp)
	for i := 0; i < m; i++ {
		u.Add(t, two)
		t.Mul(t, u)
	}
	t.Add(t, big.NewFloat(1))
	if k != 0 {
		t.SetMantExp(t, int(k))
	}
	return z.Set(t)
}

// expm1Series returns e^s − 1 at precision wp for |s| < 2^-3 by its Taylor
// series, summed by Horner's rule: e^s − 1 = s(1 + s/2(1 + s/3(…))).
func expm1Series(s *big.Float, wp uint) *big.Float {
	out := new(big.Float).SetPrec(wp)
	if s.Sign() == 0 {
		return out
	}
	// Terms until s^N/N! < 2^-wp relative to s.
	e := s.MantExp(nil) // |s| < 2^e
	lg := float64(-e)   // log2 of 1/|s|, at least
	n := 1
	for bits := 0.0; bits < float64(wp); n++ {
		bits += lg + math.Log2(float64(n+1))
	}
	one := big.NewFloat(1)
	out.SetInt64(1)
	d := new(big.Float).SetPrec(wp)
	for i := n; i >= 2; i-- {
		// out = 1 + s·out/i
		out.Mul(out, s)
		out.Quo(out, d.SetInt64(int64(i)))
		out.Add(out, one)
	}
	return out.Mul(out, s)
}

// Log sets z to the natural logarithm of x rounded to z's precision (x's if
// z's is 0, at most MaxPrecision) and returns z. Log(0) is −Inf and
// Log(+Inf) is +Inf; like big.Float.Sqrt, it panics with big.ErrNaN when x
// is negative.
func Log(z, x *big.Float) *big.Float {
	p := precision(z, x)
	z.SetPrec(p)
	switch {
	case x.Sign() < 0:
		panic(big.ErrNaN{})
	case x.Sign() == 0:
		return z.SetInf(true)
	case x.IsInf():
		return z.SetInf(false)
	}
	wp := p + guard
	// x = mant·2^e with mant in [1/√2, √2): log x = log mant + e·ln2.
	mant := new(big.Float).SetPrec(max(wp, x.Prec()))
	e := x.MantExp(mant) // mant in [0.5, 1)
	if mant.Cmp(big.NewFloat(math.Sqrt2/2)) < 0 {
		mant.SetMantExp(mant, 1)
		e--
	}
	if e == 0 {
		// log x ≈ x − 1 near 1: the iteration's absolute accuracy must
		// reach as many bits below x − 1 (exact, by Sterbenz) as wanted.
		dm := new(big.Float).SetPrec(mant.Prec()).Sub(mant, big.NewFloat(1))
		if dm.Sign() != 0 {
			wp += uint(max(0, -dm.MantExp(nil)))
		}
	}
	mf, _ := mant.Float64()
	y := new(big.Float).SetPrec(wp).SetFloat64(xmath.Log(mf))
	// Halley's iteration y ← y + 2(mant − e^y)/(mant + e^y) triples the
	// correct bits: from float64's 50, at a working precision that keeps
	// pace, ending with one step at full precision.
	var precs []uint
	for b := wp; b > 50; b = (b + 2) / 3 {
		precs = append(precs, b+8)
	}
	ey := new(big.Float)
	num := new(big.Float)
	den := new(big.Float)
	for i := len(precs) - 1; i >= 0; i-- {
		q := min(precs[i], wp)
		y.SetPrec(q)
		ey.SetPrec(q)
		num.SetPrec(q)
		den.SetPrec(q)
		exp(ey, y, q)
		num.Sub(mant, ey)
		den.Add(mant, ey)
		num.Quo(num, den)
		num.SetMantExp(num, 1)
		y.Add(y, num)
	}
	if e != 0 {
		ebits := uint(64 - bits.LeadingZeros64(uint64(abs64(int64(e)))))
		t := new(big.Float).SetPrec(wp + ebits).Set(ln2)
		t.Mul(t, new(big.Float).SetInt64(int64(e)))
		y.SetPrec(wp + ebits)
		y.Add(y, t)
	}
	return z.Set(y)
}

func abs64(k int64) int64 {
	if k < 0 {
		return -k
	}
	return k
}
