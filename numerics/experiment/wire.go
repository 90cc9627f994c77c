package experiment

import (
	"errors"
	"fmt"
	"time"

	"headlab/numerics/internal/codec"
	"headlab/numerics/recovery"
)

// Jobs cross from the canvas to the compute worker, and results and
// progress back, in package codec's binary form: floats go bit for bit
// (NaN and ±Inf included, which JSON cannot carry), so the canvas shows
// the numbers the worker computed, and the worker links one small
// serialisation (encoding/json beside encoding/gob was about 145 kB of its
// brotli bytes). A run's error is carried as its message and, for a
// *recovery.Error, its fields; the error rebuilt on the canvas says the
// same words.

// wireResult is Result with the run's error in a form codec can carry.
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
	return encode(w, "a "+string(r.Kind)+" result")
}

// DecodeResult decodes what EncodeResult wrote.
func DecodeResult(b []byte) (Result, error) {
	w, err := decode[wireResult](b, "a result")
	if err != nil {
		return Result{}, err
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

// EncodeJob encodes a job for DecodeJob: what the canvas sends the
// compute worker.
func EncodeJob(j Job) ([]byte, error) { return encode(j, "a "+string(j.Kind)+" job") }

// DecodeJob decodes what EncodeJob wrote.
func DecodeJob(b []byte) (Job, error) { return decode[Job](b, "a job") }

// EncodeProgress encodes a job's progress for DecodeProgress.
func EncodeProgress(p Progress) ([]byte, error) { return encode(p, "progress") }

// DecodeProgress decodes what EncodeProgress wrote.
func DecodeProgress(b []byte) (Progress, error) { return decode[Progress](b, "progress") }

// encode encodes v, what the error names.
func encode(v any, what string) ([]byte, error) {
	b, err := codec.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("experiment: encoding %s: %w", what, err)
	}
	return b, nil
}

// decode decodes what encode wrote of a T, what the error names.
func decode[T any](b []byte, what string) (T, error) {
	var v T
	if err := codec.Unmarshal(b, &v); err != nil {
		var zero T
		return zero, fmt.Errorf("experiment: decoding %s: %w", what, err)
	}
	return v, nil
}
