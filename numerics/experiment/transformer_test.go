package experiment

import (
	"errors"
	"math"
	"testing"
	"time"

	"headlab/numerics/transformer"
)

func TestTransformerJobRoundTrip(t *testing.T) {
	set := Transformer{H: 1, D: 2, M: 2, K: 3, Seed: 5}
	res, err := Run(Pacer{}, Job{Kind: KindTransformer, Transformer: &set})
	if err != nil {
		t.Fatal(err)
	}
	run := res.Transformer
	if run == nil {
		t.Fatal("no transformer run in the result")
	}
	if run.Err != nil {
		t.Logf("seed 5: %v", run.Err)
	} else {
		if !(run.Agreement < 1e-15) || run.Equivalent != "" {
			t.Fatalf("agreement %g, equivalence %q", run.Agreement, run.Equivalent)
		}
	}
	b, err := EncodeResult(res)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeResult(b)
	if err != nil {
		t.Fatal(err)
	}
	got := back.Transformer
	if got == nil || got.Result.Queries != run.Result.Queries || len(got.Result.Steps) != len(run.Result.Steps) ||
		math.Float64bits(got.Agreement) != math.Float64bits(run.Agreement) || len(got.Truth.Units) != len(run.Truth.Units) {
		t.Fatalf("the run changed on the wire")
	}
	if (got.Err == nil) != (run.Err == nil) {
		t.Fatalf("error %v became %v", run.Err, got.Err)
	}
}

func TestTransformerConditionErrorOnTheWire(t *testing.T) {
	run := &TransformerRun{Err: &transformer.ConditionError{Condition: transformer.C2, Reason: "two units share a hyperplane"}, Agreement: nan}
	b, err := EncodeResult(Result{Kind: KindTransformer, Transformer: run})
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeResult(b)
	if err != nil {
		t.Fatal(err)
	}
	if transformer.FailedCondition(back.Transformer.Err) != transformer.C2 || back.Transformer.Err.Error() != run.Err.Error() {
		t.Fatalf("got %v", back.Transformer.Err)
	}
}

func TestTransformerCancels(t *testing.T) {
	n := 0
	pace := Pacer{Slice: time.Nanosecond, Pause: func(Progress) bool { n++; return n < 3 }}
	if _, err := LearnTransformer(pace, Transformer{H: 2, D: 3, M: 3, K: 4, Seed: 1}); !errors.Is(err, ErrCancelled) {
		t.Fatalf("got %v, want ErrCancelled", err)
	}
}

// BenchmarkLearnTransformer measures one whole transformer run (Learn,
// then the held-out agreement and the equivalence check) at the README's
// size and at the page's limits.
func BenchmarkLearnTransformer(b *testing.B) {
	for _, set := range []Transformer{
		{H: 2, D: 3, M: 3, K: 5, Seed: 1},
		{H: 2, D: 4, M: 6, K: 8, Seed: 1},
		{H: 3, D: 4, M: 6, K: 8, Seed: 1},
	} {
		b.Run(set.Key(), func(b *testing.B) {
			for b.Loop() {
				if _, err := LearnTransformer(Pacer{}, set); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
