package recovery

import (
	"context"
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

// LearnBig is Learn in extended precision: opt.Precision > 0 is required,
// and the oracle answers at that precision. It returns the same Result as
// Learn (the float64 Layer, the trace, the counts) plus BigLayer, the heads
// at the working precision; when the answers cannot be resolved at that
// precision it returns an *Error, as Learn does.
func LearnBig(o BigOracle, opt Options) (Result, error) {
	if opt.Precision == 0 {
		return Result{}, fmt.Errorf("recovery: LearnBig needs Options.Precision > 0 (0 is float64: use Learn)")
	}
	if o == nil {
		return Result{}, fmt.Errorf("recovery: nil oracle")
	}
	return learn(source{big: o}, opt, nil, runtime.GOMAXPROCS(0))
}

// LearnPaused is Learn(o, opt) calling pause at each checkpoint; its
// fits run on one goroutine, so that the pause sees the whole run.
func LearnPaused(o Oracle, opt Options, pause Pause) (Result, error) {
	if opt.Precision > 0 {
		return Result{}, fmt.Errorf("recovery: precision %d bits needs LearnBigPaused and a BigOracle", opt.Precision)
	}
	return learnPaused(source{f: o}, opt, pause)
}

// LearnBigPaused is LearnBig(o, opt) calling pause at each checkpoint.
func LearnBigPaused(o BigOracle, opt Options, pause Pause) (Result, error) {
	if opt.Precision == 0 {
		return Result{}, fmt.Errorf("recovery: LearnBigPaused needs Options.Precision > 0")
	}
	return learnPaused(source{big: o}, opt, pause)
}

// Recover learns the canonical heads behind the black box b, as Learn
// (float64) or LearnBig (opt.Precision > 0) do, with the same numbers bit
// for bit when b answers as their oracle does. The queries of the fixed
// part of the schedule (every query of paper and economy mode but the
// links, frugal's queries on z₁) go out as one batch before the first
// answer is read; the rest go one at a time. With opt.Calibrate (and no
// TokenScale) it first reads the layer's scale (Calibrate). When ctx is
// done, or b fails, Recover returns an *Error naming the query and the
// cause, with the trace of every answer received so far.
func Recover(ctx context.Context, b BlackBox, opt Options) (Result, error) {
	return recoverBox(ctx, b, opt, func(o source, opt Options) (Result, error) {
		return learn(o, opt, nil, runtime.GOMAXPROCS(0))
	})
}

// RecoverPaused is Recover(ctx, b, opt) calling pause at each checkpoint
// of the learner (as LearnPaused; the calibration's few fits, if any, are
// not paused), with Recover's numbers bit for bit.
func RecoverPaused(ctx context.Context, b BlackBox, opt Options, pause Pause) (Result, error) {
	return recoverBox(ctx, b, opt, func(o source, opt Options) (Result, error) {
		return learnPaused(o, opt, pause)
	})
}

// PlannedBatch returns the queries Recover sends as its first batch: the
// fixed part of opt's schedule, in the order the learner reads them.
func PlannedBatch(opt Options) ([]Request, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	return plannedBatch(opt)
}

// learnPaused is learn on one goroutine, calling pause with the run's
// Progress at every checkpoint: a pause that returns false unwinds the
// learner, and the run returns ErrStopped.
func learnPaused(o source, opt Options, pause Pause) (res Result, err error) {
	if pause == nil {
		return learn(o, opt, nil, 1)
	}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stopped); !ok {
				panic(p)
			}
			res, err = Result{}, ErrStopped
		}
	}()
	return learn(o, opt, func(l *learner) {
		if !pause(l.progress()) {
			panic(stopped{}) // unwind the learner
		}
	}, 1)
}

// recoverBox is Recover with the learner run by run.
func recoverBox(ctx context.Context, b BlackBox, opt Options, run func(source, Options) (Result, error)) (Result, error) {
	if b == nil {
		return Result{}, fmt.Errorf("recovery: nil black box")
	}
	if err := opt.validate(); err != nil {
		return Result{}, err
	}
	var cal *Calibration
	if opt.Calibrate && opt.TokenScale == 0 {
		c, err := Calibrate(ctx, b, opt)
		if err != nil {
			return Result{Calibration: &c}, err
		}
		opt.TokenScale, cal = c.TokenScale, &c
	}
	batch, err := plannedBatch(opt)
	if err != nil {
		return Result{Calibration: cal}, err
	}
	bx := &boxSource{ctx: ctx, b: b, planned: batch}
	res, err := run(source{box: bx}, opt)
	res.Calibration = cal
	return res, err
}

// plannedBatch makes the fixed schedule against a recorder that answers 0:
// the schedule's queries do not depend on its answers.
func plannedBatch(opt Options) ([]Request, error) {
	rec := &boxSource{ctx: context.Background(), record: true}
	l := newRun(source{box: rec}, opt)
	if err := l.askFixed(); err != nil {
		return nil, err
	}
	return rec.asked, nil
}

// schedules lists the implementation of every Mode.
var schedules = [...]schedule{Paper: paper{}, Economy: economy{}, Frugal: frugal{}}

// newRun returns the learner of a run against o with the schedule of
// opt.Mode.
func newRun(o source, opt Options) *learner {
	l := newLearner(o, opt)
	l.sched = schedules[opt.Mode]
	return l
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
	l := newRun(o, opt)
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
