package runlog

import (
	"context"
	"fmt"

	"headlab/numerics/recovery"
)

// A Source holds a recorded run's answers: a *Log or a *Compact.
type Source interface {
	// Lookup returns the answer to q, and false when there is none.
	Lookup(q recovery.Request) (recovery.Answer, bool, error)
}

// Box is a recovery.BlackBox that answers from a log: a run with the
// log's options (Config.Options) asks the queries of the recorded run, in
// its order, and reads the recorded answers, so that it ends with the
// recorded run's bits. A query the log does not hold fails the batch: the
// log ends before it, or was recorded with other options.
type Box struct {
	Log Source
	// Served counts the queries answered.
	Served int
}

// Answer implements recovery.BlackBox.
func (b *Box) Answer(ctx context.Context, batch []recovery.Request) ([]recovery.Answer, error) {
	out := make([]recovery.Answer, len(batch))
	for i, q := range batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a, ok, err := b.Log.Lookup(q)
		if err != nil {
			return nil, fmt.Errorf("runlog: query %d: %v", b.Served+1, err)
		}
		if !ok {
			return nil, fmt.Errorf("runlog: query %d (tokens %s) is not in the log: the log ends before it, or was recorded with other options",
				b.Served+1, Clip([]byte(Key(q))))
		}
		out[i] = a
		b.Served++
	}
	return out, nil
}
