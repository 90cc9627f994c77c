package fusion

import "headlab/numerics/internal/xmath"

// Every product that feeds a sum is rounded explicitly (float64(a*b)) so
// that no compiler setting (GOAMD64=v3 fuses a*b+c) changes a result, and
// exponentials and logarithms come from xmath, whose bits do not depend on
// the platform.

// Sigmoid returns the logistic function σ(x) = 1/(1+e^{−x}), evaluated
// without overflow for any x (σ(±Inf) = 1, 0; σ(NaN) = NaN), the same on
// every platform.
func Sigmoid(x float64) float64 { return xmath.Sigmoid(x) }

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float64) bool { return x-x == 0 }
