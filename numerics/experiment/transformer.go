package experiment

import (
	"errors"
	"fmt"
	"time"

	"headlab/numerics/recovery"
	"headlab/numerics/transformer"
)

// Transformer is the set-up of a transformer run (MATH.md §3.7): the true
// network, random from the seed with H heads of width d, attention output
// width m, K units and the variants; phase A's schedule; the working
// precision. Its fields are the share link's (web/link), so a link names a
// run. Prec 0 is transformer.DefaultPrecision.
type Transformer struct {
	H, D, M, K int
	Seed       uint64
	Residual   bool
	Readout    bool
	Mode       recovery.Mode // phase A's schedule (the zero Mode is Paper)
	Prec       int
}

// Held-out agreement of a transformer run: the recovered network against
// the true one on AgreementSequences random sequences of 1…AgreementLength
// tokens, drawn from the run's seed in a stream of their own.
const (
	AgreementSequences = 100
	AgreementLength    = 6
	agreementStream    = 0x686f6c646f7574 // "holdout"
)

// EquivalentTol is the relative tolerance of transformer.Equivalent when a
// run is compared with its true network: the unit phase promises about 20
// significant digits, so anything looser than 1e-12 would hide a wrong
// unit and anything tighter would fail runs at a low prec.
const EquivalentTol = 1e-12

// Precision returns the working precision in bits.
func (t Transformer) Precision() uint {
	if t.Prec <= 0 {
		return transformer.DefaultPrecision
	}
	return uint(t.Prec)
}

// Shape returns the shape of the true network.
func (t Transformer) Shape() transformer.Shape {
	return transformer.Shape{Heads: t.H, Width: t.D, Dim: t.M, Units: t.K, Residual: t.Residual, Readout: t.Readout}
}

// TrueNetwork returns the run's true network, drawn from the seed.
func (t Transformer) TrueNetwork() (transformer.Network, error) {
	return transformer.Random(t.Shape(), t.Seed)
}

// Options returns the learner's options.
func (t Transformer) Options() transformer.Options {
	o := transformer.DefaultOptions(t.H, t.D)
	o.Residual = t.Residual
	o.Mode = t.Mode
	o.Precision = t.Precision()
	o.Seed = t.Seed
	return o
}

// Key is what a run depends on, as a string: equal keys give equal runs.
func (t Transformer) Key() string {
	return fmt.Sprintf("H=%d d=%d m=%d K=%d seed=%d resid=%v readout=%v mode=%s prec=%d",
		t.H, t.D, t.M, t.K, t.Seed, t.Residual, t.Readout, t.Mode, t.Precision())
}

// PlannedQueries estimates the oracle calls of a run, for its progress:
// two per value of the odd part in phase A (and 2d for the residual's
// share), then about 1.8 times the ideal K+1 local solves of Hd+1 queries
// (MATH.md §3.7, Cost).
func (t Transformer) PlannedQueries() int {
	a := t.Mode.Queries(t.H, t.D)
	b := t.H
	if t.Residual {
		b++
	}
	return 2*a + 2*t.D + (18*(t.K+1)*(b*t.D+1))/10
}

// TransformerRun is a finished transformer run: what transformer.Learn
// returned, the true network's canonical form, and the comparison of the
// two, functional and up to equivalence.
type TransformerRun struct {
	Result transformer.Result
	// Err is Learn's error: a *transformer.ConditionError naming the
	// condition that failed (Result then holds the record so far), or nil.
	Err error
	// Truth is the true network's canonical form at the run's precision.
	Truth transformer.Canonical
	// Agreement is the largest relative |ΔF| of the recovered against the
	// true network on the held-out sequences (transformer.Agreement); NaN
	// when the run failed.
	Agreement float64
	// Equivalent is "" when the recovered network is equivalent to the
	// truth (transformer.Equivalent at EquivalentTol), else what differs.
	Equivalent string
	Dur        time.Duration
}

// LearnTransformer runs the transformer run t sets up, paced by pace
// through transformer's Options.Pause: after about pace.Slice of work, at
// the run's next checkpoint, it reports its progress (queries made of
// planned) and stops when pace says so. The numbers do not depend on the
// pacing. The error is ErrCancelled when pace stopped it, or a bad
// set-up's; a failed condition is the run's Err.
func LearnTransformer(pace Pacer, t Transformer) (TransformerRun, error) {
	if t.H < 1 || t.D < 1 || t.M < 1 || t.K < 1 {
		return TransformerRun{}, fmt.Errorf("experiment: a transformer run needs H, d, m, K ≥ 1, not %d, %d, %d, %d", t.H, t.D, t.M, t.K)
	}
	net, err := t.TrueNetwork()
	if err != nil {
		return TransformerRun{}, fmt.Errorf("experiment: %w", err)
	}
	prec := t.Precision()
	o, err := transformer.NewOracle(net, prec)
	if err != nil {
		return TransformerRun{}, fmt.Errorf("experiment: %w", err)
	}
	start := time.Now()
	planned := max(1, t.PlannedQueries())
	timer := pace.timer()
	opt := t.Options()
	opt.Pause = func(queries int) bool {
		if !timer.over() {
			return true
		}
		ok := pace.pause(Progress{Fraction: min(0.95, 0.9*float64(queries)/float64(planned))})
		timer = pace.timer()
		return ok
	}
	res, lerr := transformer.Learn(o.Query, opt)
	if errors.Is(lerr, transformer.ErrStopped) {
		return TransformerRun{}, ErrCancelled
	}
	run := TransformerRun{Result: res, Err: lerr, Truth: net.Canonical(prec), Agreement: nan}
	if lerr == nil {
		pace.pause(Progress{Fraction: 0.95})
		run.Agreement = transformer.Agreement(run.Truth.Func(prec), res.Net.Func(prec), t.D,
			t.Seed^agreementStream, AgreementSequences, AgreementLength, prec)
		if e := transformer.Equivalent(run.Truth, res.Net, EquivalentTol); e != nil {
			run.Equivalent = e.Error()
		}
	}
	run.Dur = time.Since(start)
	return run, nil
}

// wireTransformer is a TransformerRun with its error in a form codec can
// carry: a *transformer.ConditionError by its fields.
type wireTransformer struct {
	Run       TransformerRun
	Err       string
	Condition string
	Reason    string
	Inner     string
	HasInner  bool
}

func toWireTransformer(r *TransformerRun) *wireTransformer {
	if r == nil {
		return nil
	}
	w := &wireTransformer{Run: *r}
	w.Run.Err = nil
	if r.Err != nil {
		w.Err = r.Err.Error()
		var ce *transformer.ConditionError
		if errors.As(r.Err, &ce) {
			w.Condition, w.Reason = ce.Condition, ce.Reason
			if ce.Err != nil {
				w.Inner, w.HasInner = ce.Err.Error(), true
			}
		}
	}
	return w
}

func (w *wireTransformer) run() *TransformerRun {
	if w == nil {
		return nil
	}
	r := w.Run
	switch {
	case w.Condition != "":
		ce := &transformer.ConditionError{Condition: w.Condition, Reason: w.Reason}
		if w.HasInner {
			ce.Err = errors.New(w.Inner)
		}
		r.Err = ce
		if ce.Error() != w.Err {
			r.Err = fmt.Errorf("%s", w.Err)
		}
	case w.Err != "":
		r.Err = errors.New(w.Err)
	}
	return &r
}
