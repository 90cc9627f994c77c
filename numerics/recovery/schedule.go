package recovery

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/internal/linalg"
)

// learner is the state of one Learn run.
type learner struct {
	o     source
	opt   Options
	sched schedule // opt.Mode's
	x     *ext     // the extended-precision numbers, nil in float64
	d     int
	// ncols is the number of columns of the P_h: d, or d + 1 with biases
	// (the column of the query token z = −z_1, l.z[d]; model.go).
	ncols int
	h0    int     // Heads: H or the bound H0
	c     float64 // scale of u in a = z − c·u
	u, z  [][]float64
	eps   float64
	s     float64 // RMS of the answers on z_1, the noise model's scale

	res   Result
	specs []*spec   // per RF
	ans   []float64 // answer per query
	// first lists the RFs with z = z_1, cols the others, by column.
	first []int
	cols  [][]int

	// pause, when set, is called at every checkpoint of the run (each
	// query, each rational fit, each trial step of a fit) and may suspend
	// it there (LearnPaused); it reads the progress below and changes
	// nothing.
	pause func(*learner)
	// hasConst says C, the answer to the zero token alone, is known and
	// taken off every answer (Biases).
	hasConst bool
	// workers is how many goroutines fit independent starting points at
	// once (label.Choose): 1 when the run is paused at checkpoints, which
	// must all come from the run's own goroutine.
	workers int
	stage   stage
	planned int // queries the schedule plans (economy adds its links)
	links   int // links of column one labelled
	columns int // columns of the P_h fitted
}

func newLearner(o source, opt Options) *learner {
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6c6561726e6572)) // "learner"
	l := &learner{o: o, opt: opt, d: opt.Width, h0: opt.Heads, eps: opt.epsilon()}
	l.planned = plannedQueries(opt)
	if opt.Precision > 0 {
		// The same draws, orthonormalised at the working precision; the
		// float64 bases are their roundings.
		l.x = newExt(opt, rng)
		l.c, _ = l.x.c.Float64()
		l.u, l.z = roundAll(l.x.u), roundAll(l.x.z)
	} else {
		l.c = float64(opt.spread()*math.Sqrt(float64(l.d))) * opt.tokenScale()
		l.u = linalg.OrthonormalBasis(l.d, rng)
		l.z = linalg.OrthonormalBasis(l.d, rng)
	}
	l.ncols = l.d
	if opt.Biases {
		l.ncols = l.d + 1
	}
	if opt.Biases && l.x == nil {
		neg := make([]float64, l.d)
		for i, x := range l.z[0] {
			neg[i] = -x
		}
		l.z = append(l.z, neg)
	}
	l.res.Scale = l.c
	l.res.U = mat.NewDense(l.d, l.d, nil)
	l.res.Z = mat.NewDense(l.d, l.d, nil)
	for k := 0; k < l.d; k++ {
		for i := 0; i < l.d; i++ {
			l.res.U.Set(i, k, l.u[k][i])
			l.res.Z.Set(i, k, l.z[k][i])
		}
	}
	return l
}

// addRF appends an RF on u = Σ_{α} u_a and z = Σ_{β} z_b to the trace.
func (l *learner) addRF(kind Kind, i, j int, alpha, beta []int) int {
	d := l.d
	z := make([]float64, d)
	u := make([]float64, d)
	for _, b := range beta {
		for k := range z {
			z[k] += l.z[b][k]
		}
	}
	if ts := l.opt.tokenScale(); ts != 1 {
		for k := range z {
			z[k] *= ts
		}
	}
	for _, a := range alpha {
		for k := range u {
			u[k] += l.u[a][k]
		}
	}
	a := make([]float64, d)
	for k := range a {
		a[k] = z[k] - float64(l.c*u[k])
	}
	uz := make([]float64, d)
	for k := range uz {
		for i := range z {
			uz[k] += float64(l.u[k][i] * z[i])
		}
	}
	l.specs = append(l.specs, &spec{alpha: alpha, beta: beta, uz: uz})
	if l.x != nil {
		l.x.addRF(alpha, beta)
		a, z = roundVec(l.x.tokA[len(l.x.tokA)-1]), roundVec(l.x.tokZ[len(l.x.tokZ)-1])
	}
	l.res.Trace.RFs = append(l.res.Trace.RFs, RF{
		Kind: kind, I: i, J: j,
		UIndex: append([]int(nil), alpha...), ZIndex: append([]int(nil), beta...),
		A: a, Z: z,
	})
	return len(l.specs) - 1
}

// ask makes the query of n copies of a followed by z for RF k and records
// it as that RF's next sample.
func (l *learner) ask(k, n int) error {
	rf := &l.res.Trace.RFs[k]
	var y float64
	if l.o.box != nil {
		var err error
		if y, err = l.askBox(k, n); err != nil {
			q := len(l.ans)
			return &Error{RF: k, Name: rf.Name(), First: q, Last: q, Reason: fmt.Sprintf("the oracle gave no answer to query %d (%d tokens)", q, n+1), Err: err}
		}
	} else if l.x != nil {
		y = l.x.ask(l.o.big, k, n)
	} else {
		y = l.o.f(sequence(rf.A, rf.Z, n))
	}
	q := len(l.ans)
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return &Error{RF: k, Name: rf.Name(), First: q, Last: q, Reason: fmt.Sprintf("oracle answered %v on %d tokens", y, n+1)}
	}
	if l.hasConst && l.x == nil {
		y = float64(y - l.res.Const) // ext.record takes it off in extended precision
	}
	l.ans = append(l.ans, y)
	l.res.Trace.Queries = append(l.res.Trace.Queries, Query{RF: k, Sample: len(rf.N), Length: n + 1, Answer: y})
	rf.N = append(rf.N, float64(n))
	rf.F = append(rf.F, y)
	rf.Query = append(rf.Query, q)
	l.res.Queries++
	l.res.MaxLength = max(l.res.MaxLength, n+1)
	l.tick()
	return nil
}

// share records an earlier query as a sample of RF k.
func (l *learner) share(k, q int) {
	rf := &l.res.Trace.RFs[k]
	qq := l.res.Trace.Queries[q]
	rf.N = append(rf.N, float64(qq.Length-1))
	rf.F = append(rf.F, qq.Answer)
	rf.Query = append(rf.Query, q)
}

// A schedule is one of the three query schedules (Mode; MATH.md §3.3,
// §3.4), one implementation a file: paper.go, economy.go, frugal.go.
// Column one, the RFs on z_1, is asked and learned alike by all three
// (askFixed, columnOne); they differ in the RFs they ask on the other
// query tokens and in how they label them.
type schedule interface {
	// askColumn adds and asks the RFs on z_j that the schedule fixes in
	// advance (j = 1…d−1, and d, the column of the biases, −z_1): every
	// one with n = 1…2H, C = V·a being known by then.
	askColumn(l *learner, j int) error
	// replan sets the planned query count once column one has shown hc
	// heads.
	replan(l *learner, hc int)
	// floatColumn labels the RFs on z_j in float64 (asking any the
	// schedule leaves to this point) and says what each tells of the
	// heads.
	floatColumn(l *learner, t theta, j int) (*columnLabels, error)
	// bigColumn learns column j of every P_h at the working precision; rs
	// is the scale of the values r_h.
	bigColumn(l *learner, hc, j int, rs float64) error
}

// askFixed makes every query of the schedule that does not depend on an
// answer (MATH.md §3.3, §3.4). The RFs with z = z_1 come first: M_11 with
// n = 0…2H, then M_i1 and the link RF(z_1, u_1+u_i), which share the
// query of z_1 alone as n = 0; with biases, the zero token alone (C).
// Then, column by column, the RFs the schedule fixes on the other z
// (askColumn).
func (l *learner) askFixed() error {
	if err := l.askColumnOne(); err != nil {
		return err
	}
	l.cols = make([][]int, l.ncols)
	for j := 1; j < l.ncols; j++ {
		if err := l.sched.askColumn(l, j); err != nil {
			return err
		}
	}
	return nil
}

// askColumnOne asks the RFs on z_1 (and, with biases, the constant) and
// sets the noise model's scale from their answers.
func (l *learner) askColumnOne() error {
	d := l.d
	k := l.addRF(Measurement, 0, 0, []int{0}, []int{0})
	l.first = append(l.first, k)
	if err := l.askFrom(k, 0); err != nil {
		return err
	}
	for i := 1; i < d; i++ {
		m := l.addRF(Measurement, i, 0, []int{i}, []int{0})
		l.share(m, 0)
		if err := l.askFrom(m, 1); err != nil {
			return err
		}
		lk := l.addRF(Link, i, 0, []int{0, i}, []int{0})
		l.share(lk, 0)
		if err := l.askFrom(lk, 1); err != nil {
			return err
		}
		l.first = append(l.first, m, lk)
	}
	if l.opt.Biases {
		// C = F(0): the zero token alone. Every answer is taken less C
		// from here on, so that the RFs are the paper's.
		k := l.addRF(Constant, 0, 0, nil, nil)
		if err := l.ask(k, 0); err != nil {
			return err
		}
		l.takeConstant()
	}
	// The noise model's scale comes from the RFs on z_1, which every mode
	// asks alike, so that column one is learned bit for bit the same in
	// every mode: frugal knows no other answers when it learns it.
	var ss float64
	for _, y := range l.ans {
		ss += float64(y * y)
	}
	l.s = math.Sqrt(ss / float64(len(l.ans)))
	return nil
}

// askFrom asks RF k at n = from…2H.
func (l *learner) askFrom(k, from int) error {
	for n := from; n <= 2*l.h0; n++ {
		if err := l.ask(k, n); err != nil {
			return err
		}
	}
	return nil
}

// askInColumn adds an RF on u = Σ_{α} u_a and z = Σ_{β} z_b to column j
// and asks it at n = 1…2H.
func (l *learner) askInColumn(kind Kind, i, j int, alpha, beta []int) error {
	k := l.addRF(kind, i, j, alpha, beta)
	l.cols[j] = append(l.cols[j], k)
	return l.askFrom(k, 1)
}

// takeConstant takes the last answer as C and every answer so far less
// C: those of the RFs, and the learner's.
func (l *learner) takeConstant() {
	q := len(l.ans) - 1
	l.res.Const = l.ans[q]
	l.hasConst = true
	for i := range l.ans {
		l.ans[i] = float64(l.ans[i] - l.res.Const)
	}
	if x := l.x; x != nil {
		x.C = x.ans[q]
		l.res.Const, _ = x.C.Float64()
		for i, y := range x.ans {
			x.ans[i] = x.num().Sub(y, x.C)
			l.ans[i], _ = x.ans[i].Float64()
		}
	}
	for i := range l.res.Trace.Queries {
		l.res.Trace.Queries[i].Answer = l.ans[i]
	}
	for k := range l.res.Trace.RFs {
		rf := &l.res.Trace.RFs[k]
		for i, qq := range rf.Query {
			rf.F[i] = l.ans[qq]
		}
	}
}

// sigma is the noise model of an answer y.
func (l *learner) sigma(y float64) float64 {
	return float64(l.eps*(math.Abs(y)+l.s)) + math.SmallestNonzeroFloat64
}

// tick is a checkpoint of the run: it calls the pause, if any.
func (l *learner) tick() {
	if l.pause != nil {
		l.pause(l)
	}
}

// progress reports the learner's progress.
func (l *learner) progress() Progress {
	p := Progress{Queries: l.res.Queries, Planned: max(l.planned, l.res.Queries),
		Columns: l.columns, Width: l.d, Final: l.stage == stageFinal}
	f := shareQueries * float64(p.Queries) / float64(max(1, p.Planned))
	switch l.stage {
	case stageColumnOne:
		f = shareQueries + shareColumnOne*float64(l.links)/float64(l.d)
	case stageColumns:
		f = shareQueries + shareColumnOne + shareColumns*float64(l.columns-1)/float64(max(1, l.d-1))
	case stageFinal:
		f = shareQueries + shareColumnOne + shareColumns
	}
	p.Fraction = min(f, 1)
	return p
}

// askBox makes the query of n copies of RF k's token a followed by its z
// through the black box, recording a Big answer at the working precision.
func (l *learner) askBox(k, n int) (float64, error) {
	rf := &l.res.Trace.RFs[k]
	q := Request{Tokens: make([][]float64, n+1)}
	for i := 0; i < n; i++ {
		q.Tokens[i] = rf.A
	}
	q.Tokens[n] = rf.Z
	if l.x != nil {
		q.Big = make([][]*big.Float, n+1)
		for i := 0; i < n; i++ {
			q.Big[i] = l.x.tokA[k]
		}
		q.Big[n] = l.x.tokZ[k]
	}
	a, err := l.o.box.answer(q)
	if err == nil {
		err = a.Err
	}
	if err != nil {
		return 0, err
	}
	if l.x == nil {
		return a.Y, nil
	}
	y := a.Big
	if y == nil {
		if math.IsNaN(a.Y) {
			return a.Y, nil // reported by ask
		}
		y = new(big.Float).SetFloat64(a.Y)
	}
	return l.x.record(y), nil
}
