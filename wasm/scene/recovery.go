package scene

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
	"headlab/numerics/replay"
	"headlab/web/link"
)

// Recovery is the Recovery scene computed from a state (MATH.md §3): the
// true layer and its canonical form, the learner's options, the run of
// recovery.Learn with its trace, and the step the state asks for. A step is
// a number of queries made: step 0 shows nothing queried, step k shows the
// rational function of query k−1 with the samples of queries 0…k−1, and
// the last step (Steps) shows the whole run. plots.ForLink uses the same
// convention, so a figure exported at a step shows what the canvas shows.
//
// A run not yet in the scene's cache is computed by the scene's Job: until
// then Computing reports true and the step is not clamped.
type Recovery struct {
	State link.State
	// True is the true layer (the state's experiment.Recovery's
	// TrueLayer) and Canonical its canonical form, which recovery should
	// find.
	True, Canonical attention.Layer
	// Model is the true layer with its biases (c_h and C; none without
	// bias=1) and CanonicalModel its canonical form, whose Layer is
	// Canonical.
	Model, CanonicalModel attention.Biased
	// Options are the learner's options (experiment.Recovery.OptionsFor
	// the true layer with its biases).
	Options recovery.Options

	// Result is Learn's result, nil while computing. Err is Learn's error
	// when the run could not be resolved (Result then holds the trace so
	// far and no layer); Fault is Err as a *recovery.Error when it is one.
	Result *recovery.Result
	Err    error
	Fault  *recovery.Error
	// Error is the largest relative error of the recovered canonical
	// parameters against Canonical (attention.RelativeError); +Inf when
	// the run failed or found a different number of heads.
	Error float64
	// BiasError is the largest error of the recovered c_h and C, each
	// relative to the largest |c_h| entry and |C| (at least 1), against
	// CanonicalModel's; NaN without biases or a resolved run.
	BiasError float64
	// LearnTime is how long Learn took when this run was computed (the
	// cache keeps it): a measurement, shown with the numbers.
	LearnTime time.Duration

	// Replay, when set, is the recorded run the scene replays (State.Run):
	// there is no true layer, True and Canonical are nil and Error is +Inf.
	Replay *Replay

	pair     []int // Pairing, computed when the run arrives
	pairErrs []float64
	notices  []link.Notice
	lab      *recoveryLab
}

// NewRecovery computes the scene for s. It fails only on a state outside
// the schema. The run of Learn comes from the scene's cache when the same
// layer and options were learnt before; otherwise the scene's Job runs it.
func NewRecovery(s link.State, lab *Lab) (*Recovery, error) {
	if lab == nil {
		lab = NewLab()
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	r := &Recovery{State: s, lab: lab.recovery, Error: math.Inf(1), BiasError: math.NaN()}
	if s.Run != nil {
		if err := r.openReplay(); err != nil {
			return nil, err
		}
	} else {
		var err error
		if r.Model, err = trueModel(s); err != nil {
			return nil, err
		}
		r.True = r.Model.Layer
		r.CanonicalModel = r.Model.Canonical(CanonicalTol)
		r.Canonical = r.CanonicalModel.Layer
		r.Options = s.Recovery().OptionsFor(r.Model)
	}
	if run, ok := r.lab.run(s); ok {
		r.finish(run)
	}
	return r, nil
}

// Compute takes the run now if the lab can make it at once (a local lab;
// see NewLocalLab), else asks for it. The canvas lets the Job do it
// instead, after a frame saying that it computes.
func (r *Recovery) Compute() {
	if r.Result != nil {
		return
	}
	if run, ok := r.lab.learn(r.State); ok {
		r.finish(run)
	}
}

// trueModel is s.Recovery().TrueModel, with a panic of it turned into an
// error so that a bad state never takes the canvas down.
func trueModel(s link.State) (l attention.Biased, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("scene: the true layer of the recovery scene: %v", p)
		}
	}()
	return s.Recovery().TrueModel(), nil
}

// finish fills the scene from a run and clamps the step to the run's end.
func (r *Recovery) finish(run learnRun) {
	res := run.Result
	r.Result, r.Err, r.LearnTime = &res, run.Err, run.Dur
	r.Fault = nil
	var fe *recovery.Error
	if errors.As(run.Err, &fe) {
		r.Fault = fe
	}
	r.Error = math.Inf(1)
	if run.Err == nil && r.Replay == nil {
		if e, err := attention.RelativeError(res.Layer, r.Canonical); err == nil {
			r.Error = e
		}
	}
	r.pairUp()
	r.BiasError = r.biasError()
	if n := r.Steps(); r.State.Step > n {
		r.notices = append(r.notices, link.Notice{Key: "step", Value: fmt.Sprint(r.State.Step),
			Message: fmt.Sprintf("beyond the last step %d of this run; set to %d", n, n)})
		r.State.Step = n
	}
}

// biasError is BiasError for the run just taken.
func (r *Recovery) biasError() float64 {
	res := r.Result
	if !r.Options.Biases || r.Err != nil || r.pair == nil || len(res.QueryBias) != len(res.Layer) {
		return math.NaN()
	}
	want := r.CanonicalModel
	scale := 1.0
	for h := range want.Layer {
		for _, x := range want.Bias(h) {
			scale = math.Max(scale, math.Abs(x))
		}
	}
	e := math.Abs(res.Const-want.Const) / math.Max(1, math.Abs(want.Const))
	for h, g := range r.pair {
		c := want.Bias(h)
		for i := range res.QueryBias[g] {
			w := 0.0
			if c != nil {
				w = c[i]
			}
			e = math.Max(e, math.Abs(res.QueryBias[g][i]-w)/scale)
		}
	}
	return e
}

// BiasRows returns, with biases, each canonical head's true and recovered
// c_h (paired as the heat maps pair heads; recovered nil when the run did
// not resolve) and C true and recovered, for the result view.
func (r *Recovery) BiasRows() (trueC, gotC [][]float64, trueK, gotK float64, ok bool) {
	if !r.Options.Biases {
		return nil, nil, 0, 0, false
	}
	trueK, gotK = r.CanonicalModel.Const, math.NaN()
	for h := range r.Canonical {
		c := r.CanonicalModel.Bias(h)
		if c == nil {
			c = make([]float64, r.State.D)
		}
		trueC = append(trueC, c)
	}
	if r.Result != nil && r.Err == nil && r.pair != nil && len(r.Result.QueryBias) == len(r.Result.Layer) {
		gotK = r.Result.Const
		for _, g := range r.pair {
			gotC = append(gotC, r.Result.QueryBias[g])
		}
	}
	return trueC, gotC, trueK, gotK, true
}

// BiasSummary is the result view's sentence on the biases: C and every
// canonical head's c_h true against recovered (the heads as the heat
// maps pair them; only the error for more than 4 heads or d > 4), and the
// largest error; "" without biases.
func (r *Recovery) BiasSummary() string {
	tc, gc, tk, gk, ok := r.BiasRows()
	if !ok || gc == nil {
		return ""
	}
	vec := func(x []float64) string {
		parts := make([]string, len(x))
		for i, v := range x {
			parts[i] = FormatNum(v)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	b := fmt.Sprintf("Biases, beyond the paper (%d more queries): C true %s, recovered %s", recovery.BiasQueries(r.Options.Mode, r.Heads(), r.State.D), FormatNum(tk), FormatNum(gk))
	if len(tc) <= 4 && r.State.D <= 4 {
		for h := range tc {
			b += fmt.Sprintf("; c_%d true %s, recovered %s", h+1, vec(tc[h]), vec(gc[h]))
		}
	}
	return b + " · largest error of c_h and C " + FormatSci(r.BiasError)
}

// Link returns the state the scene was computed from, its step clamped to
// the run's last step once the run is known.
func (r *Recovery) Link() link.State { return r.State }

// Notices returns what the scene adjusted in its state (a step beyond the
// end, clamped), to be shown to the user like a link's notices. When the
// run is computed by the Job, a clamp is only known, and appended, once
// the Job has finished.
func (r *Recovery) Notices() []link.Notice { return append([]link.Notice(nil), r.notices...) }

// Computing reports whether the run is still to be computed.
func (r *Recovery) Computing() bool { return r.Result == nil }

// RunProgress reports how far the computation of the run has got: the
// queries made of those planned and the columns of the W_h fitted, from
// the run in the scene's cache (none before the Job's first slice). Once
// the run is known it reports it done.
func (r *Recovery) RunProgress() recovery.Progress {
	if r.Result != nil {
		p := recovery.Progress{Queries: r.Result.Queries, Planned: r.Result.Queries, Width: r.State.D,
			Final: r.Err == nil, Fraction: 1}
		if r.Err == nil {
			p.Columns = r.State.D
		}
		return p
	}
	if p, ok := r.lab.t.progressOf(learnKey(r.State)); ok && p.Recovery != nil {
		return *p.Recovery
	}
	if run, ok := r.lab.run(r.State); ok {
		// Arrived, and taken by the Job at the next frame: done, so that
		// the progress shown never goes back.
		return recovery.Progress{Queries: run.Result.Queries, Planned: max(r.Steps(), run.Result.Queries), Width: r.State.D,
			Final: run.Err == nil, Fraction: 1}
	}
	return recovery.Progress{Planned: r.Steps(), Width: r.State.D}
}

// ProgressText says how far a run has got, as the canvas shows it while
// computing: "k of n queries, c of d columns fitted" or, at the end, that
// the global fit runs.
func ProgressText(p recovery.Progress) string {
	if p.Final {
		return fmt.Sprintf("%d of %d queries, every column fitted; fitting all heads to every answer", p.Queries, p.Planned)
	}
	return fmt.Sprintf("%d of %d queries, %d of %d columns fitted", p.Queries, p.Planned, p.Columns, p.Width)
}

// Heads is the number of heads the learner is told: H, or the bound H0.
func (r *Recovery) Heads() int { return r.Options.Heads }

// Bound is the paper's query count 4Hd² − 2H + 1 (with H0 when given).
func (r *Recovery) Bound() int { return recovery.PaperQueries(r.Heads(), r.State.D) }

// Information is the information bound H(d² + d) of the canonical layer.
func (r *Recovery) Information() int {
	h := len(r.Canonical)
	if r.Replay != nil {
		h = r.Heads()
	}
	return recovery.InformationBound(max(1, h), r.State.D)
}

// Steps is the number of queries of the run (the last step). While the run
// is computed it is the schedule's planned count.
func (r *Recovery) Steps() int {
	if r.Result != nil {
		return len(r.Result.Trace.Queries)
	}
	n := r.Options.Mode.Queries(r.Heads(), r.State.D)
	if r.Options.Biases {
		n += recovery.BiasQueries(r.Options.Mode, r.Heads(), r.State.D)
	}
	return n
}

// Step is the current step, 0…Steps.
func (r *Recovery) Step() int { return min(r.State.Step, r.Steps()) }

// AtEnd reports whether the current step is the run's last.
func (r *Recovery) AtEnd() bool { return r.Result != nil && r.Step() == r.Steps() }

// View returns the step view of the current step, and false at step 0 or
// while computing.
func (r *Recovery) View() (replay.StepView, bool) {
	return r.ViewAt(r.Step())
}

// ViewAt returns the step view after step queries (1…Steps; replay.At).
func (r *Recovery) ViewAt(step int) (replay.StepView, bool) {
	if r.Result == nil {
		return replay.StepView{}, false
	}
	return replay.At(&r.Result.Trace, step)
}

// MaxLength is the longest query made by the current step.
func (r *Recovery) MaxLength() int {
	if r.Result == nil {
		return 0
	}
	m := 0
	for _, q := range r.Result.Trace.Queries[:r.Step()] {
		m = max(m, q.Length)
	}
	return m
}

// Measurement returns the index of the measurement RF M_{i+1,j+1} in the
// trace, or −1.
func (r *Recovery) Measurement(i, j int) int {
	if r.Result == nil {
		return -1
	}
	for k, rf := range r.Result.Trace.RFs {
		if rf.Kind == recovery.Measurement && rf.I == i && rf.J == j {
			return k
		}
	}
	return -1
}

// LinkTerm is one measurement whose log-pole adds up to a link's.
type LinkTerm struct {
	Name string  // the measurement's name, M_ab
	P    float64 // its fitted p of the head (NaN when not matched)
}

// LinkRow explains the matching of one pole of a link RF: the link's
// fitted p = log ρ and r = R/ρ of the pole, the head it was matched to, and
// the measurements whose p of that head sum to the link's p (MATH.md §3.3:
// RF(z_1+z_j, u_1) has p(M_11) + p(M_1j), RF(z_j, u_1+u_i) has
// p(M_1j) + p(M_ij); its r is that of M_11, or r(M_1j) + r(M_ij)).
type LinkRow struct {
	Head  int
	P, R  float64
	Terms []LinkTerm
	Sum   float64 // Σ of the terms' P
	RSum  float64 // Σ of the measurements' r of the head (by u)
}

// LinkRows returns the matching of a link RF's poles, one row per fitted
// pole, or nil for a measurement.
func (r *Recovery) LinkRows(k int) []LinkRow {
	if r.Result == nil || k < 0 || k >= len(r.Result.Trace.RFs) {
		return nil
	}
	rf := &r.Result.Trace.RFs[k]
	if rf.Kind != recovery.Link {
		return nil
	}
	var rows []LinkRow
	for b := range rf.P {
		h := -1
		if b < len(rf.Heads) {
			h = rf.Heads[b]
		}
		row := LinkRow{Head: h, P: rf.P[b], R: math.NaN()}
		if b < len(rf.R) {
			row.R = rf.R[b]
		}
		for _, a := range rf.UIndex {
			for _, z := range rf.ZIndex {
				t := LinkTerm{Name: fmt.Sprintf("M_%d%d", a+1, z+1), P: math.NaN()}
				if m := r.Measurement(a, z); m >= 0 {
					t.P = headValue(&r.Result.Trace.RFs[m], h, true)
				}
				row.Terms = append(row.Terms, t)
				row.Sum += t.P
			}
		}
		for _, a := range rf.UIndex {
			// r of a head depends on u only: take it from M_{a+1, z}.
			if m := r.Measurement(a, rf.ZIndex[0]); m >= 0 {
				row.RSum += headValue(&r.Result.Trace.RFs[m], h, false)
			} else {
				row.RSum = math.NaN()
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// headValue returns the fitted p (or r) of the pole of rf matched to head
// h; NaN when no pole is.
func headValue(rf *recovery.RF, h int, p bool) float64 {
	if h < 0 {
		return math.NaN()
	}
	for b, hh := range rf.Heads {
		if hh == h {
			if p && b < len(rf.P) {
				return rf.P[b]
			}
			if !p && b < len(rf.R) {
				return rf.R[b]
			}
		}
	}
	return math.NaN()
}

// Facts returns the numbers the scene shows, under the names of the page's
// test contract: step, steps, queries (made by the step), bound
// (4Hd²−2H+1), maxLength (the longest query so far) and, at the last step
// of a run that succeeded, error (the largest relative error of the
// recovered canonical parameters; the result view always shows the end, so
// it reports error at any step). Among the others: information (H(d²+d)),
// economy (2H(d²+d−1)+1), frugal (2H(2d−1)+1+(H+1)(d²−d)), lengthBound (2H+1), computing, rf (the current
// rational function), truth and recovered (canonical heads as W row by row
// and v), failed (where and why a run could not be resolved), sweep and
// modes, and while computing runProgress (how far the run has got: queries
// made of planned, columns fitted of width, final (the global fit) and
// fraction, an estimate of the share done).
func (r *Recovery) Facts() map[string]any {
	s := r.State
	H := r.Heads()
	f := map[string]any{
		"scene":       "recovery",
		"mode":        s.Mode,
		"prec":        s.Prec,
		"view":        s.View,
		"computing":   r.Computing(),
		"step":        r.Step(),
		"steps":       r.Steps(),
		"queries":     r.Step(),
		"bound":       r.Bound(),
		"economy":     recovery.EconomyQueries(H, s.D),
		"frugal":      recovery.FrugalQueries(H, s.D),
		"information": r.Information(),
		"lengthBound": 2*H + 1,
		"maxLength":   r.MaxLength(),
		"heads":       H,
		"trueHeads":   len(r.True),
		"canonical":   len(r.Canonical),
		"truth":       layerFacts(r.Canonical),
	}
	if tc, gc, tk, gk, ok := r.BiasRows(); ok && r.Replay == nil {
		b := map[string]any{"c": tc, "C": tk, "queries": recovery.BiasQueries(r.Options.Mode, H, s.D)}
		if gc != nil {
			b["recoveredC"], b["recoveredConst"], b["error"] = gc, gk, finiteOrNil1(r.BiasError)
		}
		f["biases"] = b
	}
	if rp := r.Replay; rp != nil {
		f["replay"] = map[string]any{"name": rp.Name, "sha256": rp.Hash, "oracle": rp.Oracle, "answers": rp.Answers, "fromLink": rp.Link}
	}
	if r.Computing() {
		p := r.RunProgress()
		f["runProgress"] = map[string]any{"queries": p.Queries, "planned": p.Planned,
			"columns": p.Columns, "width": p.Width, "final": p.Final, "fraction": p.Fraction}
	}
	if v, ok := r.View(); ok {
		rf := v.RF
		g := map[string]any{
			"index": v.Index, "name": rf.Name(), "kind": rf.Kind.String(),
			"samples": len(rf.N), "taken": v.Taken, "current": v.Current, "n": v.N,
			"fitted": v.Fitted, "knownC": rf.KnownC,
		}
		g["N"] = finiteOrNil(rf.N[:v.Taken])
		g["F"] = finiteOrNil(rf.F[:v.Taken])
		if v.Fitted {
			poles := make([]float64, len(rf.Fit.Poles))
			for i, p := range rf.Fit.Poles {
				poles[i] = -p
			}
			g["poles"] = finiteOrNil(poles)
			g["matched"] = append([]int(nil), rf.Heads...)
			g["cond"] = finiteOrNil1(rf.Fit.Cond)
		}
		f["rf"] = g
	}
	if r.Result != nil {
		res := r.Result
		f["runQueries"] = res.Queries
		f["runMaxLength"] = res.MaxLength
		f["residual"] = finiteOrNil1(res.Residual)
		f["estimate"] = finiteOrNil1(res.Estimate)
		f["cond"] = finiteOrNil1(res.Cond)
		f["found"] = res.Heads
		f["learnMs"] = float64(r.LearnTime.Microseconds()) / 1000
	}
	if r.Err != nil {
		fl := map[string]any{"message": r.Err.Error()}
		if r.Fault != nil {
			fl["rf"], fl["name"], fl["first"], fl["last"], fl["reason"] = r.Fault.RF, r.Fault.Name, r.Fault.First, r.Fault.Last, r.Fault.Reason
		}
		if s.Prec == 0 && r.Options.Tolerance == 0 {
			// The precision the page offers to recompute with: the measured
			// need, or 128 bits where float64 resolves most such layers.
			fl["needPrec"] = max(recovery.NeededPrecision(r.Heads(), s.D, r.Options.Mode), 128)
		}
		f["failed"] = fl
	} else if r.AtEnd() || (s.View == link.Result && r.Result != nil) {
		f["error"] = finiteOrNil1(r.Error)
		f["recovered"] = layerFacts(r.Result.Layer)
		if r.Result.QueryBias != nil {
			f["recoveredBias"] = map[string]any{"c": r.Result.QueryBias, "C": finiteOrNil1(r.Result.Const)}
		}
	}
	switch s.View {
	case link.Sweep:
		f["sweep"] = r.sweepFacts()
	case link.Modes:
		f["modes"] = ModesFacts(H, s.D)
	}
	return f
}

// layerFacts returns the heads as plain objects {W: rows, v}.
func layerFacts(l attention.Layer) []map[string]any {
	out := make([]map[string]any, len(l))
	for h, hd := range l {
		d, _ := hd.W.Dims()
		w := make([][]float64, d)
		for i := range w {
			w[i] = finiteOrZero(hd.W.RawRowView(i))
		}
		out[h] = map[string]any{"W": w, "v": finiteOrZero(hd.V.RawVector().Data)}
	}
	return out
}

func finiteOrZero(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		if finite(v) {
			out[i] = v
		}
	}
	return out
}

// finiteOrNil returns x as JSON-safe values: non-finite numbers as nil.
func finiteOrNil(x []float64) []any {
	out := make([]any, len(x))
	for i, v := range x {
		out[i] = finiteOrNil1(v)
	}
	return out
}

func finiteOrNil1(v float64) any {
	if finite(v) {
		return v
	}
	return nil
}

// ModesFacts returns the query counts over d = 1…16 for H heads: the
// paper's (paper), economy mode's when every fingerprint separates, frugal
// mode's when no measurement falls back, and the information bound.
func ModesFacts(H, d int) map[string]any {
	var ds, paper, econ, frugal, info []int
	for w := 1; w <= max(16, d); w++ {
		ds = append(ds, w)
		paper = append(paper, recovery.PaperQueries(H, w))
		econ = append(econ, recovery.EconomyQueries(H, w))
		frugal = append(frugal, recovery.FrugalQueries(H, w))
		info = append(info, recovery.InformationBound(H, w))
	}
	return map[string]any{"d": ds, "paper": paper, "economy": econ, "frugal": frugal, "information": info, "H": H, "current": d}
}

// Describe returns a sentence stating what the canvas shows.
func (r *Recovery) Describe() string {
	s := r.State
	head := fmt.Sprintf("Recovery of %d canonical heads of width %d in %s mode", len(r.Canonical), s.D, s.Mode)
	if r.Replay != nil {
		head = fmt.Sprintf("Replay of the run log %s (SHA-256 %.12s…, oracle %q), %d heads of width %d in %s mode", r.Replay.Name, r.Replay.Hash, r.Replay.Oracle, r.Heads(), s.D, s.Mode)
	}
	if r.Computing() {
		return head + ": computing the run… " + ProgressText(r.RunProgress())
	}
	switch s.View {
	case link.Result:
		if r.Err != nil {
			return head + ": the run could not be resolved: " + r.Err.Error()
		}
		if r.Replay != nil {
			return fmt.Sprintf("%s: %d heads recovered after %d queries (no true layer to compare with).", head, len(r.Result.Layer), r.Steps())
		}
		return fmt.Sprintf("%s: recovered against true canonical heads after %d queries; largest relative error %.2g.", head, r.Steps(), r.Error)
	case link.Sweep:
		return head + ": parameter error against the oracle's accuracy ε, log–log, over several seeds."
	case link.Modes:
		return head + fmt.Sprintf(": queries of paper mode (%d), economy mode (%d), frugal mode (%d) and the information bound (%d), and over d.",
			r.Bound(), recovery.EconomyQueries(r.Heads(), s.D), recovery.FrugalQueries(r.Heads(), s.D), r.Information())
	}
	v, ok := r.View()
	if !ok {
		return fmt.Sprintf("%s: step 0 of %d, nothing queried yet.", head, r.Steps())
	}
	if v.RF.Kind == recovery.Constant {
		return fmt.Sprintf("%s: step %d of %d, query of the zero token alone, F(0) = C, the layer's constant.", head, r.Step(), r.Steps())
	}
	return fmt.Sprintf("%s: step %d of %d, query of %d copies of a then z for %s (%s), sample %d of %d.",
		head, r.Step(), r.Steps(), v.N, v.RF.Name(), v.RF.Kind, v.Taken, len(v.RF.N))
}
