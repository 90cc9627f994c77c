// Homotopy: every solution of H of the equations (H = 4, 5), by
// parameter homotopy. Cleared of denominators each equation is linear in
// every ρ_h separately, so H equations have at most H! isolated solutions
// (the multihomogeneous Bézout number), and exactly H! where all weights
// are equal: then they are linear in the elementary symmetric functions
// of the poles, whose roots and their H! orderings are every solution.
// The homotopy starts there, with complex weights and values drawn once
// from a fixed seed (so that, with probability one, no path meets a
// singular system on the way), and follows each of the H! start solutions
// along the straight line of parameters to the given ones by a
// fourth-order Runge–Kutta predictor and a Newton corrector.

package poles

import (
	"errors"
	"math"
	"math/rand/v2"

	"headlab/numerics/internal/parallel"
	"headlab/numerics/internal/xmath"
)

// homotopy returns every solution ρ ∈ ℂ^H of Σ_h r[h]/(n[i] + ρ_h) = w[i],
// i < H, where H = len(r) = len(n) = len(w), following the paths on up
// to workers goroutines at once. Each path depends on its start alone,
// and the ends are gathered in the order of the paths: the solutions are
// the same bits for any number of workers.
func homotopy(r, n, w []float64, workers int) (Result, error) {
	hc := len(r)
	s := newSystem(r, n, w)
	start, err := s.startRoots()
	if err != nil {
		return Result{}, err
	}
	perms := orderings(hc)
	ends := make([][]complex128, len(perms))
	parallel.Each(len(perms), workers, func() func(int) {
		ws := s.clone()
		return func(k int) {
			x := make([]complex128, hc)
			for h, i := range perms[k] {
				x[h] = start[i]
			}
			if end, ok := ws.track(x); ok {
				ends[k] = end
			}
		}
	})
	var res Result
	for _, end := range ends {
		if end == nil {
			res.Lost++
			continue
		}
		dup := false
		for _, e := range res.Solutions {
			if same(e, end) {
				dup = true
				break
			}
		}
		if dup {
			res.Lost++ // two paths met: the solution of one of them is missing
			continue
		}
		res.Solutions = append(res.Solutions, end)
	}
	return res, nil
}

// system is the homotopy from the start parameters (equal weights c,
// values w0) to the given ones (r1, w1) at the sample points n.
type system struct {
	hc     int
	n      []complex128
	r0, w0 []complex128
	r1, w1 []complex128
	dr     []complex128 // r1 − r0
	// Buffers of one evaluation (each goroutine's own: clone).
	r, w, f, sol []complex128
	jac, inv     [][]complex128
}

// startSeed fixes the start parameters: the paths, and so the solutions'
// last bits, are the same on every run.
const startSeed = 0x686f6d6f746f7079 // "homotopy"

func newSystem(r, n, w []float64) *system {
	hc := len(r)
	rng := rand.New(rand.NewPCG(startSeed, uint64(hc)))
	// Uniform in the square (−1, 1)²: exact bits from the generator, no
	// transcendental function whose last bit could depend on the platform.
	draw := func() complex128 { return complex(2*rng.Float64()-1, 2*rng.Float64()-1) }
	s := &system{hc: hc, n: make([]complex128, hc), r0: make([]complex128, hc), w0: make([]complex128, hc),
		r1: make([]complex128, hc), w1: make([]complex128, hc), dr: make([]complex128, hc)}
	s.buffers()
	// The scale of the given weights and values, so that the start
	// parameters are of the same size (the paths then stay short).
	var rs, ws float64
	for h := range r {
		rs = math.Max(rs, math.Abs(r[h]))
		ws = math.Max(ws, math.Abs(w[h]))
	}
	if rs == 0 {
		rs = 1
	}
	if ws == 0 {
		ws = 1
	}
	c := draw()
	for h := range r {
		s.n[h] = complex(n[h], 0)
		s.r0[h] = scale(c, rs)
		s.w0[h] = scale(draw(), ws)
		s.r1[h], s.w1[h] = complex(r[h], 0), complex(w[h], 0)
	}
	for h := range r {
		s.dr[h] = s.r1[h] - s.r0[h]
	}
	return s
}

// buffers gives s buffers of its own.
func (s *system) buffers() {
	hc := s.hc
	s.r, s.w, s.f, s.sol = make([]complex128, hc), make([]complex128, hc), make([]complex128, hc), make([]complex128, hc)
	s.jac, s.inv = make([][]complex128, hc), make([][]complex128, hc)
	for h := range s.jac {
		s.jac[h], s.inv[h] = make([]complex128, hc), make([]complex128, hc)
	}
}

// clone returns a system of the same parameters with buffers of its own.
func (s *system) clone() *system {
	c := *s
	c.buffers()
	return &c
}

// startRoots returns the poles of the start system, whose weights are all
// c: Σ_h c/(n_i + ρ_h) = c·D′(n_i)/D(n_i) with D(x) = Π_h (x + ρ_h), so
// c·D′(n_i) = w0_i·D(n_i) is linear in D's coefficients e_1…e_H, and the
// poles are minus D's roots.
func (s *system) startRoots() ([]complex128, error) {
	hc := s.hc
	c := s.r0[0]
	a := make([][]complex128, hc)
	b := make([]complex128, hc)
	for i := range a {
		a[i] = make([]complex128, hc)
		ni := s.n[i]
		pow := make([]complex128, hc+1) // pow[k] = n_i^k
		pow[0] = 1
		for k := 1; k <= hc; k++ {
			pow[k] = mul(pow[k-1], ni)
		}
		// D(x) = x^H + Σ_k e_k x^(H−k), D′(x) = H x^(H−1) + Σ_k (H−k) e_k x^(H−k−1).
		for k := 1; k <= hc; k++ {
			v := mul(s.w0[i], pow[hc-k])
			if k < hc {
				v -= mul(c, scale(pow[hc-k-1], float64(hc-k)))
			}
			a[i][k-1] = v
		}
		b[i] = mul(c, scale(pow[hc-1], float64(hc))) - mul(s.w0[i], pow[hc])
	}
	e := make([]complex128, hc)
	if !solve(a, b, e) {
		return nil, errors.New("poles: the start system is singular")
	}
	coef := append([]complex128{1}, e...)
	roots, ok := polyRoots(coef)
	if !ok {
		return nil, errors.New("poles: the start polynomial's roots did not converge")
	}
	for k := range roots {
		roots[k] = -roots[k]
	}
	return roots, nil
}

// params sets s.r, s.w to the parameters at t.
func (s *system) params(t float64) {
	for h := range s.r {
		s.r[h] = scale(s.r0[h], 1-t) + scale(s.r1[h], t)
		s.w[h] = scale(s.w0[h], 1-t) + scale(s.w1[h], t)
	}
}

// eval sets, at x and s's parameters, s.inv[i][h] = 1/(n_i + x_h), the
// residual f_i = Σ_h r_h·inv_ih − w_i into f (if f is not nil) and the
// Jacobian ∂f_i/∂x_h = −r_h·inv_ih² into s.jac; false at a pole.
func (s *system) eval(x, f []complex128) bool {
	for i, ni := range s.n {
		var v complex128
		for h, xh := range x {
			d := ni + xh
			dr, di := real(d), imag(d)
			m := 1 / (float64(dr*dr) + float64(di*di))
			if math.IsInf(m, 0) || math.IsNaN(m) || m == 0 {
				return false // at a pole or within 1e-154 of one, or |d|² beyond float64
			}
			inv := complex(float64(dr*m), -float64(di*m))
			s.inv[i][h] = inv
			ri := mul(s.r[h], inv)
			v += ri
			s.jac[i][h] = -mul(ri, inv)
		}
		if f != nil {
			f[i] = v - s.w[i]
		}
	}
	return true
}

// tangent sets dx to dx/dt at (x, t): J·dx = −∂f/∂t, with ∂f_i/∂t =
// Σ_h (r1_h − r0_h)/(n_i + x_h) − (w1_i − w0_i).
func (s *system) tangent(x []complex128, t float64, dx []complex128) bool {
	s.params(t)
	if !s.eval(x, nil) {
		return false
	}
	for i := range s.n {
		v := s.w1[i] - s.w0[i]
		for h := range x {
			v -= mul(s.dr[h], s.inv[i][h])
		}
		s.f[i] = v
	}
	return solve(s.jac, s.f, dx)
}

// newton takes up to iters Newton steps for the system at t from x (in
// place), stopping after a step below stop relative to the poles, and
// returns the relative size of the last step and whether every step
// shrank (a contraction) or reached stop.
func (s *system) newton(x []complex128, t float64, iters int, stop float64) (float64, bool) {
	s.params(t)
	last := math.Inf(1)
	for it := 0; it < iters; it++ {
		if !s.eval(x, s.f) {
			return math.Inf(1), false
		}
		for i := range s.f {
			s.f[i] = -s.f[i]
		}
		if !solve(s.jac, s.f, s.sol) {
			return math.Inf(1), false
		}
		size := relSize(s.sol, x)
		for h := range x {
			x[h] += s.sol[h]
		}
		if size < stop {
			return size, true
		}
		if size > last {
			return size, false
		}
		last = size
	}
	return last, true
}

// Path tracking: the step in t starts at firstStep; after each step the
// next is chosen from how far the corrector moved the predicted point
// (the predictor's error, fifth order in the step), aiming at
// predictorTol relative to the poles, at most maxStep. A path is lost
// below minStep (before endgame) or where a pole leaves maxPole.
const (
	firstStep    = 0.05
	maxStep      = 0.5
	minStep      = 1e-9
	maxPole      = 1e12
	predictorTol = 1e-4
	// A step is taken only where the corrector moved the prediction by
	// less than jump relative to the poles: a larger correction can land
	// on another path.
	jump = 1e-2
	// A corrected point is accepted when Newton's steps shrink and the
	// last is below corrected, relative to the poles.
	corrected = 1e-6
	maxSteps  = 5000
	// A path stuck after endgame is polished at t = 1 and kept if its end
	// solves the equations to solved, relative to their terms.
	endgame = 0.999
	solved  = 1e-11
	// A Newton step below converged, relative to the poles, is rounding.
	converged = 1e-13
)

// track follows the start solution x0 from t = 0 to 1 and returns its end,
// polished at t = 1, or false where the path is lost.
func (s *system) track(x0 []complex128) ([]complex128, bool) {
	hc := s.hc
	x := append([]complex128(nil), x0...)
	t, dt := 0.0, firstStep
	k1, k2, k3, k4 := make([]complex128, hc), make([]complex128, hc), make([]complex128, hc), make([]complex128, hc)
	y, pred := make([]complex128, hc), make([]complex128, hc)
	for steps := 0; t < 1; steps++ {
		if steps > maxSteps || dt < minStep {
			if t < endgame {
				return nil, false
			}
			// Near the end a path that cannot be corrected is going to an
			// ill-conditioned solution: Newton at t = 1 decides below.
			break
		}
		h := math.Min(dt, 1-t)
		// Runge–Kutta predictor.
		ok := s.tangent(x, t, k1)
		for i := range y {
			y[i] = x[i] + scale(k1[i], h/2)
		}
		ok = ok && s.tangent(y, t+h/2, k2)
		for i := range y {
			y[i] = x[i] + scale(k2[i], h/2)
		}
		ok = ok && s.tangent(y, t+h/2, k3)
		for i := range y {
			y[i] = x[i] + scale(k3[i], h)
		}
		ok = ok && s.tangent(y, t+h, k4)
		if ok {
			for i := range y {
				y[i] = x[i] + scale(k1[i]+scale(k2[i], 2)+scale(k3[i], 2)+k4[i], h/6)
			}
		}
		tn := t + h
		if h == 1-t {
			tn = 1
		}
		var size, moved float64
		var contract bool
		if ok {
			copy(pred, y)
			size, contract = s.newton(y, tn, 3, corrected)
			for i := range pred {
				pred[i] -= y[i]
			}
			moved = relSize(pred, y)
		}
		if !ok || !contract || !(size < corrected) || !(moved < jump) || bigPole(y) {
			dt = h / 2
			continue
		}
		copy(x, y)
		t = tn
		grow := 4.0
		if moved > 0 {
			// (predictorTol/moved)^(1/5), portably.
			grow = math.Min(4, math.Max(0.5, 0.8*xmath.Exp(0.2*xmath.Log(predictorTol/moved))))
		}
		dt = math.Min(h*grow, maxStep)
	}
	// Polish at the given parameters; the end must solve the equations to
	// a small multiple of their rounding.
	s.newton(x, 1, 12, converged) // to rounding's level, where sizes no longer shrink
	if bigPole(x) {
		return nil, false
	}
	f := s.f
	s.params(1)
	if !s.eval(x, f) {
		return nil, false
	}
	for i := range s.n {
		size := math.Sqrt(abs2(s.w[i]))
		for h := range x {
			size += math.Sqrt(abs2(mul(s.r[h], s.inv[i][h])))
		}
		if !(math.Sqrt(abs2(f[i])) <= solved*size) {
			return nil, false
		}
	}
	return x, true
}

func bigPole(x []complex128) bool {
	for _, v := range x {
		if !(abs2(v) < maxPole*maxPole) {
			return true
		}
	}
	return false
}

// same reports whether two solutions agree to 1e-8 relative.
func same(a, b []complex128) bool {
	for h := range a {
		if abs2(a[h]-b[h]) > 1e-16*(1+abs2(b[h])) {
			return false
		}
	}
	return true
}

// relSize is max_h |dx_h| / (1 + |x_h|).
func relSize(dx, x []complex128) float64 {
	var m float64
	for h := range dx {
		m = math.Max(m, math.Sqrt(abs2(dx[h])/(1+abs2(x[h]))))
	}
	return m
}

// orderings returns every permutation of 0…k−1 (Heap's algorithm).
func orderings(k int) [][]int {
	p := make([]int, k)
	for i := range p {
		p[i] = i
	}
	out := [][]int{append([]int(nil), p...)}
	c := make([]int, k)
	for i := 0; i < k; {
		if c[i] < i {
			if i%2 == 0 {
				p[0], p[i] = p[i], p[0]
			} else {
				p[c[i]], p[i] = p[i], p[c[i]]
			}
			out = append(out, append([]int(nil), p...))
			c[i]++
			i = 0
		} else {
			c[i] = 0
			i++
		}
	}
	return out
}
