// Package rational fits the rational functions that head recovery meets:
//
//	F(n) = C + Σ_h R_h/(n + ρ_h),   ρ_h > 0,
//
// a constant plus H simple poles at n = −ρ_h on the negative axis, from
// samples at a few points n (in headlab, integer numbers of copies of a
// token). The maths is in numerics/MATH.md §3.1–3.2 and §3.5, the
// numerical method in §4.
//
// Fit works in the barycentric (Loewner) form used by the AAA algorithm:
// support points chosen greedily, weights from the full SVD of the Loewner
// matrix, poles as the eigenvalues of the barycentric arrowhead pencil
// deflated to a standard eigenproblem, then C and R_h by least squares and a
// Gauss–Newton polish of all parameters. With Options.KnownC the constant is
// fixed and 2H samples suffice instead of 2H+1; with Options.UpperBound the
// number of poles is the smallest one, up to the bound, that explains the
// samples to within their accuracy.
//
// Every fit carries its condition number and first-order error estimates.
// A complex pair, as rounding or noise makes of two close real poles, is
// tried as the two nearest real poles and kept only if they explain the
// samples. Complex or non-negative poles, poles the samples do not locate
// (a relative error of a third or more), and samples that no admissible
// function explains are returned as an *Error naming the reason, never as a
// result.
//
// The linear algebra (one-sided Jacobi SVD, Hessenberg QR eigenvalues,
// Gaussian elimination in big.Float) is numerics/internal/linalg's,
// written in plain Go, so that a fit gives bit-identical numbers natively
// and under GOOS=js.
package rational
