// Package stopping holds the rule by which headlab's least-squares fits
// (the rational fit's polish, recovery's Levenberg–Marquardt fits) decide
// that a step is not worth taking.
//
// A fit minimises χ² = Σ e_i², e_i = (f_i − y_i)/σ_i. In float64 each e_i
// carries a rounding error of about u_i = 2⁻⁵²·|y_i|/σ_i in its own units,
// so χ² itself is known only to about 2·√(Σ (e_i u_i)²) (the errors taken
// as independent). With an exact oracle the noise model puts σ_i near
// 1e-16·|y_i|, u_i is of order one, and the fits reach that floor: from
// there a step the linear model says lowers χ² by less than the floor is
// accepted or rejected by rounding alone. Without this rule the fits spent
// most of their time there, raising the damping step by step to its cap
// or halving a Gauss–Newton step twenty times (numerics/MATH.md, §4,
// "float64 speed").
package stopping

import "math"

// Relative is the reduction of χ², relative to χ², below which a step is
// never worth taking, whatever the rounding.
const Relative = 1e-10

// Rounding returns u = 2⁻⁵²·|y|/σ, the rounding of a residual (f − y)/σ
// in its own units.
func Rounding(y, sigma float64) float64 { return 0x1p-52 * math.Abs(y) / sigma }

// Floor returns 2·√(Σ (e_i u_i)²): how far the rounding of the residuals
// e (each with its rounding u_i) moves their sum of squares.
func Floor(e, u []float64) float64 {
	var s Sum
	for i, v := range e {
		s.Add(v, u[i])
	}
	return s.Floor()
}

// Sum accumulates a sum of squares and its rounding floor, residual by
// residual. The zero value is an empty sum.
type Sum struct{ ss, eu2 float64 }

// Add adds the residual e with rounding u.
func (s *Sum) Add(e, u float64) {
	s.ss += float64(e * e)
	eu := float64(e * u)
	s.eu2 += float64(eu * eu)
}

// Squares returns Σ e_i².
func (s Sum) Squares() float64 { return s.ss }

// Floor returns 2·√(Σ (e_i u_i)²), as the function Floor.
func (s Sum) Floor() float64 { return 2 * math.Sqrt(s.eu2) }

// Negligible reports whether a step predicted to lower the sum of squares
// ss by pred is not worth taking: pred is below Relative of ss or below
// the sum's rounding floor.
func Negligible(pred, ss, floor float64) bool { return pred <= max(Relative*ss, floor) }
