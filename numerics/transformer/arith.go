package transformer

import (
	"math"
	"math/big"
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
	s := a.zero()
	t := a.zero()
	for i := range x {
		t.Mul(x[i], y[i])
		s.Add(s, t)
	}
	return s
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

// solve solves the square system A x = b by Gaussian elimination with
// partial pivoting at prec, and reports false when A is singular at that
// precision. A and b are overwritten.
func (a arith) solve(A [][]*big.Float, b []*big.Float) ([]*big.Float, bool) {
	n := len(b)
	t := a.zero()
	for c := 0; c < n; c++ {
		p, best := -1, a.zero()
		for r := c; r < n; r++ {
			if v := a.zero().Abs(A[r][c]); v.Cmp(best) > 0 {
				p, best = r, v
			}
		}
		if p < 0 {
			return nil, false
		}
		A[c], A[p] = A[p], A[c]
		b[c], b[p] = b[p], b[c]
		for r := c + 1; r < n; r++ {
			if A[r][c].Sign() == 0 {
				continue
			}
			f := a.quo(A[r][c], A[c][c])
			for k := c; k < n; k++ {
				t.Mul(f, A[c][k])
				A[r][k] = a.sub(A[r][k], t)
			}
			t.Mul(f, b[c])
			b[r] = a.sub(b[r], t)
		}
	}
	x := a.vec(n)
	for r := n - 1; r >= 0; r-- {
		s := a.set(b[r])
		for k := r + 1; k < n; k++ {
			t.Mul(A[r][k], x[k])
			s.Sub(s, t)
		}
		x[r] = a.quo(s, A[r][r])
	}
	return x, true
}
