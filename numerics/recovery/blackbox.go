package recovery

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"

	"headlab/numerics/attention"
)

// A Request is one value query: Tokens[i] is token i of the sequence, the
// last row the query token. In an extended-precision run Big holds the
// same tokens at the working precision (Tokens are their roundings); in
// float64 it is nil. Rows repeated in a query (the copies of a token) are
// the same slice; neither the learner nor an oracle modifies them.
type Request struct {
	Tokens [][]float64
	Big    [][]*big.Float
}

// An Answer is the layer's output on a Request: Y in float64 and, when the
// oracle has more digits, Big (nil: Y is exact). Err, when set, is the
// oracle's own refusal of this one query; the run stops there with an
// *Error naming the query.
type Answer struct {
	Y   float64
	Big *big.Float
	Err error
}

// A BlackBox is the learner's oracle: it answers a batch of value queries
// in the batch's order, or fails as a whole with an error (a dead process,
// a dropped connection, ctx done). Where the schedule knows queries before
// their answers are needed it sends them as one batch (Recover); the
// others go one at a time. A BlackBox is called from one goroutine.
type BlackBox interface {
	Answer(ctx context.Context, batch []Request) ([]Answer, error)
}

// Layer is the in-process BlackBox of a known layer: it answers in
// float64 with l.Output, or, for queries carrying Big tokens, exactly at
// their precision (BigLayerOracle).
func Layer(l attention.Layer) BlackBox { return &layerBox{l: attention.Biased{Layer: l}} }

// BiasedLayer is Layer for a layer with biases (BigBiasedOracle).
func BiasedLayer(b attention.Biased) BlackBox { return &layerBox{l: b} }

type layerBox struct {
	l   attention.Biased
	big BigOracle
	bp  uint
}

func (b *layerBox) Answer(ctx context.Context, batch []Request) ([]Answer, error) {
	out := make([]Answer, len(batch))
	for i, q := range batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if q.Big != nil {
			prec := q.Big[len(q.Big)-1][0].Prec()
			if b.big == nil || b.bp != prec {
				b.big, b.bp = BigBiasedOracle(b.l, prec), prec
			}
			y := b.big(q.Big)
			f, _ := y.Float64()
			out[i] = Answer{Y: f, Big: y}
			continue
		}
		out[i] = Answer{Y: b.l.Output(sequenceOf(q.Tokens))}
	}
	return out, nil
}

// boxSource is a run's BlackBox with the batch it sends first.
type boxSource struct {
	ctx     context.Context
	b       BlackBox
	planned []Request // the first batch
	answers []Answer  // its answers, once asked
	next    int       // queries asked so far
	record  bool      // plannedBatch's dry run: record, answer 0
	asked   []Request
}

// errNoAnswer is an answer the black box did not give.
var errNoAnswer = errors.New("no answer")

// answer returns the black box's answer to q, the run's next query.
func (s *boxSource) answer(q Request) (Answer, error) {
	i := s.next
	s.next++
	if s.record {
		s.asked = append(s.asked, q)
		return Answer{}, nil
	}
	if i < len(s.planned) {
		if !sameQuery(s.planned[i], q) {
			return Answer{}, fmt.Errorf("query %d differs from the planned batch's (a learner bug)", i)
		}
		if s.answers == nil {
			a, err := s.b.Answer(s.ctx, s.planned)
			if err != nil {
				return Answer{}, err
			}
			if len(a) != len(s.planned) {
				return Answer{}, fmt.Errorf("the black box answered %d of a batch of %d queries", len(a), len(s.planned))
			}
			s.answers = a
		}
		return s.answers[i], nil
	}
	if err := s.ctx.Err(); err != nil {
		return Answer{}, err
	}
	a, err := s.b.Answer(s.ctx, []Request{q})
	if err != nil {
		return Answer{}, err
	}
	if len(a) != 1 {
		return Answer{}, errNoAnswer
	}
	return a[0], nil
}

// sameQuery reports whether two queries hold the same tokens, bit for bit.
func sameQuery(a, b Request) bool {
	if len(a.Tokens) != len(b.Tokens) {
		return false
	}
	for i := range a.Tokens {
		if len(a.Tokens[i]) != len(b.Tokens[i]) {
			return false
		}
		for j := range a.Tokens[i] {
			if math.Float64bits(a.Tokens[i][j]) != math.Float64bits(b.Tokens[i][j]) {
				return false
			}
		}
	}
	return true
}
