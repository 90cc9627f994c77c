package recovery

import (
	"fmt"
	"runtime"
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
