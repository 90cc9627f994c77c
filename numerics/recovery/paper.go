package recovery

// paper is the paper's schedule (MATH.md §3.3): on every z_j the d
// measurements M_ij, each with a link, M_1j through RF(z_1+z_j, u_1) to
// column one, M_ij through RF(z_j, u_1+u_i) to M_1j. Its links only
// check: every RF on z_j is labelled by the values column one has
// learned (§4, "learn v first"), and none falls back.
type paper struct{}

// askColumn asks M_1j, its link, and every M_ij with its link; on the
// column of the biases, the measurements alone (§3.8).
func (paper) askColumn(l *learner, j int) error {
	if j == l.d {
		return economy{}.askColumn(l, j)
	}
	if err := l.askInColumn(Measurement, 0, j, []int{0}, []int{j}); err != nil {
		return err
	}
	if err := l.askInColumn(Link, 0, j, []int{0}, []int{0, j}); err != nil {
		return err
	}
	for i := 1; i < l.d; i++ {
		if err := l.askInColumn(Measurement, i, j, []int{i}, []int{j}); err != nil {
			return err
		}
		if err := l.askInColumn(Link, i, j, []int{0, i}, []int{j}); err != nil {
			return err
		}
	}
	return nil
}

// replan keeps the count: the paper's schedule is fixed.
func (paper) replan(*learner, int) {}

// floatColumn labels every RF on z_j by the known values.
func (paper) floatColumn(l *learner, t theta, j int) (*columnLabels, error) {
	return l.labelKnownColumn(t, j), nil
}

// bigColumn fits and labels every RF on z_j by the known values.
func (paper) bigColumn(l *learner, hc, j int, rs float64) error {
	return l.plainKnownColumn(hc, j, rs)
}
