package poles

import "math"

// Complex arithmetic with every product rounded explicitly: Go may fuse
// the real operations of a complex product (arm64 does by default), and
// the package promises the same bits everywhere. Sums need no care.

func mul(a, b complex128) complex128 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	return complex(float64(ar*br)-float64(ai*bi), float64(ar*bi)+float64(ai*br))
}

// div is a/b by Smith's algorithm (no overflow in |b|²).
func div(a, b complex128) complex128 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	if math.Abs(br) >= math.Abs(bi) {
		q := bi / br
		d := br + float64(bi*q)
		return complex((ar+float64(ai*q))/d, (ai-float64(ar*q))/d)
	}
	q := br / bi
	d := bi + float64(br*q)
	return complex((float64(ar*q)+ai)/d, (float64(ai*q)-ar)/d)
}

func scale(a complex128, s float64) complex128 {
	return complex(float64(real(a)*s), float64(imag(a)*s))
}

// finite reports whether neither part of a is NaN or infinite.
func finite(a complex128) bool {
	return !math.IsNaN(real(a)) && !math.IsNaN(imag(a)) && !math.IsInf(real(a), 0) && !math.IsInf(imag(a), 0)
}

func abs2(a complex128) float64 {
	return float64(real(a)*real(a)) + float64(imag(a)*imag(a))
}

// solve solves a·x = b by Gaussian elimination with partial pivoting,
// overwriting a and b; false where a is singular.
func solve(a [][]complex128, b, x []complex128) bool {
	n := len(b)
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if abs2(a[r][c]) > abs2(a[p][c]) {
				p = r
			}
		}
		if !(abs2(a[p][c]) > 0) {
			return false
		}
		a[c], a[p] = a[p], a[c]
		b[c], b[p] = b[p], b[c]
		for r := c + 1; r < n; r++ {
			f := div(a[r][c], a[c][c])
			for k := c + 1; k < n; k++ {
				a[r][k] -= mul(f, a[c][k])
			}
			b[r] -= mul(f, b[c])
		}
	}
	for r := n - 1; r >= 0; r-- {
		v := b[r]
		for k := r + 1; k < n; k++ {
			v -= mul(a[r][k], x[k])
		}
		x[r] = div(v, a[r][r])
		if !finite(x[r]) {
			return false
		}
	}
	return true
}

// horner returns p(z) and p′(z) for the coefficients c, highest first.
func horner(c []complex128, z complex128) (p, dp complex128) {
	p = c[0]
	for _, v := range c[1:] {
		dp = mul(dp, z) + p
		p = mul(p, z) + v
	}
	return p, dp
}

// polyRoots returns the roots of the polynomial with coefficients c,
// highest first (c[0] ≠ 0), by the Aberth–Ehrlich iteration from points
// spread on a circle that holds every root.
func polyRoots(c []complex128) ([]complex128, bool) {
	deg := len(c) - 1
	if deg < 1 || abs2(c[0]) == 0 {
		return nil, false
	}
	// Cauchy's bound: every root has |z| ≤ 1 + max |c_k/c_0|.
	var bound float64
	for _, v := range c[1:] {
		bound = math.Max(bound, math.Sqrt(abs2(div(v, c[0]))))
	}
	bound++
	z := make([]complex128, deg)
	// Start points on the circle of radius bound/2, turned off the axes
	// (powers of a unit complex number at an irrational angle).
	rot := complex(0.6, 0.8)
	p := complex(0.8, 0.6)
	for k := range z {
		z[k] = scale(p, bound/2)
		p = mul(p, rot)
	}
	var worst float64
	for it := 0; it < 500; it++ {
		worst = 0
		for k := range z {
			v, dv := horner(c, z[k])
			if v == 0 {
				continue
			}
			ratio := div(v, dv)
			var s complex128
			for j := range z {
				if j != k {
					s += div(1, z[k]-z[j])
				}
			}
			step := div(ratio, 1-mul(ratio, s))
			z[k] -= step
			if math.Abs(imag(z[k])) < 1e-150*math.Abs(real(z[k])) {
				z[k] = complex(real(z[k]), 0) // no subnormal parts: they are slow
			}
			worst = math.Max(worst, abs2(step)/(1+abs2(z[k])))
		}
		if worst < 1e-28 {
			return z, true // steps of 1e-14 relative: rounding
		}
		if math.IsNaN(worst) {
			return nil, false
		}
	}
	// A multiple root converges only linearly, and to about the square
	// root of the precision: steps still moving below 1e-6 are that.
	return z, worst < 1e-12
}

// Roots returns the complex roots of the real polynomial with coefficients
// c, highest first (c[0] ≠ 0), by the Aberth–Ehrlich iteration of the
// eliminations: the same bits on every platform. It reports false where
// the iteration did not converge (or c is not a polynomial of degree ≥ 1).
func Roots(c []float64) ([]complex128, bool) {
	for _, v := range c {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
	}
	z := make([]complex128, len(c))
	for i, v := range c {
		z[i] = complex(v, 0)
	}
	return polyRoots(z)
}
