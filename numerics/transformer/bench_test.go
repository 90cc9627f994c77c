package transformer

import "testing"

// BenchmarkLearn times one run at (H, d, m, K) = (2, 3, 3, 5), paper mode,
// the default precision (issue 12's measurement; cmd/measure reports the
// median over many networks).
func BenchmarkLearn(b *testing.B) {
	n, err := Random(Shape{Heads: 2, Width: 3, Dim: 3, Units: 5}, 9_500_000)
	if err != nil {
		b.Fatal(err)
	}
	opt := DefaultOptions(2, 3)
	for b.Loop() {
		o, err := NewOracle(n, DefaultPrecision)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Learn(o.Query, opt); err != nil {
			b.Fatal(err)
		}
	}
}
