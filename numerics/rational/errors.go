package rational

import "fmt"

// Reason says why a fit is unresolvable.
type Reason int

const (
	// BadInput: the samples are malformed (lengths differ, a value is NaN or
	// infinite, two sample points coincide, a negative pole count).
	BadInput Reason = iota + 1
	// TooFewSamples: fewer samples than the 2H+1 (2H with a known C) that
	// determine H poles.
	TooFewSamples
	// ComplexPoles: the interpolant's poles include a complex pair, which no
	// function of the form C + Σ R_h/(n+ρ_h) with real ρ_h has.
	ComplexPoles
	// NonNegativePole: a pole lies at n ≥ 0 (ρ_h ≤ 0), outside the family.
	NonNegativePole
	// Degenerate: the samples show fewer poles than asked for (a pole with
	// negligible residue, two coincident poles, a pole at infinity).
	Degenerate
	// NotExplained: no admissible function with at most the allowed number
	// of poles fits the samples to within their accuracy.
	NotExplained
)

// String returns a short name of the reason.
func (r Reason) String() string {
	switch r {
	case BadInput:
		return "bad input"
	case TooFewSamples:
		return "too few samples"
	case ComplexPoles:
		return "complex poles"
	case NonNegativePole:
		return "non-negative pole"
	case Degenerate:
		return "degenerate"
	case NotExplained:
		return "samples not explained"
	}
	return fmt.Sprintf("reason(%d)", int(r))
}

// Error is the error Fit returns when the samples determine no admissible
// rational function. Poles holds the poles (as complex numbers, in the
// variable n) of the rejected fit with the most poles, when there was one:
// a hint of where the poles are, not a result.
type Error struct {
	Reason Reason
	Poles  []complex128
	Detail string
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Detail == "" {
		return "rational: " + e.Reason.String()
	}
	return "rational: " + e.Reason.String() + ": " + e.Detail
}

func errorf(r Reason, format string, args ...any) *Error {
	return &Error{Reason: r, Detail: fmt.Sprintf(format, args...)}
}
