package rational

import (
	"math"

	"headlab/numerics/internal/linalg"
	"headlab/numerics/internal/stopping"
	"headlab/numerics/internal/xmath"
)

// residues returns C (0 when known) and the residues R_h for the poles
// −exp(q_h) by weighted linear least squares, solved through the SVD of the
// column-scaled design matrix.
func (p *problem) residues(q []float64) (c float64, r []float64, ok bool) {
	m, h := len(p.x), len(q)
	off := 1
	if p.knownC {
		off = 0
	}
	a := newMatrix(m, off+h)
	b := make([]float64, m)
	for i, x := range p.x {
		if off == 1 {
			a.set(i, 0, 1/p.sigma[i])
		}
		for k, qk := range q {
			a.set(i, off+k, 1/((x+xmath.Exp(qk))*p.sigma[i]))
		}
		b[i] = p.g[i] / p.sigma[i]
	}
	theta, ok := lstsq(a, b)
	if !ok {
		return 0, nil, false
	}
	if off == 1 {
		c = theta[0]
	}
	return c, theta[off:], true
}

// lstsq solves min |A θ − b| through the SVD of A with unit-norm columns,
// discarding singular values below 1e-14 of the largest.
func lstsq(a *matrix, b []float64) ([]float64, bool) {
	n := a.n
	if n == 0 {
		return nil, true
	}
	if !a.finite() {
		return nil, false
	}
	for _, v := range b {
		if !finite(v) {
			return nil, false
		}
	}
	as := a.clone()
	scale := make([]float64, n)
	for j, c := range as.col {
		var s float64
		for _, v := range c {
			s = xmath.Hypot(s, v)
		}
		if s == 0 {
			s = 1
		}
		scale[j] = s
		for i := range c {
			c[i] /= s
		}
	}
	dec, ok := linalg.JacobiSVD(as.col)
	if !ok {
		return nil, false
	}
	x := dec.Solve(b, 1e-14)
	for j := range x {
		x[j] /= scale[j]
		if !finite(x[j]) {
			return nil, false
		}
	}
	return x, true
}

// theta packs the free parameters: C (unless known), the residues, the q_h.
func (p *problem) theta(fit params) []float64 {
	var t []float64
	if !p.knownC {
		t = append(t, fit.c)
	}
	t = append(t, fit.r...)
	return append(t, fit.q...)
}

func (p *problem) unpack(t []float64, h int) params {
	off := 0
	var fit params
	if !p.knownC {
		fit.c = t[0]
		off = 1
	}
	fit.r = append([]float64(nil), t[off:off+h]...)
	fit.q = append([]float64(nil), t[off+h:off+2*h]...)
	return fit
}

// residual returns the weighted residuals (F(x_i) − g_i)/σ_i and their sum
// of squares.
func (p *problem) residual(fit params) ([]float64, float64) {
	e := make([]float64, len(p.x))
	var ss float64
	for i, x := range p.x {
		y, _ := p.model(fit, x)
		e[i] = (y - p.g[i]) / p.sigma[i]
		ss += float64(e[i] * e[i])
	}
	if math.IsNaN(ss) {
		ss = math.Inf(1)
	}
	return e, ss
}

// jacobian returns the weighted Jacobian of the residuals in theta order.
func (p *problem) jacobian(fit params) *matrix {
	h := len(fit.q)
	off := 1
	if p.knownC {
		off = 0
	}
	j := newMatrix(len(p.x), off+2*h)
	for i, x := range p.x {
		s := p.sigma[i]
		if off == 1 {
			j.set(i, 0, 1/s)
		}
		for k, q := range fit.q {
			rho := xmath.Exp(q)
			d := 1 / (x + rho)
			j.set(i, off+k, d/s)
			j.set(i, off+h+k, -fit.r[k]*rho*d*d/s)
		}
	}
	return j
}

// polish refines all parameters by Gauss–Newton with step halving on the
// weighted residuals, each step solved through the SVD of the Jacobian.
// It stops when no step lowers the residual.
func (p *problem) polish(fit params) params {
	h := len(fit.q)
	t := p.theta(fit)
	if len(t) == 0 {
		return fit
	}
	e, ss := p.residual(fit)
	if len(e) == 0 {
		return fit
	}
	u := make([]float64, len(e)) // the residuals' rounding
	for i, g := range p.g {
		u[i] = stopping.Rounding(g, p.sigma[i])
	}
	b := make([]float64, len(e))
	for iter := 0; iter < 100 && ss > 0; iter++ {
		j := p.jacobian(fit)
		for i, v := range e {
			b[i] = -v
		}
		step, ok := lstsq(j, b)
		if !ok {
			break
		}
		// A step the linear model says cannot lower the misfit by more
		// than its rounding ends the polish (package stopping).
		if stopping.Negligible(ss-j.misfit(step, b), ss, stopping.Floor(e, u)) {
			break
		}
		improved := false
		for alpha := 1.0; alpha > 1e-6; alpha /= 2 {
			nt := make([]float64, len(t))
			for k := range t {
				nt[k] = t[k] + float64(alpha*step[k])
			}
			nf := p.unpack(nt, h)
			ne, nss := p.residual(nf)
			if nss < ss {
				t, fit, e, ss = nt, nf, ne, nss
				improved = true
				break
			}
		}
		if !improved {
			break
		}
	}
	return fit
}

// covariance returns the diagonal of (JᵀJ)⁻¹ for the weighted Jacobian J,
// the first-order variances of the parameters in theta order (+Inf for
// undetermined ones).
func (p *problem) covariance(fit params) []float64 {
	n := len(p.theta(fit))
	out := make([]float64, n)
	if n == 0 || len(p.x) == 0 {
		return out
	}
	j := p.jacobian(fit)
	dec, ok := linalg.JacobiSVD(j.col)
	if !ok {
		for k := range out {
			out[k] = math.Inf(1)
		}
		return out
	}
	for k := 0; k < n; k++ {
		for l := 0; l < n; l++ {
			if dec.S[l] == 0 {
				out[k] = math.Inf(1)
				break
			}
			out[k] += float64((dec.V[l][k] / dec.S[l]) * (dec.V[l][k] / dec.S[l]))
		}
	}
	return out
}

// cond returns √m/σ_min of the Jacobian of the samples (relative to their
// largest magnitude) with respect to the relative parameters C/max|f|,
// log|R_h| and log ρ_h.
func (p *problem) cond(fit params) float64 {
	h := len(fit.q)
	off := 1
	if p.knownC {
		off = 0
	}
	n := off + 2*h
	if n == 0 {
		return 1
	}
	if p.fmax == 0 {
		return math.Inf(1)
	}
	m := len(p.x)
	j := newMatrix(m, n)
	for i, x := range p.x {
		if off == 1 {
			j.set(i, 0, 1)
		}
		for k, q := range fit.q {
			rho := xmath.Exp(q)
			d := 1 / (x + rho)
			j.set(i, off+k, fit.r[k]*d/p.fmax)
			j.set(i, off+h+k, -fit.r[k]*rho*d*d/p.fmax)
		}
	}
	dec, ok := linalg.JacobiSVD(j.col)
	if !ok {
		return math.Inf(1)
	}
	smin := dec.S[n-1]
	if m < n || smin == 0 {
		return math.Inf(1)
	}
	return math.Sqrt(float64(m)) / smin
}
