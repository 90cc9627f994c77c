package transformer

import (
	"math"
	"math/big"

	"headlab/numerics/internal/linalg"
)

// arith makes big.Float values at one precision: every result is rounded
// to prec bits, whatever its operands carry.
type arith struct{ prec uint }

func (a arith) zero() *big.Float               { return new(big.Float).SetPrec(a.prec) }
func (a arith) f(x float64) *big.Float         { return a.zero().SetFloat64(x) }
func (a arith) set(x *big.Float) *big.Float    { return a.zero().Set(x) }
func (a arith) add(x, y *big.Float) *big.Float { return a.zero().Add(x, y) }
func (a arith) sub(x, y *big.Float) *big.Float { return a.zero().Sub(x, y) }
func (a arith) mul(x, y *big.Float) *big.Float { return a.zero().Mul(x, y) }
func (a arith) quo(x, y *big.Float) *big.Float { return a.zero().Quo(x, y) }
func (a arith) neg(x *big.Float) *big.Float    { return a.zero().Neg(x) }

// vec returns n zeros.
func (a arith) vec(n int) []*big.Float {
	v := make([]*big.Float, n)
	for i := range v {
		v[i] = a.zero()
	}
	return v
}

// vecOf converts float64 values.
func (a arith) vecOf(x []float64) []*big.Float {
	v := make([]*big.Float, len(x))
	for i, xi := range x {
		v[i] = a.f(xi)
	}
	return v
}

func (a arith) copyVec(x []*big.Float) []*big.Float {
	v := make([]*big.Float, len(x))
	for i, xi := range x {
		v[i] = a.set(xi)
	}
	return v
}

// dot returns Σ x_i y_i, accumulated at prec.
func (a arith) dot(x, y []*big.Float) *big.Float {
	return linalg.DotBig(a.prec, x, y)
}

// axpy returns x + c·y.
func (a arith) axpy(x []*big.Float, c *big.Float, y []*big.Float) []*big.Float {
	v := make([]*big.Float, len(x))
	for i := range x {
		v[i] = a.add(x[i], a.mul(c, y[i]))
	}
	return v
}

func (a arith) addVec(x, y []*big.Float) []*big.Float {
	v := make([]*big.Float, len(x))
	for i := range x {
		v[i] = a.add(x[i], y[i])
	}
	return v
}

func (a arith) subVec(x, y []*big.Float) []*big.Float {
	v := make([]*big.Float, len(x))
	for i := range x {
		v[i] = a.sub(x[i], y[i])
	}
	return v
}

func (a arith) scaleVec(c *big.Float, x []*big.Float) []*big.Float {
	v := make([]*big.Float, len(x))
	for i := range x {
		v[i] = a.mul(c, x[i])
	}
	return v
}

// norm returns the Euclidean norm of x.
func (a arith) norm(x []*big.Float) *big.Float {
	return a.zero().Sqrt(a.dot(x, x))
}

// maxAbs returns max |x_i| as a float64 (for scales and tolerances).
func maxAbs(x []*big.Float) float64 {
	m := 0.0
	for _, xi := range x {
		f, _ := xi.Float64()
		m = math.Max(m, math.Abs(f))
	}
	return m
}

// floats converts to float64 (for the trace and for display).
func floats(x []*big.Float) []float64 {
	v := make([]float64, len(x))
	for i, xi := range x {
		v[i], _ = xi.Float64()
	}
	return v
}

func float(x *big.Float) float64 {
	f, _ := x.Float64()
	return f
}
