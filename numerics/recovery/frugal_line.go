package recovery

import (
	"math"
	"math/big"

	"headlab/numerics/assign"
	"headlab/numerics/internal/bigpoly"
	"headlab/numerics/internal/linalg"
	"headlab/numerics/internal/poles"
)

// The line family (numerics/MATH.md §3.4; a rung of bigLadder): 2H − 2
// samples of a frugal measurement, at the working precision. With t(n) = (F(0) − y(n))/n = Σ_h r_h/(n + ρ_h)
// = Q(n)/P(n), P monic of degree H and Q of degree H − 1 with leading
// coefficient Σ_h r_h, each sample is one linear equation in the 2H − 1
// other coefficients, so 2H − 2 samples leave a line (P, Q) = (P₀, Q₀) +
// τ(P₁, Q₁). On it, the rational function has residue r_h at a pole −x
// where P(x) = 0 and Q(x) = r_h P′(x); eliminating τ = −P₀(x)/P₁(x) leaves
// one polynomial of degree 2H − 2 in x,
//
//	S(x) = (Q₀ − r_h P₀′)(x)·P₁(x) − (Q₁ − r_h P₁′)(x)·P₀(x),
//
// whose real roots give every point of the line where head h has its
// residue; each point's P gives all H poles, its Q their residues, which
// label them. The candidates are then polished on the samples and must be
// one solution (settleFrugal). The roots are float64's, refined together
// at the working precision (bigpoly.RealRoots): S often has two roots
// close to a true pole, which float64 rounds to a complex pair, and two
// poles 1e-9 apart are told apart. A root lost costs the saving, never a
// wrong head: only a polished solution is accepted.

// lineResidues is the largest mismatch, relative to the largest |r_h|,
// between a candidate's residues and the known r_h that is polished: a
// solution's is the noise (below 1e-16 in float64's comparison, at 256
// bits to H = 8), the other points of the line, where only head h has its
// residue, are off by 1e-8 or more (1e-4 typically; the 346 measurements
// that reached the line family at H = 5, 6 and 8, d = 2 and 4, 10 layers
// each, at 256 bits). A solution it drops costs the saving, not a head:
// the measurement goes on to economy's samples.
const lineResidues = 1e-9

// lineScreen is the mismatch, relative to the largest |r_h|, beyond which
// a point of the line is dropped on float64's evaluation of its residues
// (screenedOut), before any root is found at the working precision: a
// solution's float64 residues are good to 1e-8 or better where its poles
// are lineApart apart or more; closer ones are not screened.
const (
	lineScreen = 1e-3
	lineApart  = 1e-3
)

// lineStarts returns the candidate poles ρ (in head order) of the samples
// (n, y) of a frugal measurement, y(n) = f0 − Σ_h r_h·n/(n + ρ_h), from the
// line family of its first 2H − 2 samples; none where it has fewer, or
// the family is not a line.
func (l *learner) lineStarts(n []float64, y []*big.Float, f0 *big.Float, r []*big.Float) [][]*big.Float {
	x := l.x
	hc := len(r)
	m := 2*hc - 2
	if hc < 2 || len(n) < m {
		return nil
	}
	num := x.num
	rs := num()
	for _, v := range r {
		rs.Add(rs, v)
	}
	// The equations: Σ_k e_k t_s n_s^{H−k} − Σ_k q_k n_s^k = R n_s^{H−1} − t_s n_s^H
	// in the unknowns e_1…e_H (P's) and q_0…q_{H−2} (Q's).
	cols := 2*hc - 1
	a := make([][]*big.Float, m)
	for s := range a {
		ns := num().SetFloat64(n[s])
		ts := num().Sub(f0, y[s])
		ts.Quo(ts, ns)
		pw := make([]*big.Float, hc+1) // n_s^0…n_s^H
		pw[0] = num().SetInt64(1)
		for k := 1; k <= hc; k++ {
			pw[k] = num().Mul(pw[k-1], ns)
		}
		row := make([]*big.Float, cols+1)
		for k := 1; k <= hc; k++ {
			row[k-1] = num().Mul(ts, pw[hc-k])
		}
		for k := 0; k <= hc-2; k++ {
			row[hc+k] = num().Neg(pw[k])
		}
		rhs := num().Mul(rs, pw[hc-1])
		row[cols] = rhs.Sub(rhs, num().Mul(ts, pw[hc]))
		a[s] = row
	}
	u0, u1, ok := lineSolve(a, num)
	if !ok {
		return nil
	}
	// Ascending coefficients: P₀ = x^H + Σ e_k x^{H−k}, P₁ (degree < H),
	// Q₀ = R x^{H−1} + Σ q_k x^k, Q₁ (degree < H − 1).
	p0, p1 := make([]*big.Float, hc+1), make([]*big.Float, hc+1)
	q0, q1 := make([]*big.Float, hc), make([]*big.Float, hc)
	p0[hc], p1[hc] = num().SetInt64(1), num()
	for k := 1; k <= hc; k++ {
		p0[hc-k], p1[hc-k] = u0[k-1], u1[k-1]
	}
	q0[hc-1], q1[hc-1] = rs, num()
	for k := 0; k <= hc-2; k++ {
		q0[k], q1[k] = u0[hc+k], u1[hc+k]
	}
	// S for the head of the largest |r_h|: its residue stands out most.
	hs := 0
	for h := range r {
		if cmpAbs(r[h], r[hs]) > 0 {
			hs = h
		}
	}
	prec := num().Prec()
	sub := func(q, p []*big.Float) []*big.Float { // q − r_hs·p′
		d := bigpoly.Deriv(p, prec)
		for k := range d {
			d[k].Mul(d[k], r[hs])
		}
		return bigpoly.Sub(q, d, prec)
	}
	sp := bigpoly.Sub(bigpoly.Mul(sub(q0, p0), p1, prec), bigpoly.Mul(sub(q1, p1), p0, prec), prec)
	rf := make([]float64, len(r))
	rmax := 0.0
	for h := range r {
		rf[h] = bigFloat64(r[h])
		rmax = math.Max(rmax, math.Abs(rf[h]))
	}
	var out [][]*big.Float
	sr := negativeRoots(sp, prec)
	for _, xs := range sr {
		d := bigpoly.Eval(p1, xs, prec)
		if d.Sign() == 0 {
			continue
		}
		tau := bigpoly.Eval(p0, xs, prec)
		tau.Quo(tau.Neg(tau), d)
		pt, qt := make([]*big.Float, hc+1), make([]*big.Float, hc)
		for k := range pt {
			pt[k] = num().Add(p0[k], num().Mul(tau, p1[k]))
		}
		for k := range qt {
			qt[k] = num().Add(q0[k], num().Mul(tau, q1[k]))
		}
		// P = Π_h (n + ρ_h) with every ρ_h > 0 has positive coefficients.
		positive := true
		for _, v := range pt {
			positive = positive && v.Sign() > 0
		}
		if !positive {
			continue
		}
		if screenedOut(pt, qt, rf, rmax) {
			continue
		}
		roots := negativeRoots(pt, prec)
		if len(roots) != hc {
			continue
		}
		// Label the poles by their residues Q(x)/P′(x), nearest the r_h.
		// A solution's residues are the r_h but for the noise: polish only
		// the points of the line whose residues are near them.
		dp := bigpoly.Deriv(pt, prec)
		res := make([]float64, hc)
		for i, xr := range roots {
			v := bigpoly.Eval(qt, xr, prec)
			res[i] = bigFloat64(v.Quo(v, bigpoly.Eval(dp, xr, prec)))
		}
		perm, worst := residueLabels(res, rf)
		if perm == nil || !(worst <= lineResidues*rmax) {
			continue
		}
		rho := make([]*big.Float, hc)
		for i, h := range perm {
			rho[h] = num().Neg(roots[i])
		}
		out = append(out, rho)
	}
	return out
}

// screenedOut reports whether the member (p, q) of the line family is
// clearly not a solution with the residues r (largest |r_h| rmax), on
// float64's roots of p's rounding: they are all real and negative, and
// its residues q/p′ there, labelled at least cost, miss the r_h by more
// than lineScreen. Where float64 cannot tell (a complex pair, two roots
// closer than lineApart, a root that does not converge) it reports false.
func screenedOut(p, q []*big.Float, r []float64, rmax float64) bool {
	hc := len(r)
	pf := make([]float64, hc+1) // highest degree first, for poles.Roots
	for k, v := range p {
		pf[hc-k] = bigFloat64(v)
	}
	zs, ok := poles.Roots(pf)
	if !ok || len(zs) != hc {
		return false
	}
	qf, dp := make([]float64, hc), make([]float64, hc) // ascending
	for k := range qf {
		qf[k] = bigFloat64(q[k])
		dp[k] = float64(k+1) * bigFloat64(p[k+1])
	}
	res := make([]float64, hc)
	for i, z := range zs {
		x := real(z)
		if !(math.Abs(imag(z)) <= 1e-6*math.Abs(x)) || !(x < 0) {
			return false
		}
		for _, o := range zs[:i] {
			if !(math.Abs(real(o)-x) > lineApart*math.Abs(x)) {
				return false // a close pair: float64's residues there are noise
			}
		}
		var qv, dv float64
		for k := hc - 1; k >= 0; k-- {
			qv = float64(qv*x) + qf[k]
			dv = float64(dv*x) + dp[k]
		}
		res[i] = qv / dv
	}
	perm, worst := residueLabels(res, r)
	return perm != nil && worst > lineScreen*rmax
}

// residueLabels labels poles whose residues are res by the known r_h at
// least total mismatch (assign.MinSum): perm[i] is pole i's head. It
// returns the labelling with its largest mismatch, nil where there is
// none.
func residueLabels(res, r []float64) (perm []int, worst float64) {
	cost := make([][]float64, len(res))
	for i, v := range res {
		cost[i] = make([]float64, len(r))
		for h := range r {
			cost[i][h] = math.Abs(v - r[h])
		}
	}
	perm = assign.MinSum(cost)
	for i, h := range perm {
		worst = math.Max(worst, cost[i][h])
	}
	return perm, worst
}

// lineSolve solves the m × (m + 1) system a (the right-hand sides in the
// last of its m + 2 columns) by Gaussian elimination with complete
// pivoting, and returns the line of its solutions u₀ + τ·u₁; false where
// the system has rank below m.
func lineSolve(a [][]*big.Float, num func() *big.Float) (u0, u1 []*big.Float, ok bool) {
	b := make([]*big.Float, len(a))
	for i, row := range a {
		a[i], b[i] = row[:len(row)-1], row[len(row)-1]
	}
	return linalg.LineBig(a, b, num().Prec())
}

// cmpAbs compares |a| and |b| as Cmp does a and b.
func cmpAbs(a, b *big.Float) int {
	var x, y big.Float
	return x.Abs(a).Cmp(y.Abs(b))
}

// negativeRoots returns the real negative roots of c at the working
// precision prec (bigpoly.RealRoots); the converged flag does not matter,
// as every candidate is polished and checked on the samples.
func negativeRoots(c []*big.Float, prec uint) []*big.Float {
	roots, _ := bigpoly.RealRoots(c, prec)
	out := roots[:0]
	for _, v := range roots {
		if v.Sign() < 0 {
			out = append(out, v)
		}
	}
	return out
}
