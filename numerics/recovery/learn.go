package recovery

import (
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
)

// Self-check limits on the RMS of the global fit's weighted residuals: for
// an exact oracle the noise model (1e-16 relative) is below the oracle's
// real rounding, so the limit is loose; for a noisy oracle the residuals
// are in units of its stated accuracy.
const (
	exactResidualLimit = 30.0
	noisyResidualLimit = 1.5
)

// Learn recovers the canonical heads behind the oracle o (MATH.md §3): it
// makes the queries of opt.Mode's schedule, fits and labels every rational
// function, and fits all heads to every answer. On success the Result holds
// the canonical layer with its self-check; when the answers cannot be
// resolved in float64, or the recovered layer does not reproduce them, it
// returns an *Error naming the rational function, the queries and the
// reason, together with a Result holding the trace so far (and no layer).
// Learn is float64 (opt.Precision = 0); LearnBig is the same run in
// extended precision.
func Learn(o Oracle, opt Options) (Result, error) {
	if opt.Precision > 0 {
		return Result{}, fmt.Errorf("recovery: precision %d bits needs LearnBig and a BigOracle (Learn is float64)", opt.Precision)
	}
	if o == nil {
		return Result{}, fmt.Errorf("recovery: nil oracle")
	}
	return learn(source{f: o}, opt, nil, runtime.GOMAXPROCS(0))
}

// learn is Learn or LearnBig with a pause called at every checkpoint of
// the run (nil: none) and up to workers goroutines fitting at once (one
// when paused); neither changes any number.
func learn(o source, opt Options, pause func(*learner), workers int) (Result, error) {
	if err := opt.validate(); err != nil {
		return Result{}, err
	}
	if o.box == nil && ((opt.Precision == 0 && o.f == nil) || (opt.Precision > 0 && o.big == nil)) {
		return Result{}, fmt.Errorf("recovery: nil oracle")
	}
	l := newLearner(o, opt)
	l.pause = pause
	l.workers = 1
	if pause == nil {
		l.workers = workers
	}
	return l.run(l.pipeline())
}

// run is the algorithm of MATH.md §3, step by step: the schedule's
// queries, the fits of the RFs on z_1, the measurements of the other
// columns, and the solve for the heads with its check against every
// answer. The schedule (l.sched: paper.go, economy.go, frugal.go) says
// which queries are asked and how a column is labelled; the pipeline p
// (float64 or extended precision) how the numbers are fitted.
func (l *learner) run(p pipeline) (Result, error) {
	// Schedule and samples: every query fixed in advance (§3.3, §3.4).
	if err := l.askFixed(); err != nil {
		return l.res, err
	}
	// Fits: the RFs on z_1 show the number of heads; their links label
	// them, and give every value r_h (§3.3; §4, "learn v first").
	l.stage = stageColumnOne
	hc, err := p.columnOne()
	if err != nil {
		return l.res, err
	}
	// Measurements: column j of every P_h from the RFs on z_j, labelled
	// by the known values (§3.4); frugal asks its samples here.
	if hc > 0 {
		l.columns, l.stage = 1, stageColumns
		l.sched.replan(l, hc)
		for _, j := range p.columnOrder() {
			if err := p.column(j); err != nil {
				return l.res, err
			}
			l.columns++
			l.tick()
		}
	}
	// Solve and check: W_h = U P_h Zᵀ/c and v_h = U r_h/c, held against
	// every answer they were learned from (§3.3, §4).
	l.stage = stageFinal
	return p.solve()
}

// A pipeline is one precision's way through run: float64 (floatPipeline,
// float.go) or extended precision (bigPipeline, plain.go). The two share
// the schedule, the trace and the final check (finish) and differ where
// the maths does (MATH.md §4): float64 labels column one by joint fits
// and ends in a global fit of every head to every answer, without which
// it stops near 1e-6; extended precision fits every RF on its own at the
// working precision and solves for the heads directly.
type pipeline interface {
	// columnOne fits and labels the RFs on z_1 and returns the number of
	// canonical heads they show.
	columnOne() (hc int, err error)
	// columnOrder lists the other columns in the order they are learned.
	columnOrder() []int
	// column learns column j of every P_h.
	column(j int) error
	// solve solves for the heads and checks them (finish).
	solve() (Result, error)
}

// pipeline returns the pipeline of the run's precision.
func (l *learner) pipeline() pipeline {
	if l.x != nil {
		return &bigPipeline{l: l}
	}
	return &floatPipeline{l: l}
}

// missing reports whether finding hc heads must be an error: at d = 1,
// with H stated as known, fewer heads. There a single RF cannot tell a
// head too weak for the precision from an absent one, and the fewer heads
// explain the answers (measured: the wrong layers returned unflagged at
// d = 1 were of this kind). Wider layers keep Options.Heads' meaning: the
// canonical layer may have fewer heads.
func (l *learner) missing(hc int) bool {
	return l.d == 1 && hc < l.h0 && !l.opt.UpperBound
}

// missingHeads is the error of a run that found fewer heads than the
// known H where that cannot be told from a head too weak to see.
func (l *learner) missingHeads(hc int) (Result, error) {
	l.res.Layer, l.res.BigLayer = nil, nil
	return l.res, &Error{RF: -1, First: 0, Last: l.res.Queries - 1,
		Reason: fmt.Sprintf("the RFs on z_1 show only %d of the %d heads %s; at d = 1 a head too weak to see looks absent (if the layer may have fewer canonical heads, say Heads is an upper bound)", hc, l.h0, l.precisionName())}
}

// fitStats is what the self-check of a run needs: the weighted sum of
// squared residuals of the answers under the noise model (chi2) and their
// number (rows), with either the global fit's variances of every
// parameter (vars, float64) or an estimate of the largest relative error
// of a head (est, extended precision).
type fitStats struct {
	chi2 float64
	vars []float64
	rows int
	est  float64
	// inflate (0 meaning 1) multiplies the estimate from vars.
	inflate float64
	// scale (≥ 1, 0 meaning 1) multiplies the residual limit: in extended
	// precision the answers must be reproduced to the accuracy the run
	// estimates for its heads (est), which the conditioning of the RFs
	// puts above the working precision's noise model.
	scale float64
}

// finish builds the layer from the parameters, checks it against every
// answer it was learned from (a layer that does not reproduce them is an
// error, whatever the pipeline concluded on the way) and against the
// estimated error, and completes the trace. big, in extended precision,
// holds the heads at the working precision in the order of t.
func (l *learner) finish(t theta, st *fitStats, big []BigHead) (Result, error) {
	d, hc := l.d, t.H
	layer := make(attention.Layer, hc)
	var qb [][]float64
	est := 0.0
	for h := 0; h < hc; h++ {
		// P̃_h − Q_h 1ᵀ, Q_h = 0 without biases (model.go).
		q := make([]float64, d)
		if t.biased() {
			for a := range q {
				q[a] = t.Q(h, a)
			}
			cb := make([]float64, d)
			for x := range cb {
				var acc float64
				for a := 0; a < d; a++ {
					acc += float64(l.u[a][x] * q[a])
				}
				cb[x] = acc / l.c
			}
			qb = append(qb, cb)
		}
		w := mat.NewDense(d, d, nil)
		for x := 0; x < d; x++ {
			for y := 0; y < d; y++ {
				var acc float64
				for a := 0; a < d; a++ {
					for b := 0; b < d; b++ {
						acc += float64(l.u[a][x] * float64(t.P(h, a, b)-q[a]) * l.z[b][y])
					}
				}
				w.Set(x, y, acc/float64(l.c*l.opt.tokenScale()))
			}
		}
		v := mat.NewVecDense(d, nil)
		for x := 0; x < d; x++ {
			var acc float64
			for a := 0; a < d; a++ {
				acc += float64(l.u[a][x] * t.R(h, a))
			}
			v.SetVec(x, acc/l.c)
		}
		if big != nil {
			// The float64 layer is the rounding of the extended one.
			for x := 0; x < d; x++ {
				for y := 0; y < d; y++ {
					f, _ := big[h].W[x][y].Float64()
					w.Set(x, y, f)
				}
				f, _ := big[h].V[x].Float64()
				v.SetVec(x, f)
			}
		}
		layer[h] = attention.Head{W: w, V: v}
		if st.vars != nil {
			var vw, vv float64
			for a := 0; a < d; a++ {
				for b := 0; b < t.cols; b++ {
					vw += st.vars[t.pIndex(h, a, b)]
				}
				vv += st.vars[t.rIndex(h, a)]
			}
			ew := math.Sqrt(vw) / float64(l.c*l.opt.tokenScale()) / maxAbs(w.RawMatrix().Data)
			ev := math.Sqrt(vv) / l.c / maxAbs(v.RawVector().Data)
			est = math.Max(est, math.Max(ew, ev))
		}
	}
	// Sort heads as attention.Canonical does, and relabel the trace.
	order := make([]int, hc)
	for i := range order {
		order[i] = i
	}
	for i := 1; i < hc; i++ {
		for k := i; k > 0 && attention.LessW(layer[order[k]].W, layer[order[k-1]].W); k-- {
			order[k], order[k-1] = order[k-1], order[k]
		}
	}
	newLabel := make([]int, hc)
	sortedLayer := make(attention.Layer, hc)
	for k, h := range order {
		newLabel[h] = k
		sortedLayer[k] = layer[h]
	}
	for k := range l.res.Trace.RFs {
		rf := &l.res.Trace.RFs[k]
		for b, h := range rf.Heads {
			if h >= 0 && h < hc {
				rf.Heads[b] = newLabel[h]
			}
		}
		rf.HeadP = make([]float64, hc)
		rf.HeadR = make([]float64, hc)
		for h := 0; h < hc; h++ {
			p, r, _ := l.headTerms(l.specs[k], t, h)
			rf.HeadP[newLabel[h]] = p
			rf.HeadR[newLabel[h]] = r
		}
	}
	l.res.Heads = hc
	if st.vars == nil {
		est = st.est
	} else if st.inflate > 0 {
		est *= st.inflate
	}
	dof := max(1, st.rows-len(t.x))
	l.res.Residual = math.Sqrt(st.chi2 / float64(dof))
	if math.IsNaN(l.res.Residual) {
		l.res.Residual = math.Inf(1)
	}
	if math.IsNaN(est) {
		est = math.Inf(1)
	}
	l.res.Estimate = est
	limit := exactResidualLimit
	if l.opt.Tolerance > 0 {
		limit = noisyResidualLimit + 3/math.Sqrt(float64(dof))
	}
	if st.scale > 1 {
		limit *= st.scale
	}
	if !(l.res.Residual <= limit) {
		reason := fmt.Sprintf("self-check failed: the %d recovered heads do not reproduce the answers they were learned from (residuals %.3g times the noise model, limit %.3g)", hc, l.res.Residual, limit)
		if hc == 0 {
			reason = fmt.Sprintf("self-check failed: no head is visible, yet the answers are not those of an empty layer (residuals %.3g times the noise model, limit %.3g): no attention layer explains them", l.res.Residual, limit)
		}
		return l.res, &Error{RF: -1, First: 0, Last: l.res.Queries - 1, Reason: reason}
	}
	if !(est <= l.opt.maxError()) {
		return l.res, &Error{RF: -1, First: 0, Last: l.res.Queries - 1,
			Reason: fmt.Sprintf("estimated relative error %.3g exceeds %.3g: the answers do not determine the heads %s", est, l.opt.maxError(), l.precisionName())}
	}
	l.res.Layer = sortedLayer
	if qb != nil {
		l.res.QueryBias = make([][]float64, hc)
		for k, h := range order {
			l.res.QueryBias[k] = qb[h]
		}
	}
	if big != nil {
		l.res.BigLayer = make([]BigHead, hc)
		for k, h := range order {
			l.res.BigLayer[k] = big[h]
		}
	}
	return l.res, nil
}

// precisionName is "in float64" or "at N bits", for messages.
func (l *learner) precisionName() string {
	if l.opt.Precision > 0 {
		return fmt.Sprintf("at %d bits", l.opt.Precision)
	}
	return "in float64"
}

func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	if m == 0 {
		return math.SmallestNonzeroFloat64
	}
	return m
}
