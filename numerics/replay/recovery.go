package replay

import (
	"headlab/numerics/rational"
	"headlab/numerics/recovery"
)

// StepView is what a recovery trace shows after some queries: the
// rational function of the last query with the samples taken so far.
type StepView struct {
	// Index is the RF's index in the trace, RF the RF itself.
	Index int
	RF    *recovery.RF
	// Taken is how many of the RF's samples (in order) have been made by
	// the step; Current is the sample index of the step's query.
	Taken, Current int
	// Fitted reports whether every sample of the RF has been made, so
	// that its fit is shown.
	Fitted bool
	// N is the number of copies of a in the step's query (its length is
	// N+1).
	N int
}

// HasFit reports whether a fit has as many residues as poles, one of each
// at least: a fit there is to draw.
func HasFit(fit rational.Result) bool {
	return len(fit.Poles) > 0 && len(fit.Residues) == len(fit.Poles)
}

// At returns the step view of a trace after step queries (1…the trace's
// queries), and false for any other step.
func At(tr *recovery.Trace, step int) (StepView, bool) {
	if step < 1 || step > len(tr.Queries) {
		return StepView{}, false
	}
	k, sample, ok := tr.Step(step - 1)
	if !ok || k < 0 || k >= len(tr.RFs) {
		return StepView{}, false
	}
	rf := &tr.RFs[k]
	v := StepView{Index: k, RF: rf, Current: sample}
	for i, q := range rf.Query {
		if q < step {
			v.Taken = i + 1
		}
	}
	v.Fitted = v.Taken == len(rf.N) && HasFit(rf.Fit)
	if sample >= 0 && sample < len(rf.N) {
		v.N = int(rf.N[sample])
	}
	return v, true
}
