package fusion

import (
	"math/rand/v2"
	"testing"
)

// The separation's cost side: one query of W_d, d = 16, evaluated through
// the explicit fused head (2^16 atoms), through the d split heads (2d
// atoms), and by the O(d) formula.

const benchD = 16

var benchSink float64

func benchQuery(d int) []float64 {
	return randomQuery(d, 2, rand.New(rand.NewPCG(50, 0x1)))
}

func BenchmarkFusedFlat16(b *testing.B) {
	f, err := SigmoidSumFlat(benchD)
	if err != nil {
		b.Fatal(err)
	}
	q := benchQuery(benchD)
	b.ResetTimer()
	for b.Loop() {
		benchSink = f.Output(q)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(f.Len()), "ns/atom")
}

func BenchmarkFusedHead16(b *testing.B) {
	h, err := SigmoidSumFused(benchD)
	if err != nil {
		b.Fatal(err)
	}
	q := benchQuery(benchD)
	b.ResetTimer()
	for b.Loop() {
		benchSink = h.Output(q)
	}
}

func BenchmarkSplit16(b *testing.B) {
	heads, err := SigmoidSum(benchD)
	if err != nil {
		b.Fatal(err)
	}
	q := benchQuery(benchD)
	b.ResetTimer()
	for b.Loop() {
		benchSink = SplitOutput(heads, q)
	}
}

func BenchmarkFormula16(b *testing.B) {
	q := benchQuery(benchD)
	for b.Loop() {
		benchSink = SigmoidSumValue(q)
	}
}

// BenchmarkFusedFlat20 is the interactive case: 2^20 atoms, 168 MB of keys.
func BenchmarkFusedFlat20(b *testing.B) {
	f, err := SigmoidSumFlat(20)
	if err != nil {
		b.Fatal(err)
	}
	q := benchQuery(20)
	b.ResetTimer()
	for b.Loop() {
		benchSink = f.Output(q)
	}
}

func BenchmarkBuildFlat16(b *testing.B) {
	for b.Loop() {
		if _, err := SigmoidSumFlat(benchD); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFuse16(b *testing.B) {
	heads, err := SigmoidSum(benchD)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Fuse(heads...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFuseShared(b *testing.B) {
	heads := sharedKeyHeads(8, 6, rand.New(rand.NewPCG(51, 0x1)))
	for b.Loop() {
		if _, err := Fuse(heads...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFitStep(b *testing.B) {
	f, err := NewFitter(4, 15, DefaultFitOptions())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if f.Step() {
			b.StopTimer()
			f, _ = NewFitter(4, 15, DefaultFitOptions())
			b.StartTimer()
		}
	}
}
