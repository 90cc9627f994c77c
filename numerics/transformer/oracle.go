package transformer

import (
	"fmt"
	"math/big"
)

// OracleFunc answers one value query: X[i] is token i (width d), the last
// token the query, and the answer is F(X) at the run's precision.
type OracleFunc func(X [][]*big.Float) *big.Float

// Oracle evaluates a Network exactly at a fixed precision and counts the
// queries it answers. It is not safe for concurrent use.
type Oracle struct {
	a        arith
	w        [][][]*big.Float // W_h
	v        [][][]*big.Float // V_h, d×m
	units    [][]*big.Float   // b_k
	coef     []*big.Float     // a_k
	readout  []*big.Float
	residual bool
	d        int

	calls, longest int
}

// NewOracle returns the oracle of n at prec bits (MinPrecision…MaxPrecision).
func NewOracle(n Network, prec uint) (*Oracle, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	if prec < MinPrecision || prec > MaxPrecision {
		return nil, fmt.Errorf("transformer: precision %d bits outside %d…%d", prec, MinPrecision, MaxPrecision)
	}
	a := arith{prec}
	o := &Oracle{a: a, residual: n.Residual, d: n.Width()}
	for _, h := range n.Heads {
		o.w = append(o.w, a.matOf(h.W))
		o.v = append(o.v, a.matOf(h.V))
	}
	for _, u := range n.Units {
		o.coef = append(o.coef, a.f(u.A))
		o.units = append(o.units, a.vecOf(u.B))
	}
	if n.Readout != nil {
		o.readout = a.vecOf(n.Readout)
	}
	return o, nil
}

func (a arith) matOf(x [][]float64) [][]*big.Float {
	m := make([][]*big.Float, len(x))
	for i, r := range x {
		m[i] = a.vecOf(r)
	}
	return m
}

// Query answers F(X) and counts the call; it is the OracleFunc Learn
// takes. A sequence Eval rejects (empty, tokens of the wrong width) is
// answered with zero: an OracleFunc has no error, Learn never sends one,
// and Eval reports it.
func (o *Oracle) Query(X [][]*big.Float) *big.Float {
	o.calls++
	o.longest = max(o.longest, len(X))
	y, err := o.Eval(X)
	if err != nil {
		return o.a.zero()
	}
	return y
}

// Eval returns F(X) without counting it.
func (o *Oracle) Eval(X [][]*big.Float) (*big.Float, error) {
	if err := checkSequence(X, o.d); err != nil {
		return nil, err
	}
	a := o.a
	m := len(o.v[0][0])
	y := a.vec(m)
	t := a.zero()
	for h, w := range o.w {
		phi := a.attend(w, X)
		for i, p := range phi {
			for j := 0; j < m; j++ {
				t.Mul(o.v[h][i][j], p)
				y[j].Add(y[j], t)
			}
		}
	}
	if o.residual {
		for j, x := range X[len(X)-1] {
			y[j].Add(y[j], x)
		}
	}
	f := a.zero()
	for k, b := range o.units {
		if z := a.dot(b, y); z.Sign() > 0 {
			t.Mul(o.coef[k], z)
			f.Add(f, t)
		}
	}
	if o.readout != nil {
		f.Add(f, a.dot(o.readout, y))
	}
	return f, nil
}

// Calls returns the number of queries answered.
func (o *Oracle) Calls() int { return o.calls }

// Longest returns the length of the longest sequence queried.
func (o *Oracle) Longest() int { return o.longest }

// Precision returns the oracle's precision in bits.
func (o *Oracle) Precision() uint { return o.a.prec }
