package recovery

// floatPipeline is the float64 pipeline (MATH.md §4): the RFs on z_1
// labelled through their links by joint fits (learnColumnOne), the other
// columns labelled by the known values and fitted column by column
// (column), and a global fit of all heads to every answer, whose residual
// is the self-check.
type floatPipeline struct {
	l *learner
	t theta // the heads in the learner's coordinates
}

func (p *floatPipeline) columnOne() (int, error) {
	t, err := p.l.learnColumnOne()
	p.t = t
	return t.H, err
}

// columnOrder puts the column of the biases first: the paper's links on
// z_1 + z_j use its Q_h (MATH.md §3.8).
func (p *floatPipeline) columnOrder() []int {
	l := p.l
	order := make([]int, 0, l.ncols)
	if l.ncols > l.d {
		order = append(order, l.d)
	}
	for j := 1; j < l.d; j++ {
		order = append(order, j)
	}
	return order
}

func (p *floatPipeline) column(j int) error { return p.l.column(p.t, j) }

// solve fits every head to every answer (the global fit, MATH.md §4) and
// checks the result (finish).
func (p *floatPipeline) solve() (Result, error) {
	l, t := p.l, p.t
	if t.H == 0 {
		// Every RF on z_1 is constant: no head is visible. The empty layer
		// must still explain every answer.
		sv := l.newSolver(l.queryRows(), make([]bool, len(t.x)), 0)
		chi2, _ := sv.cost(t)
		return l.finish(t, &fitStats{chi2: chi2, rows: len(sv.rows)}, nil)
	}
	free := make([]bool, len(t.x))
	for i := range free {
		free[i] = true
	}
	sv := l.newSolver(l.queryRows(), free, t.H)
	t, chi2 := sv.fit(t, 100)
	st := &fitStats{chi2: chi2, vars: sv.variances(t), rows: len(sv.rows)}
	if l.d == 1 {
		// One RF and no redundancy: the first-order estimate was measured
		// to fall short of the true error by up to 1,000 times (H = 4).
		st.inflate = 1000
	}
	res, err := l.finish(t, st, nil)
	if err == nil && l.missing(t.H) {
		return l.missingHeads(t.H)
	}
	return res, err
}
