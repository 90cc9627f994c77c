package fusion

import (
	"headlab/numerics/internal/linalg"
	"headlab/numerics/internal/xmath"

	"fmt"
	"math"
	"math/rand/v2"
)

// FitNote labels every FitResult: what the fewer-atoms experiment shows and
// what it does not.
const FitNote = "numerical experiment, not a proof: the smallest error this optimiser found " +
	"for a single head with k atoms on sampled queries; a better k-atom head may exist that it " +
	"did not find. That no k < 2^d atoms represent W_d exactly is the paper's theorem."

// Limits of the fewer-atoms experiment.
const (
	// MaxFitDim is the largest d FitFewer accepts (2^4 = 16 atoms).
	MaxFitDim = 4
	// MaxFitQueries bounds FitOptions.Train and FitOptions.Test.
	MaxFitQueries = 1 << 16
)

// FitOptions tunes FitFewer. Start from DefaultFitOptions; every field must
// be set (the zero value is refused, never silently replaced).
type FitOptions struct {
	// Train is the number of training queries (default 512).
	Train int
	// Test is the number of held-out queries on which errors are reported
	// (default 2048).
	Test int
	// Radius: queries are uniform in [−Radius, Radius]^d (default 4, where
	// σ runs from 0.018 to 0.982).
	Radius float64
	// Restarts is the number of random starting heads (default 6).
	Restarts int
	// Iterations is the most L-BFGS iterations per restart (default 1500).
	Iterations int
	// Tolerance ends a restart when the gradient's largest entry is at most
	// Tolerance (default 1e-13; the loss is half the mean squared error).
	Tolerance float64
	// Memory is the number of L-BFGS correction pairs kept (default 15).
	Memory int
	// Seed seeds the queries and the starting heads.
	Seed uint64
}

// DefaultFitOptions returns the options FitFewer is tuned for.
func DefaultFitOptions() FitOptions {
	return FitOptions{Train: 512, Test: 2048, Radius: 4, Restarts: 6, Iterations: 1500, Tolerance: 1e-13, Memory: 15, Seed: 1}
}

func (o FitOptions) validate() error {
	switch {
	case o.Train < 1 || o.Train > MaxFitQueries:
		return fmt.Errorf("fusion: FitOptions.Train = %d, want 1 to MaxFitQueries = %d", o.Train, MaxFitQueries)
	case o.Test < 1 || o.Test > MaxFitQueries:
		return fmt.Errorf("fusion: FitOptions.Test = %d, want 1 to MaxFitQueries = %d", o.Test, MaxFitQueries)
	case !(o.Radius > 0 && o.Radius <= 1e3):
		return fmt.Errorf("fusion: FitOptions.Radius = %v, want in (0, 1000]", o.Radius)
	case o.Restarts < 1 || o.Restarts > 1000:
		return fmt.Errorf("fusion: FitOptions.Restarts = %d, want 1 to 1000", o.Restarts)
	case o.Iterations < 1 || o.Iterations > 1e6:
		return fmt.Errorf("fusion: FitOptions.Iterations = %d, want 1 to 1e6", o.Iterations)
	case !(o.Tolerance >= 0 && o.Tolerance < 1):
		return fmt.Errorf("fusion: FitOptions.Tolerance = %v, want in [0, 1)", o.Tolerance)
	case o.Memory < 1 || o.Memory > 100:
		return fmt.Errorf("fusion: FitOptions.Memory = %d, want 1 to 100", o.Memory)
	}
	return nil
}

// FitRun is the outcome of one restart.
type FitRun struct {
	// TrainRMS is the root-mean-square error on the training queries.
	TrainRMS float64
	// TestRMS and TestMax are the RMS and largest absolute error on the
	// held-out queries.
	TestRMS, TestMax float64
	// Iterations and Evaluations count L-BFGS iterations and evaluations of
	// the loss with its gradient.
	Iterations, Evaluations int
	// Stop says why the restart ended.
	Stop string
}

// FitResult is the outcome of the fewer-atoms experiment: the best of the
// restarts by training error, its held-out errors, and every restart.
type FitResult struct {
	// D and K are the width and the number of atoms fitted.
	D, K int
	// Head is the best head found (lowest TrainRMS); nil before any restart
	// has finished.
	Head Head
	// TrainRMS, TestRMS and TestMax are Head's errors (see FitRun).
	TrainRMS, TestRMS, TestMax float64
	// ConstantRMS is the RMS deviation of W_d from its mean on the held-out
	// queries: the error of the best one-atom head, for scale.
	ConstantRMS float64
	// Runs holds every finished restart, in order.
	Runs []FitRun
	// Complete reports whether all restarts have finished.
	Complete bool
	// Note states that this is a numerical experiment, not a proof (FitNote).
	Note string
}

// Fitter runs the fewer-atoms experiment in small steps, so a browser can
// interleave it with drawing: call Step until it returns true, reading
// Progress and Result in between. The sequence of numbers is fixed by d, k
// and the options, whatever the caller does between steps.
type Fitter struct {
	d, k int
	opt  FitOptions

	trainQ, trainT []float64 // Train queries (row-major, d each) and W_d at them
	testQ, testT   []float64
	constantRMS    float64

	run     int  // current restart
	started bool // whether run has been initialised
	done    bool

	x, grad, dir, xt, gt []float64
	loss                 float64
	iter, evals          int
	s, y                 [][]float64
	rho, alpha           []float64
	stored, newest       int

	runs      []FitRun
	best      int
	bestTheta []float64

	work fitWork
}

// NewFitter prepares the experiment for 1 ≤ d ≤ MaxFitDim and
// 1 ≤ k ≤ 2^d atoms (k = 2^d is the sanity check that should reach ~0).
func NewFitter(d, k int, opt FitOptions) (*Fitter, error) {
	if d < 1 || d > MaxFitDim {
		return nil, fmt.Errorf("fusion: fit of W_d with d = %d, want 1 ≤ d ≤ MaxFitDim = %d", d, MaxFitDim)
	}
	if k < 1 || k > 1<<d {
		return nil, fmt.Errorf("fusion: fit of W_%d with k = %d atoms, want 1 ≤ k ≤ 2^d = %d", d, k, 1<<d)
	}
	if err := opt.validate(); err != nil {
		return nil, err
	}
	f := &Fitter{d: d, k: k, opt: opt, best: -1}
	f.trainQ, f.trainT = sampleQueries(d, opt.Train, opt.Radius, rand.New(rand.NewPCG(opt.Seed, 0x7261696e)))
	f.testQ, f.testT = sampleQueries(d, opt.Test, opt.Radius, rand.New(rand.NewPCG(opt.Seed, 0x74657374)))
	var mean, ss float64
	for _, t := range f.testT {
		mean += t
	}
	mean /= float64(len(f.testT))
	for _, t := range f.testT {
		ss += float64((t - mean) * (t - mean))
	}
	f.constantRMS = math.Sqrt(ss / float64(len(f.testT)))

	p := k*d + 2*k
	f.x, f.grad, f.dir = make([]float64, p), make([]float64, p), make([]float64, p)
	f.xt, f.gt = make([]float64, p), make([]float64, p)
	f.s, f.y = make([][]float64, opt.Memory), make([][]float64, opt.Memory)
	for i := range f.s {
		f.s[i], f.y[i] = make([]float64, p), make([]float64, p)
	}
	f.rho, f.alpha = make([]float64, opt.Memory), make([]float64, opt.Memory)
	f.work = fitWork{score: make([]float64, k)}
	return f, nil
}

// FitFewer fits a single head with k free atoms (keys, biases, values) to
// W_d(q) = Σ_j σ(q_j) by least squares on opt.Train queries uniform in
// [−Radius, Radius]^d, from opt.Restarts random starting heads (keys and
// biases N(0, 1), values uniform in [0, d]; L-BFGS with an analytic
// gradient and a weak Wolfe line search). The best restart is chosen by
// training error, and its errors on opt.Test held-out queries are reported,
// so the held-out numbers are not selected on. It runs a Fitter to
// completion; see NewFitter for the accepted d and k. The result is an
// experiment, not a proof (FitNote).
func FitFewer(d, k int, opt FitOptions) (FitResult, error) {
	f, err := NewFitter(d, k, opt)
	if err != nil {
		return FitResult{}, err
	}
	for !f.Step() {
	}
	return f.Result(), nil
}

// Step does a small, fixed piece of work (one L-BFGS iteration, or starting
// or finishing a restart) and reports whether the experiment is complete.
func (f *Fitter) Step() bool {
	if f.done {
		return true
	}
	if !f.started {
		f.startRun()
		return f.done
	}
	if stop := f.iterate(); stop != "" {
		f.finishRun(stop)
	}
	return f.done
}

// Progress returns the fraction of the iteration budget used, in [0, 1]; a
// restart that stops early counts as its whole budget.
func (f *Fitter) Progress() float64 {
	if f.done {
		return 1
	}
	total := float64(f.opt.Restarts) * float64(f.opt.Iterations)
	used := float64(float64(f.run)*float64(f.opt.Iterations)) + float64(f.iter)
	return math.Min(used/total, 1)
}

// Result returns the best head and errors over the restarts finished so far.
func (f *Fitter) Result() FitResult {
	r := FitResult{D: f.d, K: f.k, ConstantRMS: f.constantRMS, Complete: f.done, Note: FitNote,
		TrainRMS: math.NaN(), TestRMS: math.NaN(), TestMax: math.NaN()}
	r.Runs = append([]FitRun(nil), f.runs...)
	if f.best >= 0 {
		b := f.runs[f.best]
		r.Head = thetaHead(f.bestTheta, f.d, f.k)
		r.TrainRMS, r.TestRMS, r.TestMax = b.TrainRMS, b.TestRMS, b.TestMax
	}
	return r
}

func (f *Fitter) startRun() {
	rng := rand.New(rand.NewPCG(f.opt.Seed, 0x7374617274+uint64(f.run)))
	d, k := f.d, f.k
	for i := range f.x[:k*d+k] {
		f.x[i] = rng.NormFloat64()
	}
	for i := k*d + k; i < len(f.x); i++ {
		f.x[i] = float64(d) * rng.Float64()
	}
	f.loss = f.work.objective(f.grad, f.x, f.trainQ, f.trainT, d, k)
	f.iter, f.evals, f.stored, f.newest = 0, 1, 0, 0
	f.started = true
	if stop := f.converged(); stop != "" {
		f.finishRun(stop)
	}
}

// converged returns a stop reason, or "" to go on.
func (f *Fitter) converged() string {
	if !finite(f.loss) {
		return "non-finite loss"
	}
	g := 0.0
	for _, v := range f.grad {
		if !finite(v) {
			return "non-finite gradient"
		}
		g = math.Max(g, math.Abs(v))
	}
	if g <= f.opt.Tolerance {
		return "gradient below tolerance"
	}
	if f.iter >= f.opt.Iterations {
		return "iteration limit"
	}
	return ""
}

// Line search constants: the weak Wolfe conditions with sufficient
// decrease c1 and curvature c2 (Nocedal & Wright §3.1), which keep s·y > 0
// for the L-BFGS update, and a bound on the evaluations of one search.
const (
	wolfeC1      = 1e-4
	wolfeC2      = 0.9
	maxLineEvals = 60
)

// iterate performs one L-BFGS iteration: a direction from the stored
// corrections, a line search along it that brackets a step meeting the
// weak Wolfe conditions (doubling until bracketed, then bisecting), and the
// update of the corrections. It returns a stop reason, or "" to go on.
//
// The optimiser is written out here rather than taken from
// gonum.org/v1/gonum/optimize: gonum's vector kernels use amd64 assembly
// that sums in a different order from the pure Go used under GOOS=js, so
// its iterates, and the experiment's numbers, would differ between the
// command line and the browser.
func (f *Fitter) iterate() string {
	f.direction()
	gd := dotAll(f.grad, f.dir)
	if !(gd < 0) {
		// Not a descent direction: forget the corrections, use −∇.
		f.stored = 0
		f.direction()
		gd = dotAll(f.grad, f.dir)
		if !(gd < 0) {
			return "no descent direction"
		}
	}
	step := 1.0
	if f.stored == 0 {
		step = 1 / math.Sqrt(-gd) // 1/|∇| along −∇
	}
	lo, hi := 0.0, math.Inf(1)
	for e := 0; e < maxLineEvals; e++ {
		moved := false
		for i, xi := range f.x {
			f.xt[i] = xi + float64(step*f.dir[i])
			moved = moved || f.xt[i] != xi
		}
		if !moved {
			return "no progress (step below rounding)"
		}
		lt := f.work.objective(f.gt, f.xt, f.trainQ, f.trainT, f.d, f.k)
		f.evals++
		switch {
		case !finite(lt) || lt > f.loss+float64(float64(wolfeC1*step)*gd):
			hi = step
		case dotAll(f.gt, f.dir) < wolfeC2*gd:
			lo = step
		default:
			f.accept(lt)
			return f.converged()
		}
		if math.IsInf(hi, 1) {
			step *= 2
		} else {
			step = 0.5 * (lo + hi)
		}
	}
	return "line search: no weak Wolfe step in 60 evaluations (usually: loss flat to rounding)"
}

// accept moves to the line search's point and stores the correction pair
// (s, y) = (Δx, Δ∇) when s·y > 0 (always, up to rounding, under the
// curvature condition).
func (f *Fitter) accept(lt float64) {
	var sy float64
	for i := range f.x {
		sy += float64((f.xt[i] - f.x[i]) * (f.gt[i] - f.grad[i]))
	}
	if sy > 0 {
		slot := f.newest
		if f.stored > 0 {
			slot = (f.newest + 1) % len(f.s)
		}
		s, y := f.s[slot], f.y[slot]
		for i := range s {
			s[i] = f.xt[i] - f.x[i]
			y[i] = f.gt[i] - f.grad[i]
		}
		f.rho[slot] = 1 / sy
		f.newest = slot
		f.stored = min(f.stored+1, len(f.s))
	}
	f.x, f.xt = f.xt, f.x
	f.grad, f.gt = f.gt, f.grad
	f.loss = lt
	f.iter++
}

// direction puts the L-BFGS direction −H∇ into dir (two-loop recursion,
// Nocedal & Wright §7.2), or −∇ when no corrections are stored.
func (f *Fitter) direction() {
	for i, g := range f.grad {
		f.dir[i] = -g
	}
	m := len(f.s)
	if f.stored == 0 {
		return
	}
	for n := 0; n < f.stored; n++ {
		j := (f.newest - n + m) % m
		f.alpha[j] = f.rho[j] * dotAll(f.s[j], f.dir)
		linalg.Axpy(f.dir, -f.alpha[j], f.y[j])
	}
	yn := f.y[f.newest]
	gamma := 1 / (f.rho[f.newest] * dotAll(yn, yn))
	for i := range f.dir {
		f.dir[i] *= gamma
	}
	for n := f.stored - 1; n >= 0; n-- {
		j := (f.newest - n + m) % m
		beta := float64(f.rho[j] * dotAll(f.y[j], f.dir))
		linalg.Axpy(f.dir, f.alpha[j]-beta, f.s[j])
	}
}

func (f *Fitter) finishRun(stop string) {
	run := FitRun{Iterations: f.iter, Evaluations: f.evals, Stop: stop}
	h := thetaHead(f.x, f.d, f.k)
	run.TrainRMS, _ = headErrors(h, f.trainQ, f.trainT, f.d)
	run.TestRMS, run.TestMax = headErrors(h, f.testQ, f.testT, f.d)
	f.runs = append(f.runs, run)
	if finite(run.TrainRMS) && (f.best < 0 || run.TrainRMS < f.runs[f.best].TrainRMS) {
		f.best = len(f.runs) - 1
		f.bestTheta = append(f.bestTheta[:0], f.x...)
	}
	f.run++
	f.iter = 0
	f.started = false
	f.done = f.run == f.opt.Restarts
}

// sampleQueries draws n queries uniform in [−r, r]^d and W_d at them.
func sampleQueries(d, n int, r float64, rng *rand.Rand) (q, t []float64) {
	q, t = make([]float64, n*d), make([]float64, n)
	for i := range t {
		x := q[i*d : i*d+d]
		for j := range x {
			x[j] = r * (2*float64(rng.Float64()) - 1)
		}
		t[i] = SigmoidSumValue(x)
	}
	return q, t
}

// thetaHead unpacks θ = (keys k×d, biases k, values k) into a new Head.
func thetaHead(theta []float64, d, k int) Head {
	if len(theta) != k*d+2*k {
		return nil
	}
	keys := append([]float64(nil), theta[:k*d]...)
	h := make(Head, k)
	for i := range h {
		h[i] = Atom{Key: keys[i*d : i*d+d : i*d+d], Bias: theta[k*d+i], Value: theta[k*d+k+i]}
	}
	return h
}

// headErrors returns the RMS and largest absolute error of h against t;
// NaN when h cannot be evaluated.
func headErrors(h Head, q, t []float64, d int) (rms, maxErr float64) {
	var ss float64
	for i, ti := range t {
		e := h.Output(q[i*d:i*d+d]) - ti
		if !finite(e) {
			return math.NaN(), math.NaN()
		}
		ss += float64(e * e)
		maxErr = math.Max(maxErr, math.Abs(e))
	}
	return math.Sqrt(ss / float64(len(t))), maxErr
}

// fitWork holds the scratch space of the objective.
type fitWork struct{ score []float64 }

// objective returns half the mean squared error of the head θ on the queries
// q (row-major, d each) against t, and writes its gradient into grad.
func (w *fitWork) objective(grad, theta, q, t []float64, d, k int) float64 {
	keys, bias, value := theta[:k*d], theta[k*d:k*d+k], theta[k*d+k:]
	gk, gb, gu := grad[:k*d], grad[k*d:k*d+k], grad[k*d+k:]
	for i := range grad {
		grad[i] = 0
	}
	s := w.score
	var loss float64
	for n, tn := range t {
		x := q[n*d : n*d+d]
		m := math.Inf(-1)
		for i := range s {
			s[i] = linalg.Dot(keys[i*d:i*d+d], x) + bias[i]
			m = math.Max(m, s[i])
		}
		var z, num float64
		for i := range s {
			s[i] = xmath.Exp(s[i] - m)
			z += s[i]
			num += float64(s[i] * value[i])
		}
		y := num / z
		r := y - tn
		loss += float64(r * r)
		for i, wi := range s {
			a := float64(r*wi) / z // r·α_i
			gu[i] += a
			gs := float64(a * (value[i] - y))
			gb[i] += gs
			linalg.Axpy(gk[i*d:i*d+d], gs, x)
		}
	}
	inv := 1 / float64(len(t))
	for i := range grad {
		grad[i] *= inv
	}
	return 0.5 * loss * inv
}

// dotAll is dot for vectors of equal length, summed in order.
func dotAll(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.NaN()
	}
	return linalg.Dot(a, b)
}
