package rational

import (
	"fmt"
	"math"
	"math/big"

	"headlab/numerics/internal/bigpoly"
	"headlab/numerics/internal/linalg"
)

// BigOptions tunes FitBig.
type BigOptions struct {
	// Poles is the number of poles H, or with UpperBound the largest
	// number allowed.
	Poles int
	// UpperBound makes Poles an upper bound: FitBig returns the fit with
	// the fewest poles that reproduces every sample to within Tolerance.
	UpperBound bool
	// KnownC fixes the constant to C (then 2H samples determine H poles).
	KnownC bool
	C      *big.Float
	// Prec is the working precision in bits (at least 64).
	Prec uint
	// Tolerance is the relative accuracy to which the fit must reproduce
	// the samples it does not interpolate: |F(n_i) − f_i| ≤
	// Tolerance·(|f_i| + max_k |f_k|). Zero means 2^(−Prec/2).
	Tolerance float64
}

// BigResult is a rational function fitted in extended precision,
// F(n) = C + Σ_h Residues[h]/(n + Poles[h]), poles in increasing order.
type BigResult struct {
	C               *big.Float
	Poles, Residues []*big.Float
	// Misfit is the largest relative residual of the samples,
	// max_i |F(n_i) − f_i| / (|f_i| + max_k |f_k|): zero (to rounding) on
	// the samples the fit interpolates.
	Misfit float64
}

// Eval returns F(n) at the result's precision.
func (r BigResult) Eval(n *big.Float) *big.Float {
	y := new(big.Float).SetPrec(r.C.Prec()).Set(r.C)
	t := new(big.Float).SetPrec(r.C.Prec())
	for h, rho := range r.Poles {
		t.Add(n, rho)
		t.Quo(r.Residues[h], t)
		y.Add(y, t)
	}
	return y
}

// Float64 returns the result rounded to float64 as a Result (no error
// estimates: Cond is 0).
func (r BigResult) Float64() Result {
	out := Result{Poles: make([]float64, len(r.Poles)), Residues: make([]float64, len(r.Poles))}
	out.C, _ = r.C.Float64()
	for h := range r.Poles {
		out.Poles[h], _ = r.Poles[h].Float64()
		out.Residues[h], _ = r.Residues[h].Float64()
	}
	out.Misfit = r.Misfit
	return out
}

// FitBig fits F(n) = C + Σ_h R_h/(n + ρ_h), ρ_h > 0, to the samples in
// extended precision by the linearised interpolation of MATH.md §3.2:
// with Q monic of degree H and P of degree H (H−1 when C is known),
// P(n_i) = f_i·Q(n_i) at the first 2H+1 samples (2H), solved by Gaussian
// elimination with partial pivoting in a shifted and scaled variable. The
// poles are the roots of Q, found by bracketing between the roots of its
// derivative (all real when the model holds) and safeguarded Newton; the
// residues are P/Q' there. The remaining samples check the fit. In
// extended precision this plain method suffices where float64 needs the
// barycentric form (MATH.md §4). Samples that no admissible function
// explains (complex or non-negative poles, a singular system, a misfit
// above the tolerance) give an *Error.
func FitBig(n []float64, f []*big.Float, opt BigOptions) (BigResult, error) {
	switch {
	case len(n) != len(f):
		return BigResult{}, errorf(BadInput, "%d sample points but %d values", len(n), len(f))
	case opt.Poles < 0 || opt.Poles > MaxPoles:
		return BigResult{}, errorf(BadInput, "%d poles outside 0…%d", opt.Poles, MaxPoles)
	case opt.Prec < 64:
		return BigResult{}, errorf(BadInput, "precision %d bits, need at least 64", opt.Prec)
	case opt.KnownC && opt.C == nil:
		return BigResult{}, errorf(BadInput, "known C is nil")
	}
	for i := range n {
		if !finite(n[i]) || f[i] == nil || f[i].IsInf() {
			return BigResult{}, errorf(BadInput, "sample %d is not finite", i)
		}
		for k := 0; k < i; k++ {
			if n[k] == n[i] {
				return BigResult{}, errorf(BadInput, "sample points %v and %v coincide", n[k], n[i])
			}
		}
	}
	tol := opt.Tolerance
	if tol == 0 {
		tol = math.Ldexp(1, -int(opt.Prec/2))
	}
	need := func(h int) int {
		if opt.KnownC {
			return 2 * h
		}
		return 2*h + 1
	}
	lo := opt.Poles
	if opt.UpperBound {
		lo = 0
	}
	var last error
	for h := lo; h <= opt.Poles; h++ {
		if len(n) < need(h) {
			break
		}
		res, err := fitBigFixed(n, f, h, opt)
		if err != nil {
			last = err
			continue
		}
		if res.Misfit <= tol || len(n) == need(h) {
			return res, nil
		}
		last = errorf(NotExplained, "%d poles leave a relative residual of %.3g (tolerance %.3g)", h, res.Misfit, tol)
	}
	if last == nil {
		last = errorf(TooFewSamples, "%d samples for %d poles", len(n), opt.Poles)
	}
	return BigResult{}, last
}

// fitBigFixed fits exactly h poles through the first samples.
func fitBigFixed(n []float64, f []*big.Float, h int, opt BigOptions) (BigResult, error) {
	prec := opt.Prec
	num := func() *big.Float { return new(big.Float).SetPrec(prec) }
	m := 2*h + 1
	if opt.KnownC {
		m = 2 * h
	}
	// t = (n − mid)/half maps the interpolation points onto [−1, 1].
	nmin, nmax := n[0], n[0]
	for _, v := range n[:max(m, 1)] {
		nmin, nmax = math.Min(nmin, v), math.Max(nmax, v)
	}
	mid := num().SetFloat64((nmin + nmax) / 2)
	half := num().SetFloat64(math.Max((nmax-nmin)/2, 1))
	tOf := func(v float64) *big.Float {
		t := num().SetFloat64(v)
		t.Sub(t, mid)
		return t.Quo(t, half)
	}
	g := make([]*big.Float, len(f))
	var fmax float64
	for i := range f {
		g[i] = num().Set(f[i])
		if opt.KnownC {
			g[i].Sub(g[i], opt.C)
		}
		fi, _ := f[i].Float64()
		fmax = math.Max(fmax, math.Abs(fi))
	}
	// Unknowns: p_0…p_deg (deg = h, or h−1 when C is known), q_0…q_{h−1}.
	deg := h
	if opt.KnownC {
		deg = h - 1
	}
	nu := deg + 1 + h
	var pc, qc []*big.Float
	if nu > 0 {
		// P(t_i) − g_i·Σ_{k<h} q_k t_i^k = g_i·t_i^h.
		a, b := make([][]*big.Float, m), make([]*big.Float, m)
		for i := 0; i < m; i++ {
			t := tOf(n[i])
			pw := make([]*big.Float, max(deg, h)+1)
			pw[0] = num().SetInt64(1)
			for k := 1; k < len(pw); k++ {
				pw[k] = num().Mul(pw[k-1], t)
			}
			row := make([]*big.Float, nu)
			for k := 0; k <= deg; k++ {
				row[k] = num().Set(pw[k])
			}
			for k := 0; k < h; k++ {
				row[deg+1+k] = num().Mul(g[i], pw[k])
				row[deg+1+k].Neg(row[deg+1+k])
			}
			a[i], b[i] = row, num().Mul(g[i], pw[h])
		}
		// A pivot that has lost all but 8 bits counts as zero.
		x, ok := linalg.SolveBig(a, b, prec, linalg.Pivoting{ToleranceBits: int(prec) - 8})
		if !ok {
			return BigResult{}, errorf(Degenerate, "the linearised system for %d poles is singular", h)
		}
		pc, qc = x[:deg+1], append(append([]*big.Float(nil), x[deg+1:]...), num().SetInt64(1))
	} else {
		qc = []*big.Float{num().SetInt64(1)}
	}
	res := BigResult{C: num()}
	if opt.KnownC {
		res.C.Set(opt.C)
	} else if h == 0 {
		res.C.Set(pc[0])
	} else {
		res.C.Set(pc[h]) // P and Q both of degree h, Q monic
	}
	if h > 0 {
		roots, err := realRoots(qc, prec)
		if err != nil {
			return BigResult{}, err
		}
		dq := derivative(qc)
		// P of F − C: when C is unknown, P − C·Q has degree h−1.
		pr := pc
		if !opt.KnownC {
			pr = make([]*big.Float, h)
			for k := 0; k < h; k++ {
				pr[k] = num().Mul(res.C, qc[k])
				pr[k].Sub(pc[k], pr[k])
			}
		}
		for _, t := range roots {
			nn := num().Mul(t, half)
			nn.Add(nn, mid)
			rho := nn.Neg(nn)
			if rho.Sign() <= 0 {
				v, _ := rho.Float64()
				return BigResult{}, &Error{Reason: NonNegativePole, Detail: fmt.Sprintf("a pole at n = %.6g", -v)}
			}
			r := bigpoly.Eval(pr, t, prec)
			r.Quo(r, bigpoly.Eval(dq, t, prec))
			r.Mul(r, half)
			res.Poles = append(res.Poles, rho)
			res.Residues = append(res.Residues, r)
		}
		// Increasing ρ: the roots t came in increasing order, so reverse.
		for i, j := 0, len(res.Poles)-1; i < j; i, j = i+1, j-1 {
			res.Poles[i], res.Poles[j] = res.Poles[j], res.Poles[i]
			res.Residues[i], res.Residues[j] = res.Residues[j], res.Residues[i]
		}
	}
	scale := fmax
	if scale == 0 {
		scale = math.SmallestNonzeroFloat64
	}
	for i := range n {
		y := res.Eval(num().SetFloat64(n[i]))
		y.Sub(y, f[i])
		e, _ := y.Float64()
		fi, _ := f[i].Float64()
		res.Misfit = math.Max(res.Misfit, math.Abs(e)/(math.Abs(fi)+scale))
	}
	return res, nil
}

// derivative returns the coefficients of the derivative.
func derivative(c []*big.Float) []*big.Float {
	if len(c) <= 1 {
		return []*big.Float{new(big.Float)}
	}
	out := make([]*big.Float, len(c)-1)
	for k := 1; k < len(c); k++ {
		out[k-1] = new(big.Float).SetPrec(c[k].Prec()).Mul(c[k], new(big.Float).SetInt64(int64(k)))
	}
	return out
}

// realRoots returns the roots of the polynomial c (c[deg] ≠ 0) in
// increasing order when they are all real and simple. The roots of each
// derivative bracket those of the one below (Rolle), so the recursion from
// the linear derivative down gives one bracket per root, in which the
// polynomial is monotone; a bracket without a sign change means complex
// (or multiple) roots, an *Error.
func realRoots(c []*big.Float, prec uint) ([]*big.Float, error) {
	deg := len(c) - 1
	// Bound on the roots (Cauchy): 1 + max |c_k/c_deg|.
	lead, _ := c[deg].Float64()
	var bnd float64
	for _, v := range c[:deg] {
		x, _ := v.Float64()
		bnd = math.Max(bnd, math.Abs(x/lead))
	}
	bound := new(big.Float).SetPrec(prec).SetFloat64(1 + float64(2*bnd))
	ders := [][]*big.Float{c}
	for k := 1; k < deg; k++ {
		ders = append(ders, derivative(ders[k-1]))
	}
	var roots []*big.Float // of the current derivative
	for k := deg - 1; k >= 0; k-- {
		p := ders[k]
		dp := derivative(p)
		var next []*big.Float
		lo := new(big.Float).SetPrec(prec).Neg(bound)
		for i := 0; i <= len(roots); i++ {
			hi := bound
			if i < len(roots) {
				hi = roots[i]
			}
			r, ok := bracketRoot(p, dp, lo, hi, prec)
			if !ok {
				return nil, &Error{Reason: ComplexPoles, Detail: fmt.Sprintf("the denominator of degree %d has fewer than %d real roots", deg, deg)}
			}
			next = append(next, r)
			lo = hi
		}
		roots = next
	}
	return roots, nil
}

// bracketRoot returns the root of p in [lo, hi], where p is monotone, by
// Newton's method safeguarded by bisection; false if p does not change
// sign there.
func bracketRoot(p, dp []*big.Float, lo, hi *big.Float, prec uint) (*big.Float, bool) {
	num := func() *big.Float { return new(big.Float).SetPrec(prec) }
	a, b := num().Set(lo), num().Set(hi)
	fa, fb := bigpoly.Eval(p, a, prec), bigpoly.Eval(p, b, prec)
	if fa.Sign() == 0 {
		return a, true
	}
	if fb.Sign() == 0 {
		return b, true
	}
	if fa.Sign() == fb.Sign() {
		return nil, false
	}
	sa := fa.Sign()
	x := num().Add(a, b)
	x.SetMantExp(x, -1)
	step := num()
	for it := 0; it < int(prec)+200; it++ {
		fx := bigpoly.Eval(p, x, prec)
		if fx.Sign() == 0 {
			return x, true
		}
		if fx.Sign() == sa {
			a.Set(x)
		} else {
			b.Set(x)
		}
		d := bigpoly.Eval(dp, x, prec)
		nx := num()
		ok := d.Sign() != 0
		if ok {
			step.Quo(fx, d)
			nx.Sub(x, step)
			ok = nx.Cmp(a) > 0 && nx.Cmp(b) < 0 || (nx.Cmp(a) >= 0 && nx.Cmp(b) <= 0 && step.Sign() == 0)
		}
		if !ok {
			nx.Add(a, b)
			nx.SetMantExp(nx, -1)
			step.Sub(x, nx)
		}
		// Converged when the step is below the last bits of x.
		if step.Sign() == 0 || (x.Sign() != 0 && step.MantExp(nil) < x.MantExp(nil)-int(prec)+2) {
			return nx, true
		}
		w := num().Sub(b, a)
		if w.Sign() == 0 || (x.Sign() != 0 && w.MantExp(nil) < x.MantExp(nil)-int(prec)+1) {
			return nx, true
		}
		x = nx
	}
	return x, true
}
