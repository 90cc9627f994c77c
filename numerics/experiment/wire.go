package experiment

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"time"

	"headlab/numerics/recovery"
)

// Results and progress cross from the compute worker to the canvas as gob:
// floats go bit for bit (NaN and ±Inf included, which JSON cannot carry),
// so the canvas shows the numbers the worker computed. A run's error is
// carried as its message and, for a *recovery.Error, its fields; the error
// rebuilt on the canvas says the same words.

// wireResult is Result with the run's error in a form gob can carry.
type wireResult struct {
	Kind     Kind
	Recovery *wireRun
	Sweep    *SweepState
	Fit      *FitCurve
	Timing   *Costs
	Dur      time.Duration
	// Transformer is a transformer run (transformer.go).
	Transformer *wireTransformer
}

type wireRun struct {
	Result recovery.Result
	Err    string // "" for none
	Fault  *wireFault
	Dur    time.Duration
}

// wireFault is a *recovery.Error without its underlying error, whose
// message Inner keeps.
type wireFault struct {
	RF          int
	Name        string
	First, Last int
	Reason      string
	Inner       string
	HasInner    bool
}

// EncodeResult encodes a job's result for DecodeResult.
func EncodeResult(r Result) ([]byte, error) {
	w := wireResult{Kind: r.Kind, Sweep: r.Sweep, Fit: r.Fit, Timing: r.Timing, Dur: r.Dur, Transformer: toWireTransformer(r.Transformer)}
	if run := r.Recovery; run != nil {
		wr := &wireRun{Result: run.Result, Dur: run.Dur}
		if run.Err != nil {
			wr.Err = run.Err.Error()
			var fe *recovery.Error
			if errors.As(run.Err, &fe) {
				wr.Fault = &wireFault{RF: fe.RF, Name: fe.Name, First: fe.First, Last: fe.Last, Reason: fe.Reason}
				if fe.Err != nil {
					wr.Fault.Inner, wr.Fault.HasInner = fe.Err.Error(), true
				}
			}
		}
		w.Recovery = wr
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(w); err != nil {
		return nil, fmt.Errorf("experiment: encoding a %s result: %w", r.Kind, err)
	}
	return b.Bytes(), nil
}

// DecodeResult decodes what EncodeResult wrote.
func DecodeResult(b []byte) (Result, error) {
	var w wireResult
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&w); err != nil {
		return Result{}, fmt.Errorf("experiment: decoding a result: %w", err)
	}
	r := Result{Kind: w.Kind, Sweep: w.Sweep, Fit: w.Fit, Timing: w.Timing, Dur: w.Dur, Transformer: w.Transformer.run()}
	if wr := w.Recovery; wr != nil {
		run := &RecoveryRun{Result: wr.Result, Dur: wr.Dur}
		switch {
		case wr.Fault != nil:
			fe := &recovery.Error{RF: wr.Fault.RF, Name: wr.Fault.Name, First: wr.Fault.First, Last: wr.Fault.Last, Reason: wr.Fault.Reason}
			if wr.Fault.HasInner {
				fe.Err = errors.New(wr.Fault.Inner)
			}
			run.Err = fe
			if fe.Error() != wr.Err {
				run.Err = fmt.Errorf("%s", wr.Err) // a wrapped fault: keep the words
			}
		case wr.Err != "":
			run.Err = errors.New(wr.Err)
		}
		r.Recovery = run
	}
	return r, nil
}

// EncodeProgress encodes a job's progress for DecodeProgress.
func EncodeProgress(p Progress) ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(p); err != nil {
		return nil, fmt.Errorf("experiment: encoding progress: %w", err)
	}
	return b.Bytes(), nil
}

// DecodeProgress decodes what EncodeProgress wrote.
func DecodeProgress(b []byte) (Progress, error) {
	var p Progress
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&p); err != nil {
		return Progress{}, fmt.Errorf("experiment: decoding progress: %w", err)
	}
	return p, nil
}
