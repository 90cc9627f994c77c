package layerfile

import (
	"context"
	"math/big"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/internal/bigmath"
	"headlab/numerics/recovery"
)

// Oracle returns the model as an in-process black box: it answers in
// float64 (Output), or, for requests carrying tokens at a working
// precision, exactly at that precision (BigOutput), the file's float64
// weights being exact numbers there.
func Oracle(m Model) recovery.BlackBox { return oracle{m} }

type oracle struct{ m Model }

func (o oracle) Answer(ctx context.Context, batch []recovery.Request) ([]recovery.Answer, error) {
	out := make([]recovery.Answer, len(batch))
	for i, q := range batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if q.Big != nil {
			y := o.m.BigOutput(q.Big)
			f, _ := y.Float64()
			out[i] = recovery.Answer{Y: f, Big: y}
			continue
		}
		X := mat.NewDense(len(q.Tokens), len(q.Tokens[0]), nil)
		for r, t := range q.Tokens {
			X.SetRow(r, t)
		}
		out[i] = recovery.Answer{Y: o.m.Output(X)}
	}
	return out, nil
}

// BigOutput is Output at the precision of the tokens X (rows, the last
// the query), every score, exponential and sum rounded to it, the softmax
// in its stable form.
func (m Model) BigOutput(X [][]*big.Float) *big.Float {
	prec := X[len(X)-1][0].Prec()
	num := func() *big.Float { return new(big.Float).SetPrec(prec) }
	n, d := len(X), len(X[0])
	y := num().SetFloat64(m.Const)
	t := num()
	for h, hd := range m.Layer {
		q := make([]*big.Float, d)
		for r := 0; r < d; r++ {
			q[r] = num()
			if m.QueryBias != nil {
				q[r].SetFloat64(m.QueryBias[h][r])
			}
			for c := 0; c < d; c++ {
				q[r].Add(q[r], t.Mul(num().SetFloat64(hd.W.At(r, c)), X[n-1][c]))
			}
		}
		s := make([]*big.Float, n)
		var smax *big.Float
		for i := range s {
			s[i] = num()
			for c := 0; c < d; c++ {
				s[i].Add(s[i], t.Mul(X[i][c], q[c]))
			}
			if smax == nil || s[i].Cmp(smax) > 0 {
				smax = s[i]
			}
		}
		sum, den := num(), num()
		for i := range s {
			e := bigmath.Exp(num(), num().Sub(s[i], smax))
			v := num()
			for c := 0; c < d; c++ {
				v.Add(v, t.Mul(num().SetFloat64(hd.V.AtVec(c)), X[i][c]))
			}
			sum.Add(sum, num().Mul(e, v))
			den.Add(den, e)
		}
		y.Add(y, sum.Quo(sum, den))
	}
	return y
}
