package layerfile

import (
	"context"
	"math/big"

	"gonum.org/v1/gonum/mat"

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
// the query): recovery.BigBiasedOracle's answer.
func (m Model) BigOutput(X [][]*big.Float) *big.Float {
	return recovery.BigBiasedOracle(m.Full(), X[len(X)-1][0].Prec())(X)
}
