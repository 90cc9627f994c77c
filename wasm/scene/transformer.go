package scene

import (
	"fmt"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
	"headlab/numerics/replay"
	"headlab/numerics/transformer"
	"headlab/web/link"
)

// Transformer is the Transformer scene computed from a state (MATH.md
// §3.7): a one-layer Transformer drawn from the seed, the run of
// transformer.Learn that recovers it from value queries (in the compute
// worker), and that run replayed to the step the state asks for
// (replay.Transformer: its network, odd part, run and steps). Step k shows
// the run after its first k recorded steps; plots.ForLink draws the same
// replay.
type Transformer struct {
	State link.State
	replay.Transformer

	// The line's range of F and the marks at the step, computed when the
	// run arrives (LineAxes, Marks).
	lineLo, lineHi float64
	marks          []replay.Mark

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
	t := &Transformer{State: s, Transformer: replay.NewTransformer(s.Transformer(), s.Step), lab: lab.transformer}
	if v := s.TransformerView(); v != s.View {
		t.notices = append(t.notices, link.Notice{Key: "view", Value: string(s.View),
			Message: "the transformer scene has the views steps and result; set to " + string(v)})
		t.State.View = v
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
	t.Finish(run)
	if n := t.Steps(); t.State.Step > n {
		t.notices = append(t.notices, link.Notice{Key: "step", Value: fmt.Sprint(t.State.Step),
			Message: fmt.Sprintf("beyond the last step %d of this run; set to %d", n, n)})
		t.State.Step = n
	}
	t.lineLo, t.lineHi = t.LineRange()
	t.marks = t.Transformer.Marks()
}

// LineAxes returns the axes of phase B's plot of the line at plot: t on
// the atan scale, F over the true curve's range with room
// (replay.Transformer.LineRange).
func (t *Transformer) LineAxes(plot Rect) LineAxes {
	return LineAxes{Plot: plot, Y0: t.lineLo, Y1: t.lineHi}
}

// Marks returns the marks of phase B made by the current step
// (replay.Transformer.Marks), nil until the run arrives.
func (t *Transformer) Marks() []replay.Mark { return t.marks }

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

// Counts returns what the current step has made (replay.CountSteps); in
// the result view, what the whole run made.
func (t *Transformer) Counts() replay.Counts {
	if t.Run != nil && t.State.View == link.Result {
		return replay.CountSteps(t.Run.Result.Steps)
	}
	return replay.CountSteps(t.Done())
}

// HeadBound is 2·(the schedule's count): phase A's oracle calls, two per
// value of G (plus 2d for the residual's share).
func (t *Transformer) HeadBound() int {
	n := 2 * t.State.Mode.Queries(t.State.H, t.State.D)
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

// PhaseA returns the Recovery scene of phase A at the current step
// (replay.Transformer.PhaseA): the odd part's run with as many of its
// queries made as the current step has made, so that the Recovery scene's
// drawing shows it. It returns false when the run has no phase A trace.
func (t *Transformer) PhaseA() (*Recovery, bool) {
	p, ok := t.Transformer.PhaseA()
	if !ok {
		return nil, false
	}
	st := t.State
	st.Scene, st.Step, st.View, st.Noise, st.H0 = "recovery", p.Made, "steps", 0, 0
	r := &Recovery{State: st, Result: &p.Result, Canonical: t.Odd, True: t.Odd, Error: p.Error}
	r.Options = recovery.DefaultOptions(st.H, st.D)
	r.pairUp()
	return r, true
}

// Facts returns the numbers the scene shows, under the names of the
// page's test contract: step, steps, queries, headQueries and unitQueries
// (made by the step, by phase; in the result view, by the whole run),
// units (identified by the step, or the run) and, at the
// end (or in the result view), error: the largest relative |ΔF| of the
// recovered against the true network on held-out sequences. Among the
// others: headBound (2·the schedule's count), idealUnits ((K+1)(Hd+1)),
// kinks, solves, phase, kind (the current step's), t (its place on the
// line), pieces (the pieces found by the step over their stretches
// between kinks, replay.Spans), equivalent, conditions, failed (the condition that failed and
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
		if !replay.InHeads(st) {
			f["t"] = finiteOrNil1(st.T)
		}
	}
	var pieces []map[string]any
	for _, sp := range t.Spans() {
		// t is nil at an infinite end; from is nil for −∞, to for +∞.
		pieces = append(pieces, map[string]any{"t": finiteOrNil1(sp.Piece.T), "from": finiteOrNil1(sp.A), "to": finiteOrNil1(sp.B)})
	}
	f["pieces"] = pieces
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
	if t.AtEnd() || s.View == link.Result {
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
	if err := t.Run.Err; err != nil && (s.View == link.Result || t.AtEnd()) {
		return head + ": the run stopped: " + err.Error()
	}
	if s.View == link.Result || t.AtEnd() {
		return fmt.Sprintf("%s: recovered %d units after %d queries (%d for the heads, %d for the units); largest held-out |ΔF| %.2g relative.",
			head, len(t.Run.Result.Net.Units), t.Run.Result.Queries, t.Run.Result.HeadQueries, t.Run.Result.UnitQueries, t.Run.Agreement)
	}
	st, ok := t.Current()
	if !ok {
		return fmt.Sprintf("%s: step 0 of %d, nothing queried yet.", head, t.Steps())
	}
	where := "phase A, the heads from the odd part F(X) − F(−X)"
	if !replay.InHeads(st) {
		where = fmt.Sprintf("phase B, the units along the line: %s at t = %.4g", st.Kind, st.T)
	}
	return fmt.Sprintf("%s: step %d of %d, %s; %d queries, %d units found.", head, t.Step(), t.Steps(), where, c.Queries, c.Units)
}
