package recovery

import (
	"testing"

	"headlab/numerics/attention"
)

func benchmarkLearn(b *testing.B, mode Mode) {
	const H, d = 3, 8
	layer := attention.Random(H, d, 42)
	opt := DefaultOptions(H, d)
	opt.Mode = mode
	opt.Seed = 3
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Learn(LayerOracle(layer, 0, 1), opt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLearnPaper measures a whole paper-mode run at H = 3, d = 8
// (763 queries, exact oracle).
func BenchmarkLearnPaper(b *testing.B) { benchmarkLearn(b, Paper) }

// BenchmarkLearnEconomy measures a whole economy-mode run at H = 3, d = 8
// (427 queries).
func BenchmarkLearnEconomy(b *testing.B) { benchmarkLearn(b, Economy) }
