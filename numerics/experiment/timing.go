package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"headlab/numerics/fusion"
)

// The measured cost per query of W_d: its d split heads against its fused
// head of 2^d atoms, timed where the experiment runs (the compute worker in
// the page). A measurement, not a pure function of its set-up.

// Timing is the set-up of a cost measurement: the width and the query.
type Timing struct {
	D int
	Q []float64
}

// Costs is a finished measurement: nanoseconds per query of the split
// heads and of the explicit fused head (NaN when d is over
// MaxTimingWidth, where the fused head is not built).
type Costs struct {
	D            int
	Split, Fused float64
}

// MaxTimingWidth is the largest d whose fused head is built and timed
// (2^20 atoms, 168 MB of keys).
const MaxTimingWidth = 20

// Targets of the measurement. Browsers round performance.now() to 0.1 ms
// (without cross-origin isolation), so every timed unit of work is grown
// until it lasts at least unitFloor: the rounding then costs under 5%.
const (
	timingTarget = 40 * time.Millisecond // total time spent on each side
	unitFloor    = 2 * time.Millisecond
)

// timing measures the cost per query a unit at a time. The fused head is
// timed in pieces of consecutive atoms (sub-heads), so that even 2^20
// atoms never hold the caller for a whole query; the pieces' times add up
// to the cost of whole queries. Pieces, and repetitions of a whole small
// head, grow until a timed unit lasts unitFloor.
type timing struct {
	d     int
	heads []fusion.Head
	flat  fusion.Flat
	q     []float64

	splitRep, fusedRep   int
	splitN, fusedN       float64
	splitT, fusedT       time.Duration
	chunk, piece         int
	splitDone, fusedDone bool
	sink                 float64
}

func (t *timing) done() bool { return t.splitDone && t.fusedDone }

func (t *timing) progress() float64 {
	p := math.Min(1, float64(t.splitT)/float64(timingTarget))
	f := 1.0
	if !t.fusedDone {
		f = math.Min(1, float64(t.fusedT)/float64(timingTarget))
	}
	return 0.5*p + 0.5*f
}

// unit times one unit of work.
func (t *timing) unit() {
	if !t.splitDone {
		t0 := time.Now()
		for r := 0; r < t.splitRep; r++ {
			t.sink += fusion.SplitOutput(t.heads, t.q)
		}
		dt := time.Since(t0)
		if dt < unitFloor && t.splitRep < 1<<24 {
			t.splitRep *= 2 // too short to time: discard, grow
			return
		}
		t.splitT += dt
		t.splitN += float64(t.splitRep)
		t.splitDone = t.splitT >= timingTarget
		return
	}
	n := t.flat.Len()
	if n == 0 {
		t.fusedDone = true
		return
	}
	lo, hi := t.chunk, min(n, t.chunk+t.piece)
	d := t.d
	sub := fusion.Flat{Dim: d, Keys: t.flat.Keys[lo*d : hi*d], Bias: t.flat.Bias[lo:hi], Value: t.flat.Value[lo:hi]}
	t0 := time.Now()
	for r := 0; r < t.fusedRep; r++ {
		t.sink += sub.Output(t.q)
	}
	dt := time.Since(t0)
	if dt < unitFloor {
		if t.piece < n {
			t.piece = min(n, 2*t.piece)
			t.chunk = 0
		} else if t.fusedRep < 1<<24 {
			t.fusedRep *= 2
		}
		return
	}
	t.fusedT += dt
	t.fusedN += float64(t.fusedRep) * float64(hi-lo) / float64(n)
	t.chunk = hi % n
	t.fusedDone = t.fusedT >= timingTarget && t.chunk == 0
}

// MeasureCost measures the cost per query of W_d at the set-up's query,
// pausing between slices of pace.Slice.
func MeasureCost(pace Pacer, tm Timing) (Costs, error) {
	if tm.D < 1 || len(tm.Q) != tm.D {
		return Costs{}, fmt.Errorf("experiment: cost per query for d = %d with %d query numbers", tm.D, len(tm.Q))
	}
	heads, err := fusion.SigmoidSum(tm.D)
	if err != nil {
		return Costs{}, err
	}
	t := &timing{d: tm.D, heads: heads, q: append([]float64(nil), tm.Q...), splitRep: 1, fusedRep: 1}
	if tm.D <= MaxTimingWidth {
		if t.flat, err = fusion.SigmoidSumFlat(tm.D); err != nil {
			return Costs{}, err
		}
		t.piece = min(t.flat.Len(), 1024)
	}
	for !t.done() {
		for s := pace.timer(); !t.done() && !s.over(); {
			t.unit()
		}
		if !t.done() && !pace.pause(Progress{Fraction: t.progress()}) {
			return Costs{}, ErrCancelled
		}
	}
	c := Costs{D: tm.D, Split: float64(t.splitT.Nanoseconds()) / t.splitN, Fused: nan}
	if t.flat.Len() > 0 {
		c.Fused = float64(t.fusedT.Nanoseconds()) / t.fusedN
	}
	if math.IsNaN(t.sink) {
		return Costs{}, fmt.Errorf("experiment: W_%d gave NaN while timing", tm.D)
	}
	return c, nil
}

// CostCurve is the cost of one query of W_d, in nanoseconds, for each width in
// D: the d split heads (2d head-atom terms), the explicit fused head (2^d
// atoms) and the O(d) closed form Σ σ(q_j). The standard figure of the
// cost draws it (plots.Cost).
type CostCurve struct {
	D                     []int
	Split, Fused, Formula []float64
}

// MeasureCostCurve times, where it runs (natively, for the standard
// figure), one query of W_d split, fused and by its closed form for
// d = from…to: each method is run until at least budget has passed, three
// times, and the fastest mean is kept. Queries are drawn from seed.
func MeasureCostCurve(from, to int, budget time.Duration, seed uint64) (CostCurve, error) {
	if from < 1 || to > MaxTimingWidth || from > to {
		return CostCurve{}, fmt.Errorf("experiment: cost per query for d = %d…%d; want 1 ≤ d ≤ %d", from, to, MaxTimingWidth)
	}
	rng := rand.New(rand.NewPCG(seed, 0x636f7374)) // "cost"
	var c CostCurve
	var sink float64
	for d := from; d <= to; d++ {
		split, err := fusion.SigmoidSum(d)
		if err != nil {
			return CostCurve{}, err
		}
		fused, err := fusion.SigmoidSumFlat(d)
		if err != nil {
			return CostCurve{}, err
		}
		q := make([]float64, d)
		for j := range q {
			q[j] = rng.NormFloat64()
		}
		c.D = append(c.D, d)
		c.Split = append(c.Split, timeMean(budget, func() { sink += fusion.SplitOutput(split, q) }))
		c.Fused = append(c.Fused, timeMean(budget, func() { sink += fused.Output(q) }))
		c.Formula = append(c.Formula, timeMean(budget, func() { sink += fusion.SigmoidSumValue(q) }))
	}
	if math.IsNaN(sink) {
		return CostCurve{}, fmt.Errorf("experiment: W_d gave NaN while timing")
	}
	return c, nil
}

// timeMean returns the fastest of three mean times of f, in nanoseconds,
// each over as many calls as fit in budget (at least one).
func timeMean(budget time.Duration, f func()) float64 {
	best := math.Inf(1)
	for trial := 0; trial < 3; trial++ {
		n := 0
		start := time.Now()
		for n == 0 || time.Since(start) < budget {
			f()
			n++
		}
		best = math.Min(best, float64(time.Since(start).Nanoseconds())/float64(n))
	}
	return best
}
