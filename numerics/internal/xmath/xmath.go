// Package xmath has the elementary functions whose results must not depend
// on the platform. Go's math.Exp, math.Log and math.Hypot run assembly on
// amd64 and portable Go under GOOS=js, and the two can differ in the last
// bit; headlab promises the same numbers natively and in the browser, so
// its numerics call these portable versions everywhere.
//
// Exp is table-driven (the design of musl's and ARM's exp) and within one
// ulp of the correctly rounded value; Log is FreeBSD's e_log.c, the
// algorithm of Go's portable math.Log. Every product that feeds a sum is
// rounded explicitly (float64(a*b)) so that no compiler setting (GOAMD64=v3
// fuses a*b+c) changes a result.
package xmath

import "math"

const (
	ln2Hi = 6.93147180369123816490e-01 // ln 2 to 32 bits, so k·ln2Hi is exact for |k| < 2^21
	ln2Lo = 1.90821492927058770002e-10 // ln 2 − ln2Hi
)

// Exp returns e**x within one ulp of the correctly rounded value (checked
// against 300-bit arithmetic in the tests), with math.Exp's special cases.
//
// It is table-driven, the design of musl's and ARM's exp: x = k·ln2/128 + r
// with |r| ≤ ln2/256, e^x = 2^(k/128) · e^r, 2^(k/128) from a table of 128
// entries times a power of two, and e^r − 1 by its Taylor polynomial of
// degree 5 (truncation below 1e-18). No division, which makes it twice as
// fast as FreeBSD's algorithm; the explicit fused head spends most of its
// time here.
func Exp(x float64) float64 {
	// Small enough for the compiler to inline: the explicit fused head
	// spends most of its time here, and under GOOS=js a call costs as much
	// as the arithmetic. Special cases and subnormal results go out of line.
	if !(expUnderflow <= x && x <= expOverflow) {
		return expSpecial(x)
	}
	kf := float64(float64(x*expInvLn2N)+expShift) - expShift
	k := int(kf)
	r := float64(x-float64(kf*expLn2HiN)) - float64(kf*expLn2LoN)
	t := expTable[k&127]
	y := t + float64(t*(r+float64(float64(r*r)*(expC2+float64(r*(expC3+float64(r*(expC4+float64(r*expC5)))))))))
	if e := k >> 7; e >= -1022 {
		// y·2^e is normal (e ≤ 1023 since x ≤ expOverflow).
		return y * math.Float64frombits(uint64(e+1023)<<52)
	}
	return math.Ldexp(y, k>>7) // a correctly rounded subnormal
}

// expSpecial is Exp outside [expUnderflow, expOverflow]: NaN, overflow to
// +Inf, underflow to 0.
func expSpecial(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > expOverflow:
		return math.Inf(1)
	}
	return 0
}

// Constants of exp.
const (
	expOverflow  = 7.09782712893383973096e+02
	expUnderflow = -7.45133219101941108420e+02
	expInvLn2N   = 128 / math.Ln2
	expLn2HiN    = ln2Hi / 128
	expLn2LoN    = ln2Lo / 128
	expShift     = 0x1.8p52 // adding and subtracting it rounds to an integer
	expC2        = 1.0 / 2
	expC3        = 1.0 / 6
	expC4        = 1.0 / 24
	expC5        = 1.0 / 120
)

// Log returns the natural logarithm of x, the same on every platform, with
// math.Log's special cases. It is FreeBSD's e_log.c, the algorithm of Go's
// portable math.Log, so under GOOS=js the two agree bit for bit.
func Log(x float64) float64 {
	const (
		l1 = 6.666666666666735130e-01
		l2 = 3.999999999940941908e-01
		l3 = 2.857142874366239149e-01
		l4 = 2.222219843214978396e-01
		l5 = 1.818357216161805012e-01
		l6 = 1.531383769920937332e-01
		l7 = 1.479819860511658591e-01
	)
	switch {
	case x != x || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	f1, ki := math.Frexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := float64(s2 * (l1 + float64(s4*(l3+float64(s4*(l5+float64(s4*l7)))))))
	t2 := float64(s4 * (l2 + float64(s4*(l4+float64(s4*l6)))))
	r := t1 + t2
	hfsq := float64(float64(0.5*f) * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2Lo))) - f)
}

// Hypot returns √(p²+q²) without undue overflow, the same on every platform.
func Hypot(p, q float64) float64 {
	p, q = math.Abs(p), math.Abs(q)
	switch {
	case math.IsInf(p, 1) || math.IsInf(q, 1):
		return math.Inf(1)
	case math.IsNaN(p) || math.IsNaN(q):
		return math.NaN()
	}
	if p < q {
		p, q = q, p
	}
	if p == 0 {
		return 0
	}
	q = q / p
	return p * math.Sqrt(1+float64(q*q))
}

// Log1pExp returns log(1 + e**x) without overflow: the softplus, used for
// merging atoms' biases.
func Log1pExp(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(Exp(-x))
	}
	return math.Log1p(Exp(x))
}

// Sigmoid returns the logistic function 1/(1+e**−x), accurate in both tails.
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + Exp(-x))
	}
	e := Exp(x)
	return e / (1 + e)
}
