package experiment

import (
	"fmt"
	"math"
	"time"

	"headlab/numerics/recovery"
)

// Kind names an experiment.
type Kind string

// The experiments a Job runs.
const (
	KindRecovery Kind = "recovery" // one recovery run (Learn)
	KindSweep    Kind = "sweep"    // the noise sweep (Sweep)
	KindFit      Kind = "fit"      // the fewer-atoms fit (FitFewer)
	KindTiming   Kind = "timing"   // the cost per query (MeasureCost)
	// KindTransformer is one transformer run (LearnTransformer).
	KindTransformer Kind = "transformer"
)

// Job is one experiment to run and its parameters: the page's canvas sends
// it to the compute worker encoded (EncodeJob), the worker runs it with
// Run. The set-up of the kind's experiment is in its own field; a new kind
// adds a Kind and a field, a new parameter a field of its set-up, so older
// jobs keep their meaning.
type Job struct {
	Kind     Kind
	Recovery *Recovery // KindRecovery, KindSweep
	Fit      *Fit
	Known    []FitPoint // KindFit: the points the caller already has
	Timing   *Timing
	// Transformer is KindTransformer's set-up.
	Transformer *Transformer
}

// Progress is how far a job has got: the fraction done and, by kind, the
// state so far (the run's, the sweep so far, the fit's curve so far).
type Progress struct {
	Fraction float64
	Recovery *recovery.Progress
	Sweep    *SweepState
	Fit      *FitCurve
}

// Result is a finished job's outcome, in the field of its kind.
type Result struct {
	Kind     Kind
	Recovery *RecoveryRun
	Sweep    *SweepState
	Fit      *FitCurve
	Timing   *Costs
	// Transformer is KindTransformer's run.
	Transformer *TransformerRun
	// Dur is how long the job took where it ran (a measurement).
	Dur time.Duration
}

// Pacer paces a long experiment and lets its caller stop it, the one way
// every experiment is paused: the experiment computes for about Slice (0:
// without pausing), then calls Pause with its progress at its next
// checkpoint, which returns false to stop it (the experiment then returns
// ErrCancelled). The learners take the checkpoint as a hook of their own
// (recovery.Pause, transformer's Options.Pause), so an experiment's numbers
// do not depend on its pacing. The compute worker yields to its event loop
// in Pause, so that a cancel can arrive; a nil Pause never stops.
type Pacer struct {
	Slice time.Duration
	Pause func(Progress) bool
}

func (c Pacer) slice() time.Duration {
	if c.Slice <= 0 {
		return 1000 * time.Hour
	}
	return c.Slice
}

func (c Pacer) pause(p Progress) bool { return c.Pause == nil || c.Pause(p) }

// sliceTimer tells when a slice of work is over.
type sliceTimer struct {
	start time.Time
	d     time.Duration
}

func (c Pacer) timer() sliceTimer { return sliceTimer{time.Now(), c.slice()} }
func (t sliceTimer) over() bool   { return time.Since(t.start) >= t.d }

// Run runs a job: the experiment its kind names with its set-up. A panic
// inside an experiment is returned as an error, so that a bad job never
// takes the worker down.
func Run(pace Pacer, j Job) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = Result{}, fmt.Errorf("experiment: %s job: internal error: %v", j.Kind, p)
		}
	}()
	start := time.Now()
	res.Kind = j.Kind
	switch j.Kind {
	case KindRecovery, KindSweep:
		if j.Recovery == nil {
			return Result{}, fmt.Errorf("experiment: a %s job without its set-up", j.Kind)
		}
		if j.Kind == KindRecovery {
			var run RecoveryRun
			run, err = Learn(pace, *j.Recovery)
			res.Recovery = &run
		} else {
			var st SweepState
			st, err = Sweep(pace, *j.Recovery)
			res.Sweep = &st
		}
	case KindFit:
		if j.Fit == nil {
			return Result{}, fmt.Errorf("experiment: a fit job without its set-up")
		}
		var c FitCurve
		c, err = FitFewer(pace, *j.Fit, j.Known)
		res.Fit = &c
	case KindTiming:
		if j.Timing == nil {
			return Result{}, fmt.Errorf("experiment: a timing job without its set-up")
		}
		var c Costs
		c, err = MeasureCost(pace, *j.Timing)
		res.Timing = &c
	case KindTransformer:
		if j.Transformer == nil {
			return Result{}, fmt.Errorf("experiment: a transformer job without its set-up")
		}
		var run TransformerRun
		run, err = LearnTransformer(pace, *j.Transformer)
		res.Transformer = &run
	default:
		return Result{}, fmt.Errorf("experiment: no experiment of kind %q", j.Kind)
	}
	if err != nil {
		return Result{}, err
	}
	res.Dur = time.Since(start)
	return res, nil
}

var nan = math.NaN()

func finite(x float64) bool { return x-x == 0 }
