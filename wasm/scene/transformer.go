package scene

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
	"headlab/numerics/recovery"
	"headlab/numerics/transformer"
	"headlab/web/link"
)

// Transformer is the Transformer scene computed from a state (MATH.md
// §3.7): a one-layer Transformer drawn from the seed, the run of
// transformer.Learn that recovers it from value queries (in the compute
// worker), and the step of that run the state asks for. Step k shows the
// run after its first k recorded steps (transformer.Result.Steps): in phase
// A a value of the odd part G, drawn as the Recovery scene draws a query;
// in phase B the line of single tokens with the pieces, kinks and units
// found so far. Step 0 shows nothing done; the last step the whole run.
// plots.ForLink follows the same convention.
type Transformer struct {
	State link.State
	// Setup is the run's set-up (link.State.Transformer), Net the true
	// network it draws; NetErr is why no network could be drawn.
	Setup  experiment.Transformer
	Net    transformer.Network
	NetErr error
	// Odd is the attention layer of the odd part G = F(X) − F(−X) of Net
	// (heads W_h, values w_h), in canonical form: what phase A recovers.
	Odd attention.Layer
	// Run is the finished run, nil while it is computed.
	Run *experiment.TransformerRun

	notices []link.Notice
	lab     *transformerLab
}

// NewTransformer computes the scene for s; it fails only on a state
// outside the schema. The run comes from the lab when it holds it;
// otherwise the scene's Job asks for it.
func NewTransformer(s link.State, lab *Lab) (*Transformer, error) {
	if lab == nil {
		lab = NewLab()
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	t := &Transformer{State: s, Setup: s.Transformer(), lab: lab.transformer}
	if s.View != "steps" && s.View != "result" {
		t.notices = append(t.notices, link.Notice{Key: "view", Value: s.View,
			Message: "the transformer scene has the views steps and result; set to steps"})
		t.State.View = "steps"
	}
	t.Net, t.NetErr = t.Setup.TrueNetwork()
	if t.NetErr == nil {
		t.Odd = attention.Canonical(oddLayer(t.Net), CanonicalTol)
	}
	if run, ok := t.lab.run(t.State, false); ok {
		t.finish(run)
	}
	return t, nil
}

// Compute takes the run now if the lab can make it at once (a local lab),
// else asks for it.
func (t *Transformer) Compute() {
	if t.Run == nil {
		if run, ok := t.lab.run(t.State, true); ok {
			t.finish(run)
		}
	}
}

// finish fills the scene from a run and clamps the step to its end.
func (t *Transformer) finish(run transformerRun) {
	t.Run = &run
	if n := t.Steps(); t.State.Step > n {
		t.notices = append(t.notices, link.Notice{Key: "step", Value: fmt.Sprint(t.State.Step),
			Message: fmt.Sprintf("beyond the last step %d of this run; set to %d", n, n)})
		t.State.Step = n
	}
}

// oddLayer returns the attention layer of Net's odd part: G(X) =
// F(X) − F(−X) = Σ_h w_hᵀ φ_h(X) with w_h = V_h(Σ_k a_k b_k + 2w), since
// a·ReLU(z) − a·ReLU(−z) = a·z and the readout w is odd already. The
// residual's share ω·x_N is not a head; phase A removes it before
// recovery.
func oddLayer(n transformer.Network) attention.Layer {
	m := n.Dim()
	c := make([]float64, m)
	for _, u := range n.Units {
		for j := range c {
			c[j] += u.A * u.B[j]
		}
	}
	for j := range c {
		if j < len(n.Readout) {
			c[j] += 2 * n.Readout[j]
		}
	}
	l := make(attention.Layer, len(n.Heads))
	for h, hd := range n.Heads {
		d := len(hd.W)
		w := mat.NewDense(d, d, nil)
		v := mat.NewVecDense(d, nil)
		for i := 0; i < d; i++ {
			w.SetRow(i, hd.W[i])
			s := 0.0
			for j := 0; j < m; j++ {
				s += hd.V[i][j] * c[j]
			}
			v.SetVec(i, s)
		}
		l[h] = attention.Head{W: w, V: v}
	}
	return l
}

// Link returns the state the scene was computed from, its step clamped
// once the run is known.
func (t *Transformer) Link() link.State { return t.State }

// Notices returns what the scene adjusted in its state.
func (t *Transformer) Notices() []link.Notice { return append([]link.Notice(nil), t.notices...) }

// Computing reports whether the run is still to be computed.
func (t *Transformer) Computing() bool { return t.Run == nil }

// Progress is the fraction of the run computed, as the worker reported.
func (t *Transformer) Progress() float64 {
	if t.Run != nil {
		return 1
	}
	return t.lab.progress(t.State)
}

// Steps is the number of recorded steps of the run (0 while computing).
func (t *Transformer) Steps() int {
	if t.Run == nil {
		return 0
	}
	return len(t.Run.Result.Steps)
}

// Step is the current step, 0…Steps (the state's while computing).
func (t *Transformer) Step() int {
	if t.Run == nil {
		return t.State.Step
	}
	return min(t.State.Step, t.Steps())
}

// AtEnd reports whether the current step is the run's last.
func (t *Transformer) AtEnd() bool { return t.Run != nil && t.Step() == t.Steps() }

// Done returns the steps made by the current step.
func (t *Transformer) Done() []transformer.Step {
	if t.Run == nil {
		return nil
	}
	return t.Run.Result.Steps[:t.Step()]
}

// Current returns the last step made, and false at step 0.
func (t *Transformer) Current() (transformer.Step, bool) {
	done := t.Done()
	if len(done) == 0 {
		return transformer.Step{}, false
	}
	return done[len(done)-1], true
}

// InHeads reports whether a step belongs to phase A (the heads).
func InHeads(s transformer.Step) bool {
	return s.Kind == transformer.HeadValue || s.Kind == transformer.ResidualValue
}

// Phase names the current step's phase: "" at step 0, "heads" (phase A)
// or "units" (phase B).
func (t *Transformer) Phase() string {
	s, ok := t.Current()
	switch {
	case !ok:
		return ""
	case InHeads(s):
		return "heads"
	}
	return "units"
}

// Counts are the oracle calls made by the current step, by phase, and
// the units and kinks found.
type Counts struct {
	Queries, Head, Unit int
	Units, Kinks        int
	Probes, Solves      int // local solves tried, and those that gave a piece
}

// Counts returns what the current step has made; in the result view,
// what the whole run made.
func (t *Transformer) Counts() Counts {
	var c Counts
	done := t.Done()
	if t.Run != nil && t.State.View == "result" {
		done = t.Run.Result.Steps
	}
	for _, s := range done {
		if InHeads(s) {
			c.Head += s.Calls
		} else {
			c.Unit += s.Calls
		}
		switch s.Kind {
		case transformer.UnitFound:
			c.Units++
		case transformer.KinkFound:
			c.Kinks++
		case transformer.Probe:
			c.Probes++
			if s.OK {
				c.Solves++
			}
		}
	}
	c.Queries = c.Head + c.Unit
	return c
}

// HeadBound is 2·(the schedule's count): phase A's oracle calls, two per
// value of G (plus 2d for the residual's share).
func (t *Transformer) HeadBound() int {
	n := recovery.PaperQueries(t.State.H, t.State.D)
	if t.State.Mode == "economy" {
		n = recovery.EconomyQueries(t.State.H, t.State.D)
	}
	n *= 2
	if t.State.Resid {
		n += 2 * t.State.D
	}
	return n
}

// Blocks is the number of d-blocks of φ: H, and one more with the
// residual.
func (t *Transformer) Blocks() int {
	if t.State.Resid {
		return t.State.H + 1
	}
	return t.State.H
}

// IdealUnits is phase B's ideal: K+1 local solves of Hd+1 queries each
// (with the residual's block, (H+1)d+1).
func (t *Transformer) IdealUnits() int { return (t.State.Units + 1) * (t.Blocks()*t.State.D + 1) }

// PhaseA returns the Recovery scene of phase A at the current step: the
// odd part's run (Result.Heads) with as many of its queries made as the
// current step has made, so that the Recovery scene's drawing shows it.
// It returns false when the run has no phase A trace.
func (t *Transformer) PhaseA() (*Recovery, bool) {
	if t.Run == nil || len(t.Run.Result.Heads.Trace.Queries) == 0 {
		return nil, false
	}
	made := 0
	for _, s := range t.Done() {
		if s.Kind == transformer.HeadValue {
			made = max(made, s.Index+1)
		}
	}
	st := t.State
	st.Scene, st.Step, st.View, st.Noise, st.H0 = "recovery", made, "steps", 0, 0
	res := t.Run.Result.Heads
	r := &Recovery{State: st, Result: &res, Canonical: t.Odd, True: t.Odd, Error: math.Inf(1)}
	r.Options = recovery.DefaultOptions(st.H, st.D)
	if e, err := attention.RelativeError(res.Layer, t.Odd); err == nil && t.Run.Err == nil {
		r.Error = e
	}
	return r, true
}

// Failed returns the run's error (a failed condition, or the worker's),
// nil when it succeeded or is not known yet.
func (t *Transformer) Failed() error {
	if t.Run == nil {
		return nil
	}
	return t.Run.Err
}

// Error is the largest relative |ΔF| of the recovered network on the
// held-out sequences (NaN while computing or when the run failed).
func (t *Transformer) Error() float64 {
	if t.Run == nil || t.Run.Err != nil {
		return math.NaN()
	}
	return t.Run.Agreement
}

// Facts returns the numbers the scene shows, under the names of the
// page's test contract: step, steps, queries, headQueries and unitQueries
// (made by the step, by phase; in the result view, by the whole run),
// units (identified by the step, or the run) and, at the
// end (or in the result view), error: the largest relative |ΔF| of the
// recovered against the true network on held-out sequences. Among the
// others: headBound (2·the schedule's count), idealUnits ((K+1)(Hd+1)),
// kinks, solves, phase, kind (the current step's), t (its place on the
// line), equivalent, conditions, failed (the condition that failed and
// why) and, while computing, the run's progress.
func (t *Transformer) Facts() map[string]any {
	s := t.State
	c := t.Counts()
	f := map[string]any{
		"scene": "transformer", "view": s.View, "computing": t.Computing(),
		"step": t.Step(), "steps": t.Steps(),
		"queries": c.Queries, "headQueries": c.Head, "unitQueries": c.Unit,
		"units": c.Units, "kinks": c.Kinks, "probes": c.Probes, "solves": c.Solves,
		"headBound": t.HeadBound(), "idealUnits": t.IdealUnits(), "trueUnits": s.Units,
		"lengthBound": 2*s.H + 1, "phase": t.Phase(), "precision": int(t.Setup.Precision()),
	}
	if t.NetErr != nil {
		f["failed"] = map[string]any{"message": t.NetErr.Error()}
		return f
	}
	if t.Computing() {
		f["runProgress"] = t.Progress()
		return f
	}
	res := t.Run.Result
	if st, ok := t.Current(); ok {
		f["kind"] = st.Kind.String()
		if !InHeads(st) {
			f["t"] = finiteOrNil1(st.T)
		}
	}
	f["runQueries"] = res.Queries
	f["runHeadQueries"] = res.HeadQueries
	f["runUnitQueries"] = res.UnitQueries
	f["maxLength"] = res.MaxLength
	f["learnMs"] = float64(t.Run.Dur.Microseconds()) / 1000
	var conds []map[string]any
	for _, cd := range res.Conditions {
		conds = append(conds, map[string]any{"name": cd.Name, "holds": cd.Holds, "detail": cd.Detail})
	}
	f["conditions"] = conds
	if err := t.Run.Err; err != nil {
		f["failed"] = map[string]any{"message": err.Error(), "condition": transformer.FailedCondition(err)}
		return f
	}
	if t.AtEnd() || s.View == "result" {
		f["error"] = finiteOrNil1(t.Run.Agreement)
		f["equivalent"] = t.Run.Equivalent == ""
		if t.Run.Equivalent != "" {
			f["difference"] = t.Run.Equivalent
		}
		f["foundUnits"] = len(res.Net.Units)
		if e, err := attention.RelativeError(res.Heads.Layer, t.Odd); err == nil {
			f["headError"] = finiteOrNil1(e)
		}
	}
	return f
}

// Describe returns a sentence stating what the canvas shows.
func (t *Transformer) Describe() string {
	s := t.State
	head := fmt.Sprintf("Transformer with %d heads of width %d, m = %d, %d units", s.H, s.D, s.M, s.Units)
	if t.NetErr != nil {
		return head + ": " + t.NetErr.Error()
	}
	if t.Computing() {
		return fmt.Sprintf("%s: computing the run… %d%%", head, int(100*t.Progress()))
	}
	c := t.Counts()
	if err := t.Run.Err; err != nil && (s.View == "result" || t.AtEnd()) {
		return head + ": the run stopped: " + err.Error()
	}
	if s.View == "result" || t.AtEnd() {
		return fmt.Sprintf("%s: recovered %d units after %d queries (%d for the heads, %d for the units); largest held-out |ΔF| %.2g relative.",
			head, len(t.Run.Result.Net.Units), t.Run.Result.Queries, t.Run.Result.HeadQueries, t.Run.Result.UnitQueries, t.Run.Agreement)
	}
	st, ok := t.Current()
	if !ok {
		return fmt.Sprintf("%s: step 0 of %d, nothing queried yet.", head, t.Steps())
	}
	where := "phase A, the heads from the odd part F(X) − F(−X)"
	if !InHeads(st) {
		where = fmt.Sprintf("phase B, the units along the line: %s at t = %.4g", st.Kind, st.T)
	}
	return fmt.Sprintf("%s: step %d of %d, %s; %d queries, %d units found.", head, t.Step(), t.Steps(), where, c.Queries, c.Units)
}
