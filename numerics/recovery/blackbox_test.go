package recovery

import (
	"context"
	"errors"
	"math"
	"testing"

	"headlab/numerics/attention"
)

// countingBox counts the batches it answers.
type countingBox struct {
	BlackBox
	batches []int
}

func (c *countingBox) Answer(ctx context.Context, batch []Request) ([]Answer, error) {
	c.batches = append(c.batches, len(batch))
	return c.BlackBox.Answer(ctx, batch)
}

// TestRecoverSameBits: a run through the BlackBox gives Learn's and
// LearnBig's numbers bit for bit, and sends the fixed schedule as one batch.
func TestRecoverSameBits(t *testing.T) {
	for _, tc := range []struct {
		h, d int
		mode Mode
		prec uint
	}{{2, 4, Paper, 0}, {2, 4, Economy, 0}, {3, 4, Frugal, 0}, {3, 3, Paper, 160}, {3, 3, Frugal, 160}} {
		l := attention.Random(tc.h, tc.d, 5)
		opt := DefaultOptions(tc.h, tc.d)
		opt.Mode, opt.Seed, opt.Precision = tc.mode, 3, tc.prec
		var want Result
		var werr error
		if tc.prec > 0 {
			want, werr = LearnBig(BigLayerOracle(l, tc.prec), opt)
		} else {
			want, werr = Learn(LayerOracle(l, 0, 0), opt)
		}
		box := &countingBox{BlackBox: Layer(l)}
		got, err := Recover(context.Background(), box, opt)
		if werr != nil || err != nil {
			t.Fatalf("%+v: Recover error %v, Learn error %v", tc, err, werr)
		}
		if got.Queries != want.Queries || len(got.Layer) != len(want.Layer) {
			t.Fatalf("%+v: %d queries, %d heads; Learn %d, %d", tc, got.Queries, len(got.Layer), want.Queries, len(want.Layer))
		}
		for h := range want.Layer {
			for i := 0; i < tc.d; i++ {
				if math.Float64bits(got.Layer[h].V.AtVec(i)) != math.Float64bits(want.Layer[h].V.AtVec(i)) {
					t.Fatalf("%+v: head %d v differs", tc, h)
				}
				for j := 0; j < tc.d; j++ {
					if math.Float64bits(got.Layer[h].W.At(i, j)) != math.Float64bits(want.Layer[h].W.At(i, j)) {
						t.Fatalf("%+v: head %d W differs", tc, h)
					}
				}
			}
		}
		planned, err := PlannedBatch(opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(box.batches) == 0 || box.batches[0] != len(planned) {
			t.Fatalf("%+v: first batch %v, planned %d", tc, box.batches, len(planned))
		}
		if tc.mode == Paper && (len(box.batches) != 1 || box.batches[0] != PaperQueries(tc.h, tc.d)) {
			t.Errorf("%+v: paper's queries went out as batches %v, want one of %d", tc, box.batches, PaperQueries(tc.h, tc.d))
		}
	}
}

// failingBox fails once it would pass ok queries.
type failingBox struct {
	BlackBox
	ok, seen int
}

var errDead = errors.New("the oracle process died")

func (f *failingBox) Answer(ctx context.Context, batch []Request) ([]Answer, error) {
	if f.seen+len(batch) > f.ok {
		return nil, errDead
	}
	f.seen += len(batch)
	return f.BlackBox.Answer(ctx, batch)
}

// TestRecoverErrors: a failing or cancelled black box ends the run with
// an *Error that names the query and wraps the cause.
func TestRecoverErrors(t *testing.T) {
	l := attention.Random(2, 3, 1)
	opt := DefaultOptions(2, 3)
	opt.Mode = Economy
	planned, err := PlannedBatch(opt)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Recover(context.Background(), &failingBox{BlackBox: Layer(l), ok: len(planned)}, opt)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, errDead) || e.First != len(planned) {
		t.Fatalf("dead oracle after the batch: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Recover(ctx, Layer(l), opt)
	if !errors.Is(err, context.Canceled) || !errors.As(err, &e) || e.First != 0 {
		t.Fatalf("cancelled context: %v", err)
	}
}

// TestRecoverPausedSameBits: RecoverPaused, paused at every checkpoint,
// gives Recover's numbers bit for bit (with calibration, in float64 and
// at extended precision), and its pause can stop it.
func TestRecoverPausedSameBits(t *testing.T) {
	for _, tc := range []struct {
		h, d int
		mode Mode
		prec uint
		cal  bool
	}{{2, 4, Paper, 0, true}, {2, 3, Frugal, 0, false}, {2, 3, Economy, 160, false}} {
		l := attention.Random(tc.h, tc.d, 7)
		opt := DefaultOptions(tc.h, tc.d)
		opt.Mode, opt.Seed, opt.Precision, opt.Calibrate = tc.mode, 2, tc.prec, tc.cal
		want, werr := Recover(context.Background(), Layer(l), opt)
		pauses := 0
		got, err := RecoverPaused(context.Background(), Layer(l), opt, func(Progress) bool { pauses++; return true })
		if werr != nil || err != nil {
			t.Fatalf("%+v: RecoverPaused error %v, Recover error %v", tc, err, werr)
		}
		if pauses < got.Queries {
			t.Errorf("%+v: %d pauses for %d queries", tc, pauses, got.Queries)
		}
		if got.Queries != want.Queries || len(got.Layer) != len(want.Layer) || math.Float64bits(got.Residual) != math.Float64bits(want.Residual) {
			t.Fatalf("%+v: %d queries, %d heads; Recover %d, %d", tc, got.Queries, len(got.Layer), want.Queries, len(want.Layer))
		}
		for h := range want.Layer {
			for i := 0; i < tc.d; i++ {
				if math.Float64bits(got.Layer[h].V.AtVec(i)) != math.Float64bits(want.Layer[h].V.AtVec(i)) {
					t.Fatalf("%+v: head %d v differs", tc, h)
				}
				for j := 0; j < tc.d; j++ {
					if math.Float64bits(got.Layer[h].W.At(i, j)) != math.Float64bits(want.Layer[h].W.At(i, j)) {
						t.Fatalf("%+v: head %d W differs", tc, h)
					}
				}
			}
		}
		if (want.Calibration != nil) != tc.cal || (got.Calibration != nil) != tc.cal {
			t.Errorf("%+v: calibration %v, Recover's %v", tc, got.Calibration, want.Calibration)
		}
		n := 0
		if _, err := RecoverPaused(context.Background(), Layer(l), opt, func(Progress) bool { n++; return n < 10 }); !errors.Is(err, ErrStopped) {
			t.Errorf("%+v: stopped at the 10th pause: %v", tc, err)
		}
	}
}
