package recovery

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/rational"
)

// Kind says what a rational function of the schedule is for.
type Kind int

const (
	// Measurement is M_ij = RF(z_j, u_i): it measures p_h = c·u_iᵀW_h z_j
	// and r_h = c·v_h·u_i for every head.
	Measurement Kind = iota
	// Link is an RF on a sum of basis vectors whose poles tie the head
	// labels of two measurements together (MATH.md §3.3, §3.4).
	Link
	// Constant is the one query of the zero token alone, whose answer is
	// the constant C of a layer with biases (Options.Biases); it is no
	// rational function and is never fitted.
	Constant
)

// String returns "measurement" or "link".
func (k Kind) String() string {
	switch k {
	case Measurement:
		return "measurement"
	case Link:
		return "link"
	case Constant:
		return "constant"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// RF is one rational function of the schedule, F(n) on n copies of A
// followed by Z, with everything the learner did with it.
type RF struct {
	// Kind is Measurement or Link.
	Kind Kind
	// I and J are 0-based basis indices. A measurement is M_{I+1,J+1} =
	// RF(z_J, u_I). A link labels the measurement M_{I+1,J+1}:
	// RF(z_1+z_J, u_1) has I = 0, RF(z_J, u_1+u_I) and economy's fallback
	// RF(z_J, u_I+u_K) have that I.
	I, J int
	// UIndex and ZIndex list the basis vectors summed into u and z
	// (0-based), so that Z = Σ z_k and A = Z − c·Σ u_k.
	UIndex, ZIndex []int
	// A is the copied token a = z − c·u, Z the query token.
	A, Z []float64

	// N and F are the samples: F[s] is the oracle's answer on N[s] copies
	// of A followed by Z. Query[s] is the index (in Result.Trace.Queries)
	// of the query that produced it; a sample shared with an earlier RF
	// (n = 0 is the query of Z alone) points to that earlier query.
	N, F  []float64
	Query []int

	// KnownC reports whether the constant C = V·a was known (from the
	// RFs on z_1) when this RF was fitted, and C its value then; the value
	// F(0) = V·z was then known too and entered the fit as a sample at
	// n = 0 that N does not list.
	KnownC bool
	C      float64

	// Fit is the RF's own rational fit (MATH.md §3.1–3.2): poles −ρ,
	// residues, C and condition number. It is the zero Result when the RF
	// could not be fitted on its own (its samples still count in the
	// joint fits), and may show fewer poles than the layer has heads when
	// some head is invisible in it. P and R hold p = log ρ and r = R/ρ of
	// each fitted pole, and Heads the head (index into Result.Layer) each
	// pole was matched to, −1 if none.
	Fit   rational.Result
	P, R  []float64
	Heads []int

	// HeadP and HeadR are p_h and r_h of every head of Result.Layer in
	// this RF according to the final global fit, so that F(n) =
	// Σ_h (v_h·Z − HeadR[h]·n/(n + exp HeadP[h])).
	HeadP, HeadR []float64
}

// Query is one oracle call: the sample Sample of the rational function RF,
// a sequence of Length tokens, and the oracle's Answer.
type Query struct {
	RF, Sample, Length int
	Answer             float64
}

// Trace records a run in query order, for replaying it step by step.
type Trace struct {
	// RFs are the rational functions in the order their queries were made.
	RFs []RF
	// Queries has one entry per oracle call, in order.
	Queries []Query
}

// Result is what Learn found.
type Result struct {
	// Layer is the recovered canonical layer, heads sorted as
	// attention.Canonical sorts them.
	Layer attention.Layer
	// Queries is the number of oracle calls made, MaxLength the longest
	// sequence sent.
	Queries, MaxLength int
	// Fallbacks counts, in frugal mode, the measurements that needed more
	// than their H + 1 samples (one more, economy's 2H, or a link): the
	// queries above FrugalQueries.
	Fallbacks int
	// Trace records every rational function and query.
	Trace Trace

	// Scale is c, U and Z hold the random orthonormal bases u_i and z_j as
	// columns.
	Scale float64
	U, Z  *mat.Dense

	// Residual is the self-check: the RMS of the residuals of every answer
	// under the recovered layer in units of the noise model (about 1 for a
	// consistent run, far more when the layer does not explain the
	// answers). In extended precision the noise model is relative
	// max(Tolerance, 2^(−Precision/2)).
	Residual float64
	// Estimate is the estimated largest relative error of a head's W or v:
	// in float64 first order, from the global fit's covariance; in extended
	// precision the largest disagreement between an RF's own fit and what
	// the recovered heads predict for it.
	Estimate float64
	// Cond is the largest condition number among the RF fits (each RF's
	// own is in its Fit); 0 in extended precision, whose linear fits do
	// not estimate it (Estimate measures the run's error there).
	Cond float64
	// Heads is the number of canonical heads found (len(Layer) on success).
	Heads int

	// QueryBias holds c_h per head of Layer and Const is C, with
	// Options.Biases (nil and 0 otherwise).
	QueryBias [][]float64
	Const     float64

	// Calibration is what Calibrate measured when the run was calibrated
	// (Options.Calibrate), else nil.
	Calibration *Calibration

	// BigLayer holds, in extended precision (Options.Precision > 0) only,
	// the canonical heads at the working precision in the order of Layer
	// (which is its rounding).
	BigLayer []BigHead
}

// Step returns the RF and sample index of query k (0-based).
func (t Trace) Step(k int) (rf, sample int, ok bool) {
	if k < 0 || k >= len(t.Queries) {
		return 0, 0, false
	}
	q := t.Queries[k]
	return q.RF, q.Sample, true
}

// Error is the error Learn returns for a run it cannot resolve: which RF
// (index into the trace, −1 for the global fit), which queries, and why.
type Error struct {
	// RF is the index of the rational function at fault in Result.Trace.RFs,
	// or −1 when the failure is not tied to one RF.
	RF int
	// Name is the RF's name (RF.Name), empty when RF is −1.
	Name string
	// First and Last are the range of query indices involved (0-based).
	First, Last int
	// Reason says what went wrong.
	Reason string
	// Err is the underlying error, such as a *rational.Error.
	Err error
}

// Error implements the error interface.
func (e *Error) Error() string {
	msg := "recovery: " + e.Reason
	if e.RF >= 0 {
		msg = fmt.Sprintf("recovery: %s (RF %d, queries %d–%d): %s", e.Name, e.RF, e.First, e.Last, e.Reason)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// A Calibration is what Calibrate measured of a layer's scale.
type Calibration struct {
	// TokenScale is the Options.TokenScale to run with (1 for a layer at
	// the reference scale).
	TokenScale float64
	// RMS is the RMS of the probed log-poles at the token scale Probed,
	// Target the RMS at which a run resolves most often (the spread κ).
	RMS, Target float64
	// Probed is the token scale of the probes that measured RMS.
	Probed float64
	// Queries counts the black-box queries made. Those at token scale 1
	// are the first queries of the run's own schedule in float64 (the
	// same tokens bit for bit): a caching oracle answers them again for
	// free.
	Queries int
}
