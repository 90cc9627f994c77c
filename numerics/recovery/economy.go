package recovery

// economy is economy mode (MATH.md §3.4): on every z_j the d measurements
// alone, each labelled by its values r_h = c·v_h·u_i, which column one
// has learned. A measurement the values do not label, or that locates a
// head only roughly, gets a link to a resolved row after all (in float64,
// 2H more queries): never a guess.
type economy struct{}

// askColumn asks every M_ij.
func (economy) askColumn(l *learner, j int) error {
	for i := 0; i < l.d; i++ {
		if err := l.askInColumn(Measurement, i, j, []int{i}, []int{j}); err != nil {
			return err
		}
	}
	return nil
}

// replan keeps the count: only a link adds to it (linkUnresolved).
func (economy) replan(*learner, int) {}

// floatColumn labels every measurement by the known values and links
// those it leaves unresolved.
func (economy) floatColumn(l *learner, t theta, j int) (*columnLabels, error) {
	c := l.labelKnownColumn(t, j)
	return c, l.linkUnresolved(t, j, c)
}

// bigColumn fits and labels every measurement by the known values.
func (economy) bigColumn(l *learner, hc, j int, rs float64) error {
	return l.plainKnownColumn(hc, j, rs)
}
