package replay

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
	"headlab/numerics/recovery"
	"headlab/numerics/transformer"
)

// Transformer is a run of transformer.Learn replayed to a step (MATH.md
// §3.7): the true network the set-up draws, the layer of its odd part
// that phase A recovers, the run once it is made, and the step asked for.
// Step k shows the run after its first k recorded steps
// (transformer.Result.Steps): in phase A a value of the odd part G, in
// phase B the line of single tokens with the pieces, kinks and units found
// so far. Step 0 shows nothing done; the last step the whole run.
type Transformer struct {
	// Setup is the run's set-up, Net the true network it draws; NetErr is
	// why no network could be drawn.
	Setup  experiment.Transformer
	Net    transformer.Network
	NetErr error
	// Odd is the attention layer of the odd part G = F(X) − F(−X) of Net
	// (heads W_h, values w_h), in canonical form: what phase A recovers.
	Odd attention.Layer
	// Run is the finished run, nil until Finish.
	Run *experiment.TransformerRun

	asked int
}

// NewTransformer draws the true network of a set-up, to be replayed to
// step (clamped to the run's end once the run is known).
func NewTransformer(setup experiment.Transformer, step int) Transformer {
	t := Transformer{Setup: setup, asked: step}
	t.Net, t.NetErr = setup.TrueNetwork()
	if t.NetErr == nil {
		t.Odd = attention.Canonical(oddLayer(t.Net), experiment.CanonicalTol)
	}
	return t
}

// Finish takes the finished run.
func (t *Transformer) Finish(run experiment.TransformerRun) { t.Run = &run }

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
			c[j] += float64(u.A * u.B[j])
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
				s += float64(hd.V[i][j] * c[j])
			}
			v.SetVec(i, s)
		}
		l[h] = attention.Head{W: w, V: v}
	}
	return l
}

// Steps is the number of recorded steps of the run (0 until it is made).
func (t *Transformer) Steps() int {
	if t.Run == nil {
		return 0
	}
	return len(t.Run.Result.Steps)
}

// Step is the current step, 0…Steps (the step asked for until the run is
// made).
func (t *Transformer) Step() int {
	if t.Run == nil {
		return t.asked
	}
	return min(t.asked, t.Steps())
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

// Counts are the oracle calls made by some steps, by phase, and the units
// and kinks found.
type Counts struct {
	Queries, Head, Unit int
	Units, Kinks        int
	Probes, Solves      int // local solves tried, and those that gave a piece
}

// CountSteps adds up what the steps made.
func CountSteps(steps []transformer.Step) Counts {
	var c Counts
	for _, s := range steps {
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

// PhaseA is phase A of a run at the current step: recovery's run on the
// odd part (Result), with Made of its queries made by the current step.
type PhaseA struct {
	Result recovery.Result
	Made   int
	// Odd is the odd part's canonical layer, what Result should find;
	// Error is the largest relative error of Result's layer against it
	// (+Inf when the run failed or found another number of heads).
	Odd   attention.Layer
	Error float64
}

// PhaseA returns phase A at the current step, and false when the run has
// no phase A trace.
func (t *Transformer) PhaseA() (PhaseA, bool) {
	if t.Run == nil || len(t.Run.Result.Heads.Trace.Queries) == 0 {
		return PhaseA{}, false
	}
	made := 0
	for _, s := range t.Done() {
		if s.Kind == transformer.HeadValue {
			made = max(made, s.Index+1)
		}
	}
	p := PhaseA{Result: t.Run.Result.Heads, Made: made, Odd: t.Odd, Error: math.Inf(1)}
	if e, err := attention.RelativeError(p.Result.Layer, t.Odd); err == nil && t.Run.Err == nil {
		p.Error = e
	}
	return p, true
}

// Step is the step of phase A's trace, 0…its queries.
func (p PhaseA) Step() int { return min(p.Made, len(p.Result.Trace.Queries)) }

// Pairing returns, for each head of the odd part, the recovered head it is
// compared with, and each pair's relative error (Pairing).
func (p PhaseA) Pairing() (pair []int, errs []float64) { return Pairing(p.Result.Layer, p.Odd) }

// Pairing returns, for each head of the odd part, the head phase A
// recovered that it is compared with, and each pair's relative error
// (Pairing); nil until the run is made. The canvas's result view and the
// figure both pair heads here.
func (t *Transformer) Pairing() (pair []int, errs []float64) {
	if t.Run == nil {
		return nil, nil
	}
	return Pairing(t.Run.Result.Heads.Layer, t.Odd)
}

// Pairing returns, for each true canonical head, the recovered head it is
// compared with (the pairing that minimises the largest head error, as
// attention.RelativeError uses), and each pair's relative error; nil when
// there is no recovered layer or it has a different number of heads.
func Pairing(got, want attention.Layer) (pair []int, errs []float64) {
	if len(got) != len(want) {
		return nil, nil
	}
	pair, errs, err := attention.Pairing(got, want)
	if err != nil {
		return nil, nil
	}
	return pair, errs
}

// Failed returns the run's error (a failed condition, or the worker's),
// nil when it succeeded or is not made yet.
func (t *Transformer) Failed() error {
	if t.Run == nil {
		return nil
	}
	return t.Run.Err
}

// Error is the largest relative |ΔF| of the recovered network on the
// held-out sequences (NaN until the run is made, or when it failed).
func (t *Transformer) Error() float64 {
	if t.Run == nil || t.Run.Err != nil {
		return math.NaN()
	}
	return t.Run.Agreement
}
