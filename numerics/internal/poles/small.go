package poles

import (
	"math"

	"headlab/numerics/internal/linalg"
)

// Elimination for H ≤ 3 poles. With D(x) = Π_h (x + ρ_h) = x^H + Σ_k e_k
// x^(H−k) and Q(x) = Σ_h r_h D(x)/(x + ρ_h) = R x^(H−1) + Σ_k q_k x^k
// (R = Σ_h r_h), the equations are w_i·D(n_i) = Q(n_i): H + 1 linear
// equations in the 2H − 1 unknowns e_1…e_H, q_0…q_(H−2). Their solutions
// form a family of dimension H − 2 (none for H = 1, where ρ = r/w_0 − n_0;
// one point for H = 2), and a member is a solution of the frugal
// equations where Q/D has the residue r_h at −ρ_h for every head h.
//
// For H = 3 the family is a line, (e, q) = a + τ·b. The pole x = −ρ_g of
// a head g satisfies D_τ(x) = 0 and G_τ(x) = Q_τ(x) − r_g·D′_τ(x) = 0 (its
// residue is r_g), two equations affine in τ: eliminating τ leaves
// E(x) = Da(x)·Gb(x) − Db(x)·Ga(x) = 0, a quartic. Each of its roots x0
// gives τ, and D_τ's other two roots, those of the quadratic
// D_τ(x)/(x − x0), are the other heads' poles, in either order. The head
// g is the one with the largest |r_g|.

// eliminate returns the labelled solutions for H ≤ 3 (see above).
func eliminate(r, n, w []float64) (Result, error) {
	hc := len(r)
	if hc == 1 {
		// w_0 = r/(n_0 + ρ).
		if w[0] == 0 {
			return Result{Lost: 1}, nil
		}
		return Result{Solutions: [][]complex128{{complex(r[0]/w[0]-n[0], 0)}}}, nil
	}
	var sum float64
	for _, v := range r {
		sum += v
	}
	// Rows: Σ_k e_k w_i n_i^(H−k) − Σ_k q_k n_i^k = R n_i^(H−1) − w_i n_i^H;
	// columns e_1…e_H, then q_0…q_(H−2).
	cols := 2*hc - 1
	a := make([][]float64, hc+1)
	b := make([]float64, hc+1)
	for i := range a {
		a[i] = make([]float64, cols)
		pow := make([]float64, hc+1)
		pow[0] = 1
		for k := 1; k <= hc; k++ {
			pow[k] = float64(pow[k-1] * n[i])
		}
		for k := 1; k <= hc; k++ {
			a[i][k-1] = float64(w[i] * pow[hc-k])
		}
		for k := 0; k <= hc-2; k++ {
			a[i][hc+k] = -pow[k]
		}
		b[i] = float64(sum*pow[hc-1]) - float64(w[i]*pow[hc])
	}
	base, dir, ok := linalg.Line(a, b)
	if !ok {
		return Result{Lost: 1}, nil
	}
	// D and Q of the member at τ, coefficients highest first.
	member := func(tau complex128) (d, q []complex128) {
		at := func(k int) complex128 {
			v := complex(base[k], 0)
			if dir != nil {
				v += mul(tau, complex(dir[k], 0))
			}
			return v
		}
		d = []complex128{1}
		for k := 1; k <= hc; k++ {
			d = append(d, at(k-1))
		}
		q = []complex128{complex(sum, 0)}
		for k := hc - 2; k >= 0; k-- {
			q = append(q, at(hc+k))
		}
		return d, q
	}
	var res Result
	if hc == 2 {
		d, _ := member(0)
		x, ok := polyRoots(d)
		if !ok {
			return Result{Lost: 1}, nil
		}
		res.Solutions = [][]complex128{{-x[0], -x[1]}, {-x[1], -x[0]}}
		return res, nil
	}
	// H = 3: the quartic E of head g.
	g := 0
	for h := range r {
		if math.Abs(r[h]) > math.Abs(r[g]) {
			g = h
		}
	}
	rg := r[g]
	// Da, Db: D = Da + τ·Db; Ga, Gb: G = Q − r_g·D′ = Ga + τ·Gb.
	da := []float64{1, base[0], base[1], base[2]}
	db := []float64{dir[0], dir[1], dir[2]}
	ga := []float64{sum - float64(3*rg), base[hc+1] - float64(2*float64(rg*base[0])), base[hc] - float64(rg*base[1])}
	gb := []float64{dir[hc+1] - float64(2*float64(rg*dir[0])), dir[hc] - float64(rg*dir[1])}
	e := polySub(polyMul(da, gb), polyMul(db, ga))
	e = trimLeading(e)
	if len(e) < 2 {
		return Result{Lost: 1}, nil
	}
	xs, ok := polyRoots(toComplex(e))
	if !ok {
		return Result{Lost: 1}, nil
	}
	others := make([]int, 0, 2)
	for h := range r {
		if h != g {
			others = append(others, h)
		}
	}
	cda, cdb, cga, cgb := toComplex(da), toComplex(db), toComplex(ga), toComplex(gb)
	at := func(p []complex128, z complex128) complex128 { v, _ := horner(p, z); return v }
	for _, x0 := range xs {
		dav, dbv := at(cda, x0), at(cdb, x0)
		gav, gbv := at(cga, x0), at(cgb, x0)
		var tau complex128
		switch {
		case abs2(dbv) >= abs2(gbv) && abs2(dbv) > 0:
			tau = -div(dav, dbv)
		case abs2(gbv) > 0:
			tau = -div(gav, gbv)
		default:
			res.Lost++
			continue
		}
		// Head g's root of D_τ is at x0; the other two, in either
		// order, are the other heads'.
		d, _ := member(tau)
		xg, rest, ok := otherRoots(d, x0)
		if !ok {
			res.Lost++
			continue
		}
		for _, order := range [][2]int{{0, 1}, {1, 0}} {
			s := make([]complex128, 3)
			s[g] = -xg
			s[others[0]], s[others[1]] = -rest[order[0]], -rest[order[1]]
			res.Solutions = append(res.Solutions, s)
		}
	}
	return res, nil
}

// otherRoots returns the root of the monic cubic d (highest first) at x0
// and its other two. Fast: the quotient d/(x − x0), a quadratic solved in
// closed form, each of its roots refined by one Newton step on d. That
// is kept where d is within rounding of 0 at x0 and at both roots
// (rootTol of the size of its terms); otherwise, as where two roots are
// close and x0 is off by more than rounding, all three come from the
// Aberth–Ehrlich iteration, the root nearest x0 first. It reports false
// where no roots were found.
func otherRoots(d []complex128, x0 complex128) (complex128, [2]complex128, bool) {
	if y, ok := deflatedRoots(d, x0); ok && isRoot(d, x0) && isRoot(d, y[0]) && isRoot(d, y[1]) {
		return x0, y, true
	}
	ys, ok := polyRoots(d)
	if !ok {
		return 0, [2]complex128{}, false
	}
	near := 0
	for k := range ys {
		if abs2(ys[k]-x0) < abs2(ys[near]-x0) {
			near = k
		}
	}
	var rest [2]complex128
	m := 0
	for k := range ys {
		if k != near {
			rest[m] = ys[k]
			m++
		}
	}
	return ys[near], rest, true
}

// rootTol is how far from 0, relative to the size of its terms, a
// polynomial's value at a computed root may be: rounding leaves a few
// units of 1e-16.
const rootTol = 1e-13

// isRoot reports whether |d(y)| is within rootTol of Σ_k |d_k|·|y|^k.
func isRoot(d []complex128, y complex128) bool {
	v, _ := horner(d, y)
	ay := math.Sqrt(abs2(y))
	var size float64
	for _, c := range d {
		size = float64(size*ay) + math.Sqrt(abs2(c))
	}
	return abs2(v) <= float64(rootTol*rootTol)*float64(size*size)
}

// deflatedRoots returns the roots of the quotient of the monic cubic d
// (highest first) by x − x0, each refined by one Newton step on d, and
// whether they are finite.
func deflatedRoots(d []complex128, x0 complex128) ([2]complex128, bool) {
	// x² + p·x + q = d/(x − x0), by synthetic division.
	p := d[1] + x0
	q := d[2] + mul(p, x0)
	sd := csqrt(mul(p, p) - scale(q, 4))
	// The sign that adds to p, so that y1 carries no cancellation.
	if float64(real(p)*real(sd))+float64(imag(p)*imag(sd)) < 0 {
		sd = -sd
	}
	y := [2]complex128{scale(p+sd, -0.5), 0}
	if abs2(y[0]) > 0 {
		y[1] = div(q, y[0])
	}
	for k := range y {
		v, dv := horner(d, y[k])
		if abs2(dv) > 0 {
			y[k] -= div(v, dv)
		}
		if !finite(y[k]) {
			return y, false
		}
	}
	return y, true
}

// csqrt returns the principal square root of z (its real part ≥ 0), with
// every product rounded explicitly (complex.go).
func csqrt(z complex128) complex128 {
	a, b := real(z), imag(z)
	s := math.Max(math.Abs(a), math.Abs(b))
	if s == 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		return complex(math.Sqrt(s), 0)
	}
	a, b = a/s, b/s
	m := math.Sqrt(float64(a*a) + float64(b*b))
	t := math.Sqrt((m + math.Abs(a)) / 2)
	var r complex128
	if a >= 0 {
		r = complex(t, b/(2*t))
	} else {
		r = complex(math.Abs(b)/(2*t), math.Copysign(t, b))
	}
	return scale(r, math.Sqrt(s))
}

// polyMul multiplies two polynomials, coefficients highest first.
func polyMul(a, b []float64) []float64 {
	out := make([]float64, len(a)+len(b)-1)
	for i, u := range a {
		for j, v := range b {
			out[i+j] += float64(u * v)
		}
	}
	return out
}

// polySub returns a − b, coefficients highest first, aligned at the end.
func polySub(a, b []float64) []float64 {
	n := max(len(a), len(b))
	out := make([]float64, n)
	for i, v := range a {
		out[n-len(a)+i] += v
	}
	for i, v := range b {
		out[n-len(b)+i] -= v
	}
	return out
}

// trimLeading drops leading coefficients below 1e-13 of the largest (a
// root beyond every pole that matters).
func trimLeading(p []float64) []float64 {
	var m float64
	for _, v := range p {
		m = math.Max(m, math.Abs(v))
	}
	for len(p) > 0 && !(math.Abs(p[0]) > 1e-13*m) {
		p = p[1:]
	}
	return p
}

// toComplex returns the real coefficients p as complex ones.
func toComplex(p []float64) []complex128 {
	out := make([]complex128, len(p))
	for k, v := range p {
		out[k] = complex(v, 0)
	}
	return out
}
