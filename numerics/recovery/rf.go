package recovery

import (
	"fmt"
	"math"
	"slices"

	"headlab/numerics/rational"
)

// fail returns an *Error for RF k.
func (l *learner) fail(k int, reason string, err error) *Error {
	rf := &l.res.Trace.RFs[k]
	e := &Error{RF: k, Name: rf.Name(), Reason: reason, Err: err, First: -1, Last: -1}
	for _, q := range rf.Query {
		if e.First < 0 || q < e.First {
			e.First = q
		}
		e.Last = max(e.Last, q)
	}
	return e
}

// ratTolerance is the sample accuracy handed to rational.Fit.
func (l *learner) ratTolerance() float64 {
	return math.Max(l.opt.Tolerance, rational.DefaultTolerance)
}

// fitRF fits RF k with rational.Fit and records the fit in the trace. With
// knownC the constant C and the value F(0) (as an extra sample at n = 0 if
// the RF has none) are taken as known.
func (l *learner) fitRF(k int, opt rational.Options, f0 *float64) error {
	rf := &l.res.Trace.RFs[k]
	n := append([]float64(nil), rf.N...)
	f := append([]float64(nil), rf.F...)
	if f0 != nil && !slices.Contains(n, 0) {
		n = append([]float64{0}, n...)
		f = append([]float64{*f0}, f...)
	}
	opt.Tolerance = l.ratTolerance()
	fit, err := rational.Fit(n, f, opt)
	l.tick()
	rf.KnownC, rf.C = opt.KnownC, opt.C
	rf.Fit, rf.P, rf.R, rf.Heads = fit, fit.LogPoles(), fit.Values(), nil
	if err != nil {
		return err
	}
	l.res.Cond = math.Max(l.res.Cond, fit.Cond)
	return nil
}

// newSolver returns the solver of rows in the free parameters of H of the
// run's heads (lm.go).
func (l *learner) newSolver(rows []row, free []bool, H int) *solver {
	return newSolver(rows, free, H, l.d, l.ncols, l.c, l.tick)
}

// queryRows returns one fit row per query (shared samples counted once).
func (l *learner) queryRows() []row {
	out := make([]row, len(l.res.Trace.Queries))
	for q, qq := range l.res.Trace.Queries {
		out[q] = row{s: l.specs[qq.RF], n: float64(qq.Length - 1), y: qq.Answer, sigma: l.sigma(qq.Answer)}
	}
	return out
}

// queryRowsWhere returns one row per query of the RFs accepted by keep.
func (l *learner) queryRowsWhere(keep func(k int) bool) []row {
	var out []row
	for _, r := range l.queryRowsIndexed() {
		if keep(r.rf) {
			out = append(out, r.row)
		}
	}
	return out
}

type indexedRow struct {
	row
	rf int
}

func (l *learner) queryRowsIndexed() []indexedRow {
	rows := l.queryRows()
	out := make([]indexedRow, len(rows))
	for q, r := range rows {
		out[q] = indexedRow{row: r, rf: l.res.Trace.Queries[q].RF}
	}
	return out
}

// Name returns the RF's name as MATH.md writes it, with 1-based indices:
// "M_21", "RF(z_1+z_3, u_1)", "RF(z_3, u_1+u_2)"; with biases the column
// on the query token −z_1 is "RF(−z_1, u_2)" and the query of the zero
// token alone "F(0)".
func (r RF) Name() string {
	biasCol := r.J == len(r.Z) && len(r.Z) > 0
	switch {
	case r.Kind == Constant:
		return "F(0)"
	case r.Kind == Measurement && !biasCol:
		return fmt.Sprintf("M_%d%d", r.I+1, r.J+1)
	}
	sum := func(s string, idx []int) string {
		out := ""
		for k, i := range idx {
			if k > 0 {
				out += "+"
			}
			if s == "z" && i == len(r.Z) {
				out += "−z_1"
				continue
			}
			out += fmt.Sprintf("%s_%d", s, i+1)
		}
		return out
	}
	return fmt.Sprintf("RF(%s, %s)", sum("z", r.ZIndex), sum("u", r.UIndex))
}
