// Package bigpoly holds real polynomials with big.Float coefficients,
// lowest degree first: their value, product, difference and derivative,
// and their real roots to the working precision.
//
// RealRoots starts from float64's roots of the polynomial's rounding
// (poles.Roots, the Aberth–Ehrlich iteration) and refines them at the
// working precision. Two real roots closer than about the square root of
// float64's precision come out of the rounding as a complex pair, or as
// two estimates of one point: such a pair starts instead from the real
// roots of the polynomial's quadratic model at its midpoint (splitPairs).
// Where every start is then plainly real or plainly complex, each real one
// is refined alone by Newton's method (newtonRoots); otherwise, or where
// Newton's method does not settle, all of them are refined together by
// the Aberth–Ehrlich iteration in complex arithmetic (aberth), which keeps
// every estimate away from the others. Pure Go on math/big: the same bits
// natively and under GOOS=js.
package bigpoly

import (
	"math"
	"math/big"
	"math/cmplx"

	"headlab/numerics/internal/poles"
)

// guard is the number of bits the iteration carries beyond the precision
// asked for.
const guard = 32

// maxIterations bounds the refinement; from float64's roots it takes two
// or three steps at 256 bits, more only near a multiple root.
const maxIterations = 60

// Eval returns the polynomial c at x, at precision prec.
func Eval(c []*big.Float, x *big.Float, prec uint) *big.Float {
	v := new(big.Float).SetPrec(prec)
	for k := len(c) - 1; k >= 0; k-- {
		v.Mul(v, x)
		v.Add(v, c[k])
	}
	return v
}

// Mul returns the product of the polynomials a and b, at precision prec.
func Mul(a, b []*big.Float, prec uint) []*big.Float {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	out := zeros(len(a)+len(b)-1, prec)
	t := new(big.Float).SetPrec(prec)
	for i := range a {
		for j := range b {
			out[i+j].Add(out[i+j], t.Mul(a[i], b[j]))
		}
	}
	return out
}

// Sub returns a − b, at precision prec.
func Sub(a, b []*big.Float, prec uint) []*big.Float {
	out := zeros(max(len(a), len(b)), prec)
	for k := range out {
		if k < len(a) {
			out[k].Add(out[k], a[k])
		}
		if k < len(b) {
			out[k].Sub(out[k], b[k])
		}
	}
	return out
}

// Deriv returns the derivative of c, at precision prec.
func Deriv(c []*big.Float, prec uint) []*big.Float {
	if len(c) < 2 {
		return nil
	}
	out := zeros(len(c)-1, prec)
	for k := range out {
		out[k].SetInt64(int64(k + 1))
		out[k].Mul(out[k], c[k+1])
	}
	return out
}

func zeros(n int, prec uint) []*big.Float {
	out := make([]*big.Float, n)
	for k := range out {
		out[k] = new(big.Float).SetPrec(prec)
	}
	return out
}

// RealRoots returns the real roots of c at precision prec, in the order of
// float64's roots, and whether the refinement converged (a root of
// multiplicity two or more converges slowly, to fewer bits: such roots are
// returned all the same, for the caller to check). A root counts as real
// where its imaginary part is below 2^(−prec/4) of its size. It returns
// nothing where c is constant or float64's iteration fails.
func RealRoots(c []*big.Float, prec uint) ([]*big.Float, bool) {
	deg := len(c) - 1
	for deg > 0 && c[deg].Sign() == 0 {
		deg--
	}
	if deg < 1 {
		return nil, false
	}
	c = c[:deg+1]
	// The rounding, scaled by the largest coefficient's power of two (so
	// that no coefficient overflows), highest degree first.
	e := math.MinInt
	for _, v := range c {
		if v.Sign() != 0 {
			e = max(e, v.MantExp(nil))
		}
	}
	cf := make([]float64, deg+1)
	for k, v := range c {
		cf[deg-k], _ = new(big.Float).SetMantExp(v, -e).Float64()
	}
	zs, _ := poles.Roots(cf)
	if zs == nil {
		return nil, false
	}
	starts := splitPairs(c, zs, prec+guard)
	if out, ok := newtonRoots(c, starts, prec); ok {
		return out, true
	}
	z, converged, _ := aberth(c, starts, prec)
	var out []*big.Float
	for _, r := range z {
		if r.im.Sign() == 0 || r.re.Sign() != 0 && r.im.MantExp(nil)-r.re.MantExp(nil) < -int(prec)/4 {
			out = append(out, new(big.Float).SetPrec(prec).Set(r.re))
		}
	}
	return out, converged
}

// Where every start is plainly real or plainly complex, the real ones
// are refined each alone by Newton's method (a tenth of the simultaneous
// iteration's work); the complex ones are left out.
const (
	realStart    = 1e-12 // |Im| below this part of |Re|: a real start
	complexStart = 1e-4  // |Im| above this part of |z|: a complex root
	newtonMove   = 1e-6  // the farthest, relative, a real root may move
)

// newtonRoots refines the real starts among z (at prec + guard bits) by
// Newton's method, frozen as aberth freezes a root, and returns them at
// prec bits. It reports false, for aberth to decide, where a start is
// neither plainly real nor plainly complex, or a refinement does not
// converge, moves a root farther than newtonMove, or ends on another's
// root.
func newtonRoots(c []*big.Float, z []cplx, prec uint) ([]*big.Float, bool) {
	wp := prec + guard
	var xs []*big.Float
	for _, v := range z {
		re, _ := v.re.Float64()
		im, _ := v.im.Float64()
		switch {
		case math.Abs(im) <= realStart*math.Abs(re):
			xs = append(xs, v.re)
		case math.Abs(im) >= complexStart*math.Hypot(re, im):
		default:
			return nil, false
		}
	}
	p, dp, ab, az, t := new(big.Float).SetPrec(wp), new(big.Float).SetPrec(wp), new(big.Float).SetPrec(wp), new(big.Float).SetPrec(wp), new(big.Float).SetPrec(wp)
	out := make([]*big.Float, len(xs))
	for i, x0 := range xs {
		x := new(big.Float).SetPrec(wp).Set(x0)
		done := false
		for it := 0; it < maxIterations && !done; it++ {
			p.SetInt64(0)
			dp.SetInt64(0)
			ab.SetInt64(0)
			az.Abs(x)
			for j := len(c) - 1; j >= 0; j-- {
				dp.Mul(dp, x)
				dp.Add(dp, p)
				p.Mul(p, x)
				p.Add(p, c[j])
				ab.Mul(ab, az)
				ab.Add(ab, t.Abs(c[j]))
			}
			if t.Abs(p).Cmp(ab.SetMantExp(ab, -int(prec))) <= 0 {
				done = true
				break
			}
			if dp.Sign() == 0 {
				return nil, false
			}
			t.Quo(p, dp)
			x.Sub(x, t)
			if x.IsInf() {
				return nil, false
			}
			done = t.Sign() == 0 || t.MantExp(nil) < x.MantExp(nil)-int(prec)
		}
		if !done {
			return nil, false
		}
		// Still near its start, and not on another root's.
		t.Sub(x, x0)
		if t.Sign() != 0 && t.MantExp(nil) > x.MantExp(nil)+int(math.Floor(math.Log2(newtonMove))) {
			return nil, false
		}
		for _, o := range out[:i] {
			t.Sub(x, o)
			if t.Sign() == 0 || t.MantExp(nil) < x.MantExp(nil)-int(prec)/2 {
				return nil, false
			}
		}
		out[i] = x
	}
	for i, x := range out {
		out[i] = new(big.Float).SetPrec(prec).Set(x)
	}
	return out, true
}

// cplx is a complex number at the iteration's precision.
type cplx struct{ re, im *big.Float }

// pairSpread is the distance, relative to their size, within which two of
// float64's roots are taken for a pair of close roots (splitPairs): two
// real roots closer than about 1e-8 come out of float64's rounding as a
// complex pair, or as two estimates of one point.
const pairSpread = 1e-5

// splitPairs returns float64's roots zs of c at wp bits, each pair of them
// closer than pairSpread (and no other root as close) replaced by the
// roots of c's quadratic Taylor model at their midpoint,
// c(m + δ) ≈ c(m) + c′(m)δ + c″(m)δ²/2, solved at wp bits, where those
// are real. From float64's estimates, which sit at one point of the pair,
// Aberth's iteration moves the two apart only slowly (twenty steps for a
// pair 1e-15 apart at 256 bits); from the model's roots, good to about the
// pair's spread relative to the other roots' distance, it converges in a
// few, and Newton's method alone refines each (newtonRoots).
func splitPairs(c []*big.Float, zs []complex128, wp uint) []cplx {
	num := func() *big.Float { return new(big.Float).SetPrec(wp) }
	z := make([]cplx, len(zs))
	for k, v := range zs {
		z[k] = cplx{num().SetFloat64(real(v)), num().SetFloat64(imag(v))}
	}
	near := func(a, b complex128) bool {
		return cmplx.Abs(a-b) <= pairSpread*math.Max(cmplx.Abs(a), cmplx.Abs(b))
	}
	for i := range zs {
		mate, count := -1, 0
		for j := range zs {
			if j != i && near(zs[i], zs[j]) {
				mate, count = j, count+1
			}
		}
		if count != 1 || mate < i {
			continue
		}
		others := 0
		for j := range zs {
			if j != mate && j != i && near(zs[mate], zs[j]) {
				others++
			}
		}
		m := (zs[i] + zs[mate]) / 2
		if others > 0 || math.Abs(imag(m)) > pairSpread*cmplx.Abs(m) {
			continue // a cluster of more, or a pair off the real axis
		}
		// Taylor coefficients at m by three passes of synthetic division.
		mid := num().SetFloat64(real(m))
		t := make([]*big.Float, len(c))
		for k := range c {
			t[k] = num().Set(c[k])
		}
		var a [3]*big.Float
		for pass := 0; pass < 3; pass++ {
			for k := len(t) - 2; k >= pass; k-- {
				t[k].Add(t[k], num().Mul(t[k+1], mid))
			}
			a[pass] = t[pass]
		}
		if a[2].Sign() == 0 {
			continue
		}
		// a₂δ² + a₁δ + a₀ = 0.
		disc := num().Mul(a[1], a[1])
		disc.Sub(disc, num().Mul(num().Mul(a[0], a[2]), num().SetInt64(4)))
		if disc.Sign() < 0 {
			// The model's roots are a complex pair. Near a real pair
			// closer still, or a multiple root, the neglected terms
			// can make them so: float64's estimates, which the
			// iteration refines to either, are left as they are.
			continue
		}
		sq := num().Sqrt(disc)
		if a[1].Sign() < 0 {
			sq.Neg(sq)
		}
		q := num().Add(a[1], sq)
		q.Neg(q).Quo(q, num().SetInt64(2)) // q = −(a₁ + sign(a₁)√disc)/2
		if q.Sign() == 0 {
			continue
		}
		z[i] = cplx{num().Add(mid, num().Quo(q, a[2])), num()}
		z[mate] = cplx{num().Add(mid, num().Quo(a[0], q)), num()}
	}
	return z
}

// aberth refines the roots z of c (at prec + guard bits) by the
// Aberth–Ehrlich iteration until every root is frozen (below), and
// reports whether that happened within maxIterations, and the steps it
// took.
func aberth(c []*big.Float, z []cplx, prec uint) ([]cplx, bool, int) {
	wp := prec + guard
	num := func() *big.Float { return new(big.Float).SetPrec(wp) }
	// Scratch numbers, reused by every step.
	t1, t2, t3, t4 := num(), num(), num(), num()
	pr, pi, dr, di := num(), num(), num(), num()
	sr, si, wr, wi := num(), num(), num(), num()
	// div sets (qr, qi) = (ar + i·ai)/(br + i·bi); q must not alias a or b.
	div := func(qr, qi, ar, ai, br, bi *big.Float) bool {
		t1.Mul(br, br)
		t2.Mul(bi, bi)
		t1.Add(t1, t2) // |b|²
		if t1.Sign() == 0 {
			return false
		}
		t2.Mul(ar, br)
		t3.Mul(ai, bi)
		qr.Add(t2, t3)
		qr.Quo(qr, t1)
		t2.Mul(ai, br)
		t3.Mul(ar, bi)
		qi.Sub(t2, t3)
		qi.Quo(qi, t1)
		return true
	}
	qr, qi, xr, xi := num(), num(), num(), num()
	ab, az, ac := num(), num(), num()
	one := num().SetInt64(1)
	// A root is frozen once p(z) is within the rounding of c at prec bits
	// (|p(z)| ≤ 2^−prec·Σ_j |c_j||z|^j: z is a root of c changed in its
	// last bits) or its step is below 2^−prec of it; two close roots reach
	// the first long before their steps get small.
	frozen := make([]bool, len(z))
	for it := 0; it < maxIterations; it++ {
		done := true
		for k := range z {
			if frozen[k] {
				continue
			}
			// p(z_k) and p′(z_k) by Horner's scheme in complex arithmetic,
			// and the bound Σ_j |c_j|·(|Re z_k| + |Im z_k|)^j.
			pr.SetInt64(0)
			pi.SetInt64(0)
			dr.SetInt64(0)
			di.SetInt64(0)
			ab.SetInt64(0)
			zr, zi := z[k].re, z[k].im
			az.Abs(zr)
			az.Add(az, t1.Abs(zi))
			for j := len(c) - 1; j >= 0; j-- {
				// dp = dp·z + p
				t1.Mul(dr, zr)
				t2.Mul(di, zi)
				t3.Mul(dr, zi)
				t4.Mul(di, zr)
				dr.Sub(t1, t2)
				dr.Add(dr, pr)
				di.Add(t3, t4)
				di.Add(di, pi)
				// p = p·z + c_j
				t1.Mul(pr, zr)
				t2.Mul(pi, zi)
				t3.Mul(pr, zi)
				t4.Mul(pi, zr)
				pr.Sub(t1, t2)
				pr.Add(pr, c[j])
				pi.Add(t3, t4)
				ab.Mul(ab, az)
				ab.Add(ab, ac.Abs(c[j]))
			}
			t1.Abs(pr)
			t1.Add(t1, t2.Abs(pi))
			if t1.Cmp(ab.SetMantExp(ab, -int(prec))) <= 0 {
				frozen[k] = true
				continue
			}
			done = false
			// w = p/p′; s = Σ_{j≠k} 1/(z_k − z_j); step = w/(1 − w·s).
			if !div(wr, wi, pr, pi, dr, di) {
				return z, false, it
			}
			sr.SetInt64(0)
			si.SetInt64(0)
			for j := range z {
				if j == k {
					continue
				}
				// 1/(x_r + i·x_i) = (x_r − i·x_i)/|x|²
				xr.Sub(zr, z[j].re)
				xi.Sub(zi, z[j].im)
				t1.Mul(xr, xr)
				t2.Mul(xi, xi)
				t1.Add(t1, t2)
				if t1.Sign() == 0 {
					return z, false, it
				}
				sr.Add(sr, t2.Quo(xr, t1))
				si.Sub(si, t2.Quo(xi, t1))
			}
			// x = 1 − w·s
			t1.Mul(wr, sr)
			t2.Mul(wi, si)
			t3.Mul(wr, si)
			t4.Mul(wi, sr)
			xr.Sub(t1, t2)
			xr.Sub(one, xr)
			xi.Add(t3, t4)
			xi.Neg(xi)
			if !div(qr, qi, wr, wi, xr, xi) {
				return z, false, it
			}
			zr.Sub(zr, qr)
			zi.Sub(zi, qi)
			if qr.IsInf() || qi.IsInf() {
				return z, false, it
			}
			frozen[k] = small(qr, qi, zr, zi, prec)
		}
		if done {
			return z, true, it
		}
	}
	return z, false, maxIterations
}

// small reports whether the step (qr, qi) is below 2^−prec of the root
// (zr, zi), by exponents.
func small(qr, qi, zr, zi *big.Float, prec uint) bool {
	q := math.MinInt
	for _, v := range []*big.Float{qr, qi} {
		if v.Sign() != 0 {
			q = max(q, v.MantExp(nil))
		}
	}
	if q == math.MinInt {
		return true
	}
	s := math.MinInt
	for _, v := range []*big.Float{zr, zi} {
		if v.Sign() != 0 {
			s = max(s, v.MantExp(nil))
		}
	}
	return s != math.MinInt && q < s-int(prec)
}
