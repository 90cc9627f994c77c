package recovery

import "errors"

// frugal is frugal mode (MATH.md §3.4, "Frugal mode"): column one as
// economy asks it; then, every value r_h being known, each later
// measurement is asked with n = 1…H+1 only, as its column is learned, and
// its H poles are searched for along the ladder of its precision
// (floatLadder, bigLadder in frugal_ladder.go), falling back, counted in
// Result.Fallbacks, to more samples and at last economy's.
type frugal struct{}

// askColumn asks nothing in advance: each measurement's samples are
// asked as its column is learned (frugalMeasure).
func (frugal) askColumn(*learner, int) error { return nil }

// replan sets the planned count once column one has found hc heads: the
// later measurements take hc + 1 samples each.
func (frugal) replan(l *learner, hc int) {
	first := FrugalQueries(l.h0, l.d) - (l.h0+1)*(l.d*l.d-l.d)
	l.planned = first + (hc+1)*(l.d*l.d-l.d)
	if l.opt.Biases {
		l.planned += 1 + (hc+1)*l.d
	}
}

// floatColumn asks and solves each measurement on z_j before the next, so
// that its extra samples, if any, follow its first ones (labelFrugal), and
// links those it leaves unresolved, as economy does.
func (frugal) floatColumn(l *learner, t theta, j int) (*columnLabels, error) {
	c := newColumnLabels(l.d)
	for i := 0; i < l.d; i++ {
		k, err := l.frugalMeasure(i, j, t.H)
		if err != nil {
			return nil, err
		}
		p, sigma, err := l.labelFrugal(k, j, t)
		var oe *Error
		if errors.As(err, &oe) {
			return nil, err // the oracle failed
		}
		c.add(l, k, p, sigma, err)
	}
	return c, l.linkUnresolved(t, j, c)
}

// bigColumn asks and solves each measurement on z_j at the working
// precision (plainFrugalColumn).
func (frugal) bigColumn(l *learner, hc, j int, rs float64) error {
	return l.plainFrugalColumn(hc, j, rs)
}

// frugalMeasure adds measurement M_ij in frugal mode and asks its
// samples n = 1…hc+1 (hc the heads column one found).
func (l *learner) frugalMeasure(i, j, hc int) (int, error) {
	k := l.addRF(Measurement, i, j, []int{i}, []int{j})
	l.cols[j] = append(l.cols[j], k)
	for n := 1; n <= hc+1; n++ {
		if err := l.ask(k, n); err != nil {
			return k, err
		}
	}
	return k, nil
}
