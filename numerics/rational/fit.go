package rational

import (
	"fmt"
	"math"
	"sort"

	"headlab/numerics/internal/xmath"
)

// MaxPoles is the largest number of poles (or bound on it) Fit accepts.
const MaxPoles = 32

// DefaultTolerance is the relative sample accuracy assumed when
// Options.Tolerance is zero: a few units of float64 rounding.
const DefaultTolerance = 1e-15

// misfitLimit is the largest normalised residual (in units of the sample
// accuracy, see Result.Misfit) with which a fit counts as explaining the
// samples when the number of poles is detected.
const misfitLimit = 10

// eps is the float64 unit roundoff.
const eps = 0x1p-52

// Options tunes Fit. The zero value fits a constant; set Poles.
type Options struct {
	// Poles is the number of poles H to fit or, with UpperBound, the
	// largest number allowed (H0). At most MaxPoles.
	Poles int

	// UpperBound makes Poles an upper bound: Fit returns the fit with the
	// fewest poles that explains the samples to within Tolerance (MATH.md
	// §3.5). Without it Fit returns exactly Poles poles or an error.
	UpperBound bool

	// KnownC fixes the constant C (the limit of F at infinity) to the value
	// of the field C instead of fitting it. Then 2H samples determine H
	// poles instead of 2H+1 (MATH.md §3.2).
	KnownC bool
	// C is the known constant, used only when KnownC is set.
	C float64

	// Tolerance is the relative accuracy of the samples: each f_i is taken
	// to be accurate to Tolerance·(|f_i| + max_k |f_k|). It sets the noise
	// model of the least-squares polish, the error estimates, and the
	// threshold for detecting the number of poles. Zero means
	// DefaultTolerance.
	Tolerance float64
}

// Result is a fitted rational function
//
//	F(n) = C + Σ_h Residues[h] / (n + Poles[h])
//
// with its poles at n = −Poles[h] < 0, and the fit's error estimates.
type Result struct {
	// C is the constant term, the limit of F at infinity.
	C float64
	// Poles holds ρ_h > 0 in increasing order: F has a pole at n = −ρ_h.
	Poles []float64
	// Residues holds R_h, the residue at the pole −Poles[h].
	Residues []float64

	// CError, PoleErrors and ResidueErrors are first-order standard errors
	// under the noise model of Options.Tolerance: the absolute error of C,
	// the relative error of each ρ_h (the standard error of log ρ_h), and
	// the absolute error of each R_h.
	CError        float64
	PoleErrors    []float64
	ResidueErrors []float64

	// Cond is the relative condition number of the fit: a relative change
	// of δ in every sample changes C (relative to max|f|), every ρ_h and
	// every R_h relatively by at most about Cond·δ. +Inf when a parameter
	// is not determined by the samples.
	Cond float64
	// Residual is max_i |F(n_i) − f_i| / max_i |f_i| (absolute when every
	// f_i is zero).
	Residual float64
	// Misfit is the largest residual in units of the sample accuracy
	// (Options.Tolerance plus the rounding of evaluating F): about 1 or less
	// when the function explains the samples, far larger when it does not.
	Misfit float64
}

// Eval returns F(n) = C + Σ_h R_h/(n + ρ_h). It is ±Inf or NaN at a pole.
func (r Result) Eval(n float64) float64 {
	y := r.C
	for h, rho := range r.Poles {
		y += r.Residues[h] / (n + rho)
	}
	return y
}

// LogPoles returns p_h = log ρ_h for every pole (MATH.md §3.1: in recovery,
// p_h = (z−a)ᵀ W_h z).
func (r Result) LogPoles() []float64 {
	p := make([]float64, len(r.Poles))
	for h, rho := range r.Poles {
		p[h] = xmath.Log(rho)
	}
	return p
}

// Values returns r_h = R_h/ρ_h for every pole (MATH.md §3.1: in recovery,
// r_h = v_h·(z−a)).
func (r Result) Values() []float64 {
	v := make([]float64, len(r.Poles))
	for h, rho := range r.Poles {
		v[h] = r.Residues[h] / rho
	}
	return v
}

// Fit fits F(n) = C + Σ_h R_h/(n + ρ_h) with real ρ_h > 0 to the samples
// f[i] = F(n[i]). It needs len(n) ≥ 2H+1 samples (2H with opt.KnownC) at
// distinct finite points; more samples give a least-squares fit. When the
// samples determine no such function (complex or non-negative poles, fewer
// visible poles than opt.Poles, or no fit within the tolerance under
// opt.UpperBound) it returns an *Error saying why, and a zero Result. With
// more samples than needed and a fixed number of poles, the least-squares
// fit is returned even if it does not explain the samples: Result.Misfit
// says how well it does.
func Fit(n, f []float64, opt Options) (Result, error) {
	p, err := newProblem(n, f, opt)
	if err != nil {
		return Result{}, err
	}
	if !opt.UpperBound {
		fit, err := p.fixed(opt.Poles)
		if err != nil {
			return Result{}, err
		}
		return p.significant(p.result(fit))
	}
	var last error
	for h := 0; h <= opt.Poles; h++ {
		if len(p.x) < p.needed(h) {
			break
		}
		fit, err := p.fixed(h)
		if err != nil {
			last = err
			continue
		}
		res, err := p.significant(p.result(fit))
		if err != nil {
			last = err
			continue
		}
		if res.Misfit <= misfitLimit || len(p.x) == p.needed(h) {
			return res, nil
		}
		last = &Error{Reason: NotExplained, Poles: complexPoles(res.Poles),
			Detail: fmt.Sprintf("%d poles leave a residual of %.3g times the sample accuracy", h, res.Misfit)}
	}
	if last == nil {
		last = errorf(TooFewSamples, "%d samples", len(p.x))
	}
	if e, ok := last.(*Error); ok && e.Reason != NotExplained {
		ne := errorf(NotExplained, "no fit with at most %d poles (%v)", opt.Poles, e)
		ne.Poles = e.Poles
		return Result{}, ne
	}
	return Result{}, last
}

// problem holds the samples scaled to order one: x = n/ns, g = (f − C)/fs
// with ns, fs powers of two (so the scaling is exact).
type problem struct {
	x, g   []float64
	sigma  []float64 // noise model of each scaled sample
	knownC bool
	c      float64 // scaled known C
	ns, fs float64
	fmax   float64 // max |f| in scaled units
	tol    float64
}

func newProblem(n, f []float64, opt Options) (*problem, error) {
	switch {
	case len(n) != len(f):
		return nil, errorf(BadInput, "%d sample points but %d values", len(n), len(f))
	case opt.Poles < 0:
		return nil, errorf(BadInput, "negative number of poles %d", opt.Poles)
	case opt.Poles > MaxPoles:
		return nil, errorf(BadInput, "%d poles asked, at most %d supported", opt.Poles, MaxPoles)
	case math.IsNaN(opt.Tolerance) || opt.Tolerance < 0 || opt.Tolerance >= 1:
		return nil, errorf(BadInput, "tolerance %v outside [0, 1)", opt.Tolerance)
	case opt.KnownC && !finite(opt.C):
		return nil, errorf(BadInput, "known C is %v", opt.C)
	}
	var nmax, fmax float64
	for i := range n {
		if !finite(n[i]) || !finite(f[i]) {
			return nil, errorf(BadInput, "sample %d is (%v, %v)", i, n[i], f[i])
		}
		nmax = math.Max(nmax, math.Abs(n[i]))
		fmax = math.Max(fmax, math.Abs(f[i]))
	}
	p := &problem{knownC: opt.KnownC, tol: opt.Tolerance}
	if p.tol == 0 {
		p.tol = DefaultTolerance
	}
	need := max(1, p.needed(opt.Poles))
	if opt.UpperBound {
		need = max(1, p.needed(0))
	}
	if len(n) < need {
		return nil, errorf(TooFewSamples, "%d samples for %d poles, need %d", len(n), opt.Poles, need)
	}
	fscale := fmax
	if opt.KnownC {
		fscale = math.Max(fscale, math.Abs(opt.C))
	}
	p.ns, p.fs = pow2(nmax), pow2(fscale)
	p.fmax = fmax / p.fs
	if opt.KnownC {
		p.c = opt.C / p.fs
	}
	m := len(n)
	p.x = make([]float64, m)
	p.g = make([]float64, m)
	p.sigma = make([]float64, m)
	for i := range n {
		p.x[i] = n[i] / p.ns
		fi := f[i] / p.fs
		p.g[i] = fi - p.c
		p.sigma[i] = float64(p.tol*(math.Abs(fi)+p.fmax)) + math.SmallestNonzeroFloat64
	}
	// Distinct points, well apart relative to their range.
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p.x[order[a]] < p.x[order[b]] })
	for k := 1; k < m; k++ {
		if p.x[order[k]]-p.x[order[k-1]] <= 1e-12 {
			return nil, errorf(BadInput, "sample points %v and %v coincide", n[order[k-1]], n[order[k]])
		}
	}
	return p, nil
}

// needed returns the number of samples that determine h poles.
func (p *problem) needed(h int) int {
	if p.knownC {
		return 2 * h
	}
	return 2*h + 1
}

// params are the parameters of a fit in scaled units: C (scaled, including
// the known part), residues and q_h = log ρ_h.
type params struct {
	c float64
	r []float64
	q []float64
}

// fixed fits exactly h poles.
func (p *problem) fixed(h int) (params, error) {
	if len(p.x) < p.needed(h) {
		return params{}, errorf(TooFewSamples, "%d samples for %d poles, need %d", len(p.x), h, p.needed(h))
	}
	if h == 0 {
		return p.polish(params{}), nil
	}
	sup, w, err := p.aaa(h + 1)
	if err != nil {
		return params{}, err
	}
	xs := make([]float64, len(sup))
	for k, i := range sup {
		xs[k] = p.x[i]
	}
	lam, err := barycentricPoles(xs, w)
	if err != nil {
		return params{}, err
	}
	unscaled := func() []complex128 {
		out := make([]complex128, len(lam))
		for k, l := range lam {
			out[k] = complex(real(l)*p.ns, imag(l)*p.ns) // no complex product: its parts could fuse
		}
		return out
	}
	// A complex pair is how rounding or noise shows two close real poles:
	// the pair is split into two real poles Re λ ± |Im λ| and kept only if
	// the polished real fit explains the samples to their accuracy.
	q := make([]float64, 0, len(lam))
	split := false
	for _, l := range lam {
		re, im := real(l), imag(l)
		if math.Abs(im) > 1e-12*(1+math.Abs(re)) {
			if im < 0 {
				continue // the conjugate of a pole already taken
			}
			if re >= 0 || re+im >= 0 || !finite(re) {
				e := errorf(ComplexPoles, "pole %.6g%+.6gi", re*p.ns, im*p.ns)
				e.Poles = unscaled()
				return params{}, e
			}
			q = append(q, xmath.Log(-(re - im)), xmath.Log(-(re + im)))
			split = true
			continue
		}
		if re >= 0 || !finite(re) {
			e := errorf(NonNegativePole, "pole at n = %.6g", re*p.ns)
			e.Poles = unscaled()
			return params{}, e
		}
		q = append(q, xmath.Log(-re))
	}
	if len(q) != len(lam) {
		e := errorf(ComplexPoles, "unpaired complex pole")
		e.Poles = unscaled()
		return params{}, e
	}
	sort.Float64s(q)
	c, r, ok := p.residues(q)
	if !ok {
		return params{}, errorf(Degenerate, "residues are not determined by the samples")
	}
	fit := sorted(p.polish(params{c: c, r: r, q: q}))
	if err := p.check(fit); err != nil {
		return params{}, err
	}
	if split {
		if res := p.result(fit); res.Misfit > misfitLimit {
			var cp complex128
			for _, l := range lam {
				if imag(l) > 0 {
					cp = complex(real(l)*p.ns, imag(l)*p.ns)
					break
				}
			}
			e := errorf(ComplexPoles, "pole %.6g%+.6gi; the nearest real poles leave a residual %.3g times the sample accuracy", real(cp), imag(cp), res.Misfit)
			e.Poles = unscaled()
			return params{}, e
		}
	}
	return fit, nil
}

// check rejects polished fits that leave the family or show fewer poles.
func (p *problem) check(fit params) error {
	for h, q := range fit.q {
		rho := xmath.Exp(q) * p.ns
		if !finite(q) || !finite(fit.r[h]) || !(rho > 0) || math.IsInf(rho, 0) || !finite(fit.r[h]*p.ns*p.fs) {
			return errorf(NonNegativePole, "pole %d left the representable range (log ρ = %v)", h, q+xmath.Log(p.ns))
		}
	}
	for h := 1; h < len(fit.q); h++ {
		if fit.q[h]-fit.q[h-1] <= 1e-10 {
			return errorf(Degenerate, "poles at n = %.6g coincide", -xmath.Exp(fit.q[h])*p.ns)
		}
	}
	noise := 0.0
	for _, s := range p.sigma {
		noise = math.Max(noise, s)
	}
	for h, q := range fit.q {
		rho := xmath.Exp(q)
		var contrib float64
		for _, x := range p.x {
			contrib = math.Max(contrib, math.Abs(fit.r[h]/(x+rho)))
		}
		if contrib <= misfitLimit*noise {
			return errorf(Degenerate, "pole at n = %.6g has a residue below the sample accuracy", -rho*p.ns)
		}
	}
	return nil
}

// significant rejects fits with a pole whose position the samples do not
// determine: a relative standard error of ρ of 1/3 or more means the pole
// is not significantly on the negative axis (when it is near the samples)
// or not located at all (when it is far from them).
func (p *problem) significant(r Result) (Result, error) {
	for h, rho := range r.Poles {
		if r.PoleErrors[h] < 1.0/3 {
			continue
		}
		if rho < p.ns {
			return Result{}, &Error{Reason: NonNegativePole, Poles: complexPoles(r.Poles),
				Detail: fmt.Sprintf("pole at n = %.6g is not distinguishable from n ≥ 0 (relative error %.2g)", -rho, r.PoleErrors[h])}
		}
		return Result{}, &Error{Reason: Degenerate, Poles: complexPoles(r.Poles),
			Detail: fmt.Sprintf("pole at n = %.6g is not located by the samples (relative error %.2g)", -rho, r.PoleErrors[h])}
	}
	return r, nil
}

func complexPoles(rho []float64) []complex128 {
	out := make([]complex128, len(rho))
	for h, v := range rho {
		out[h] = complex(-v, 0)
	}
	return out
}

// result converts a fit to the caller's units with its error estimates.
func (p *problem) result(fit params) Result {
	h := len(fit.q)
	res := Result{
		C:             (fit.c + p.c) * p.fs,
		Poles:         make([]float64, h),
		Residues:      make([]float64, h),
		PoleErrors:    make([]float64, h),
		ResidueErrors: make([]float64, h),
	}
	for k := range fit.q {
		res.Poles[k] = xmath.Exp(fit.q[k]) * p.ns
		res.Residues[k] = fit.r[k] * p.ns * p.fs
	}
	// Residuals and misfit.
	var rmax float64
	res.Misfit = 0
	for i, x := range p.x {
		y, mag := p.model(fit, x)
		d := math.Abs(y - p.g[i])
		rmax = math.Max(rmax, d)
		s := p.sigma[i] + float64(4*eps*(mag+math.Abs(p.c)+math.Abs(p.g[i])))
		res.Misfit = math.Max(res.Misfit, d/s)
	}
	if p.fmax > 0 {
		res.Residual = rmax / p.fmax
	} else {
		res.Residual = rmax * p.fs
	}
	// Error estimates from the weighted Jacobian, and the relative
	// condition number from the Jacobian in relative parameters.
	cov := p.covariance(fit)
	k := 0
	if !p.knownC {
		res.CError = math.Sqrt(cov[0]) * p.fs
		k = 1
	}
	for j := 0; j < h; j++ {
		res.ResidueErrors[j] = math.Sqrt(cov[k+j]) * p.ns * p.fs
		res.PoleErrors[j] = math.Sqrt(cov[k+h+j])
	}
	res.Cond = p.cond(fit)
	return res
}

// model returns the scaled model value at x (without the known C) and the
// sum of the magnitudes of its terms.
func (p *problem) model(fit params, x float64) (y, mag float64) {
	y, mag = fit.c, math.Abs(fit.c)
	for h, q := range fit.q {
		t := fit.r[h] / (x + xmath.Exp(q))
		y += t
		mag += math.Abs(t)
	}
	return y, mag
}

// sorted orders the poles by increasing ρ, keeping residues with them.
func sorted(fit params) params {
	idx := make([]int, len(fit.q))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return fit.q[idx[a]] < fit.q[idx[b]] })
	out := params{c: fit.c, r: make([]float64, len(idx)), q: make([]float64, len(idx))}
	for k, i := range idx {
		out.r[k], out.q[k] = fit.r[i], fit.q[i]
	}
	return out
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// pow2 returns the power of two nearest above |x| (at most 2^1023), or 1
// for x = 0.
func pow2(x float64) float64 {
	if x == 0 || !finite(x) {
		return 1
	}
	_, e := math.Frexp(x)
	return math.Ldexp(1, min(e, 1023))
}
