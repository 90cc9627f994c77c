package transformer

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"

	"headlab/numerics/recovery"
)

// DefaultPrecision is the working precision when Options.Precision is 0:
// 192 bits, about 58 significant digits, comfortably above what the unit
// phase needs (MATH.md §3.7, C4).
const DefaultPrecision = 192

// DefaultStep is the local solves' first step ε when Options.Step is 0
// (MATH.md §3.7).
const DefaultStep = 1e-6

// unitDigits is the number of significant digits the unit phase must keep
// after its local solves lose 2·log10(1/ε) + solveLoss of them (C4): the
// accuracy it promises for η_k is about 10^-unitDigits relative.
// solveLoss is the rest of a solve's growth (its Hd unknowns, the pivots,
// the features' spread), measured: at 112 bits and ε = 1e-6 (21.7 digits
// left without it) 41 of 100 networks came back less accurate than 1e-20;
// at 120 bits with it, all 100 within 3.7e-21.
const (
	unitDigits = 20
	solveLoss  = 4
	headTrust  = 3 // digits by which recovery's error estimate is trusted to overstate
)

// digitsLeft returns the digits a local solve at step eps keeps: the
// working digits less the solve's loss, or the heads' own digits if fewer
// (an error δW in W_h perturbs φ by about ε²δW, which the solve divides
// by ε² again).
func (l *learner) digitsLeft(eps float64) float64 {
	return math.Min(l.digits-2*math.Log10(1/eps)-solveLoss, l.headDigits-solveLoss)
}

// Options configures Learn. Use DefaultOptions and change what differs.
type Options struct {
	// Heads is the number of heads H (recovery's count), 1…MaxHeads.
	Heads int
	// Width is the token width d, 1…MaxWidth.
	Width int
	// Residual says the network adds x_N to its attention output.
	Residual bool
	// Mode is phase A's query schedule: recovery.Paper, Economy or Frugal.
	Mode recovery.Mode
	// Precision is the working precision in bits (MinPrecision…
	// MaxPrecision); 0 means DefaultPrecision.
	Precision uint
	// Seed draws phase A's bases, phase B's line and every local solve's
	// directions.
	Seed uint64
	// Step is the first step ε of the local solves (0: DefaultStep); a
	// solve whose check fails retries at ε/1000 and ε/10⁶ (C3).
	Step float64

	// Pause, when set, is the run's checkpoint: it is called before each
	// oracle query and at phase A's checkpoints (recovery.Pause) with the
	// queries made so far, and returns false to stop the run, which then
	// returns ErrStopped. The run's numbers do not depend on it.
	Pause func(queries int) bool

	// heads, when set (tests only), replaces phase A with these W_h.
	heads [][][]float64
}

// DefaultOptions returns the options for H heads of width d: paper mode,
// seed 1, the default precision and step.
func DefaultOptions(H, d int) Options {
	return Options{Heads: H, Width: d, Mode: recovery.Paper, Seed: 1}
}

func (o Options) precision() uint {
	if o.Precision == 0 {
		return DefaultPrecision
	}
	return o.Precision
}

func (o Options) step() float64 {
	if o.Step == 0 {
		return DefaultStep
	}
	return o.Step
}

func (o Options) validate() error {
	switch {
	case o.Heads < 1 || o.Heads > MaxHeads:
		return fmt.Errorf("transformer: %d heads outside 1…%d", o.Heads, MaxHeads)
	case o.Width < 1 || o.Width > MaxWidth:
		return fmt.Errorf("transformer: width %d outside 1…%d", o.Width, MaxWidth)
	case !o.Mode.Valid():
		return fmt.Errorf("transformer: unknown mode %d", int(o.Mode))
	case o.Precision != 0 && (o.Precision < MinPrecision || o.Precision > MaxPrecision):
		return fmt.Errorf("transformer: precision %d bits outside %d…%d", o.Precision, MinPrecision, MaxPrecision)
	case math.IsNaN(o.Step) || o.Step < 0 || o.Step > 0.01:
		return fmt.Errorf("transformer: step %v outside (0, 0.01]", o.Step)
	}
	return nil
}

// The conditions of MATH.md §3.7, by name.
const (
	C1 = "C1" // every head visible in the odd part (w_h ≠ 0)
	C2 = "C2" // every unit visible on single tokens, with its own single-token hyperplane
	C3 = "C3" // the local-solve step below the distance to other kinks
	C4 = "C4" // enough significant digits for the local solves
)

// conditionText says what each condition asks.
var conditionText = map[string]string{
	C1: "every head visible in the odd part F(X) − F(−X)",
	C2: "every unit visible on single tokens, on a single-token hyperplane of its own",
	C3: "every local solve's step below the distance to other kinks",
	C4: "enough significant digits for local solves that condition like ε⁻²",
}

// ConditionText returns what the condition named name (C1…C4) asks.
func ConditionText(name string) string { return conditionText[name] }

// Condition is one condition's verdict on a run.
type Condition struct {
	Name   string // C1…C4
	Holds  bool
	Detail string // what was checked, with the numbers
}

// ConditionError is Learn's error when a condition of MATH.md §3.7 fails:
// the run returns no network. Learn's only other errors are invalid
// options or a nil oracle.
type ConditionError struct {
	// Condition is C1…C4.
	Condition string
	// Reason says what was observed.
	Reason string
	// Err is the underlying error (recovery's, for phase A), or nil.
	Err error
}

// Error implements the error interface.
func (e *ConditionError) Error() string {
	msg := fmt.Sprintf("transformer: condition %s (%s) fails: %s", e.Condition, conditionText[e.Condition], e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *ConditionError) Unwrap() error { return e.Err }

// FailedCondition returns the name of the condition err reports (C1…C4),
// or "" when err is not a *ConditionError.
func FailedCondition(err error) string {
	var ce *ConditionError
	if errors.As(err, &ce) {
		return ce.Condition
	}
	return ""
}

// StepKind says what one step of a run did.
type StepKind int

const (
	// HeadValue is one value of the odd part G (phase A): two oracle
	// calls, F(X) and F(−X); Index is the query's index in
	// Result.Heads.Trace.Queries.
	HeadValue StepKind = iota
	// ResidualValue is one value of G on copies of the zero token
	// followed by z (phase A, residual networks only), which measures the
	// residual's share of G before recovery runs: two oracle calls.
	ResidualValue
	// Probe is a local solve at T (phase B): Hd + 1 two-token queries per
	// attempt at step Eps; Index is the piece it found (Result.Pieces), −1
	// when it failed.
	Probe
	// Side is one single-token query beside a candidate kink at T,
	// Mismatch its disagreement with the piece it should lie on.
	Side
	// KinkFound is a candidate kink at T confirmed by its side queries (no
	// query; Index −1). A kink whose hyperplane probe then fails is split
	// by a Probe at T, and the kinks between are found again: the final
	// kinks are Result.Kinks.
	KinkFound
	// HyperplaneProbe is one of the three two-token queries near a kink at
	// T that rule out a second unit sharing its hyperplane (C2); Eps is
	// their distance from the kink's token.
	HyperplaneProbe
	// UnitFound is unit Index identified from Result.Kinks[Index] (no
	// query), after every probe passed.
	UnitFound
	// SelfCheck is a final query on a random sequence, compared with the
	// assembled network.
	SelfCheck
)

var stepNames = [...]string{"head value", "residual value", "probe", "side", "kink", "hyperplane probe", "unit", "self-check"}

// String returns the step kind's name.
func (k StepKind) String() string {
	if k >= 0 && int(k) < len(stepNames) {
		return stepNames[k]
	}
	return fmt.Sprintf("step(%d)", int(k))
}

// Step is one step of a run, in order.
type Step struct {
	Kind StepKind
	// T is the position on the line of single tokens (±Inf for its ends);
	// 0 for HeadValue and SelfCheck.
	T float64
	// First and Calls are the oracle calls the step made: calls
	// First…First+Calls−1, counted from 0 over the whole run.
	First, Calls int
	// Index is the step's object (see the StepKind constants).
	Index int
	// Eps is a Probe's final step ε.
	Eps float64
	// Mismatch is the relative disagreement of the step's check with what
	// the learner predicted (Probe: the check query; Side, HyperplaneProbe,
	// SelfCheck: the query).
	Mismatch float64
	// OK says the check passed.
	OK bool
}

// Piece is one linear piece F = Λ·φ found by a local solve.
type Piece struct {
	T      float64   // where it was solved (±Inf: at the line's ends, the tokens ∓q… ±q)
	Lambda []float64 // Λ, one d-block per head (and the residual)
	Eps    float64   // the step that was accepted
}

// Kink is one kink on the line: the unit whose single-token hyperplane
// crosses it.
type Kink struct {
	T           float64
	Left, Right int       // the pieces on either side (Result.Pieces)
	D           []float64 // Λ_right − Λ_left
	Unit        int       // the unit it became (Result.Net.Units)
}

// Result is what Learn found.
type Result struct {
	// Net is the recovered network in canonical form (heads in phase A's
	// order, units in the order of their kinks along the line).
	Net Canonical
	// Heads is phase A's recovery result: its Trace lists the values of G
	// (each two oracle calls) and its Layer the heads in float64.
	Heads recovery.Result
	// HeadQueries and UnitQueries are the oracle calls of phase A and of
	// phase B (including its hyperplane probes and self-checks); Queries
	// is their sum and MaxLength the longest sequence sent.
	HeadQueries, UnitQueries, Queries, MaxLength int
	// P and Q are the line: orthonormal, the single token at t is
	// (P + t·Q)/√(1+t²) (the scale does not matter: F is positively
	// homogeneous on single tokens), and t = ±∞ is ±Q.
	P, Q []float64
	// Pieces, Kinks and Steps are the unit phase's record, for replaying
	// it; Steps also lists phase A's values of G.
	Pieces []Piece
	Kinks  []Kink
	Steps  []Step
	// Conditions are C1…C4 as checked on this run, by name; a failed run
	// lists the ones checked before it stopped, the failing one last
	// checked.
	Conditions []Condition
	// Precision is the working precision in bits, Digits the same in
	// decimal digits.
	Precision uint
	Digits    float64
	// Omega is the residual's share ω of the odd part (ω·x_N), measured
	// before recovery and subtracted from G; nil without the residual.
	Omega []float64
	// Folded says the linear part was folded into the units by the subset
	// sum, so Net.Linear is zero; else Net.Linear holds it (a readout).
	Folded bool
}

// Learn recovers the network behind the oracle o up to the equivalences of
// MATH.md §3.7. On success the Result holds the canonical network with its
// record and every condition holding; when a condition fails it returns a
// *ConditionError naming it, with the Result so far (and no network).
func Learn(o OracleFunc, opt Options) (res Result, err error) {
	if err := opt.validate(); err != nil {
		return Result{}, err
	}
	if o == nil {
		return Result{}, fmt.Errorf("transformer: nil oracle")
	}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stopped); !ok {
				panic(p)
			}
			res, err = Result{}, ErrStopped
		}
	}()
	l := newLearner(o, opt)
	err = l.run()
	sort.SliceStable(l.res.Conditions, func(i, j int) bool { return l.res.Conditions[i].Name < l.res.Conditions[j].Name })
	l.res.Queries = l.calls
	l.res.MaxLength = l.longest
	l.res.UnitQueries = l.calls - l.res.HeadQueries
	if err != nil {
		l.res.Net = Canonical{}
		return l.res, err
	}
	return l.res, nil
}

type learner struct {
	o   OracleFunc
	opt Options
	a   arith
	d   int
	rng *rand.Rand
	res Result

	calls, longest int
	digits         float64
	// headDigits is how many digits phase A's heads are good to (from
	// recovery's estimate; the working digits when it is smaller).
	headDigits float64

	// Phase B.
	w      [][][]*big.Float // the canonical W_h
	nf     int              // number of features (Blocks·d)
	p, q   []*big.Float
	scale  float64 // largest |F| seen in phase B
	pieces [][]*big.Float
	at     []tpos // where each piece was solved
	minEps float64
}

func newLearner(o OracleFunc, opt Options) *learner {
	prec := opt.precision()
	l := &learner{
		o: o, opt: opt, a: arith{prec}, d: opt.Width,
		rng:    rand.New(rand.NewPCG(opt.Seed, 0x756e697473)), // "units"
		digits: float64(prec) * math.Log10(2),
	}
	l.headDigits = l.digits
	l.res.Precision = prec
	l.res.Digits = l.digits
	return l
}

// query asks the oracle and counts the call.
// ErrStopped is the error of a run its Options.Pause stopped.
var ErrStopped = errors.New("transformer: the run was stopped")

// stopped unwinds the learner of a run its pause stopped.
type stopped struct{}

// checkpoint calls the run's pause, if any, and unwinds the run when it
// says stop.
func (l *learner) checkpoint() {
	if l.opt.Pause != nil && !l.opt.Pause(l.calls) {
		panic(stopped{})
	}
}

func (l *learner) query(X [][]*big.Float) *big.Float {
	l.checkpoint()
	l.calls++
	l.longest = max(l.longest, len(X))
	y := l.o(X)
	if y == nil || y.IsInf() {
		return l.a.zero() // caught by the checks that follow
	}
	return l.a.set(y)
}

func (l *learner) condition(name string, holds bool, format string, args ...any) {
	l.res.Conditions = append(l.res.Conditions, Condition{Name: name, Holds: holds, Detail: fmt.Sprintf(format, args...)})
}

func (l *learner) fail(name, format string, args ...any) error {
	reason := fmt.Sprintf(format, args...)
	l.condition(name, false, "%s", reason)
	return &ConditionError{Condition: name, Reason: reason}
}

func (l *learner) run() error {
	// C4 first: the local solves lose 2·log10(1/ε) digits.
	if left := l.digitsLeft(l.opt.step()); left < unitDigits {
		return l.fail(C4, "%d bits are %.1f digits; local solves at ε = %.0e lose %.1f, leaving %.1f < %d",
			l.res.Precision, l.digits, l.opt.step(), l.digits-left, left, unitDigits)
	}
	if err := l.phaseA(); err != nil {
		return err
	}
	if err := l.phaseB(); err != nil {
		return err
	}
	l.condition(C4, true, "%d bits, %.1f digits, heads good to %.1f; the smallest step ε = %.0e leaves %.1f", l.res.Precision, l.digits, l.headDigits, l.minEps, l.digitsLeft(l.minEps))
	return nil
}
