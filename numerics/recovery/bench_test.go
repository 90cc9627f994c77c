package recovery

import (
	"fmt"
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

// BenchmarkLearn measures whole paper-mode runs with an exact oracle at
// the sizes the targets name: float64 at (H, d) = (3, 8) and
// (4, 16), and extended precision at (8, 4) with the precision the page
// offers there (NeededPrecision).
func BenchmarkLearn(b *testing.B) {
	for _, c := range []struct {
		H, d int
		big  bool
	}{{3, 8, false}, {4, 16, false}, {8, 4, true}} {
		name := fmt.Sprintf("H=%d,d=%d", c.H, c.d)
		opt := DefaultOptions(c.H, c.d)
		opt.Seed = 3
		if c.big {
			opt.Precision = NeededPrecision(c.H, c.d, Paper)
			name += fmt.Sprintf(",prec=%d", opt.Precision)
		}
		layer := attention.Random(c.H, c.d, 42)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if c.big {
					_, err = LearnBig(BigLayerOracle(layer, opt.Precision), opt)
				} else {
					_, err = Learn(LayerOracle(layer, 0, 1), opt)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkModes measures whole runs of economy and frugal mode at the
// same (H, d, precision), so that their times compare as a ratio in one
// run (go test -bench Modes): float64 at (2, 4), (3, 4) and (4, 3);
// extended precision at (4, 3) with 192 bits, and at (5, 2) and (8, 2)
// with 256 bits (past the homotopy, and past the float64 search).
//
// Medians of -benchtime 40x -count 6, 2026-12-07, commit 34c1a0f, the
// 2-core AMD EPYC machine (frugal / economy): (2, 4) float64 1.39 / 1.68
// ms = 0.83, (3, 4) float64 0.82, (4, 3) float64 0.97, (4, 3) 192 bits
// 0.96, (5, 2) 256 bits 0.90, (8, 2) 256 bits 0.91.
func BenchmarkModes(b *testing.B) {
	for _, c := range []struct {
		H, d int
		prec uint
	}{{2, 4, 0}, {3, 4, 0}, {4, 3, 0}, {4, 3, 192}, {5, 2, 256}, {8, 2, 256}} {
		for _, m := range []Mode{Economy, Frugal} {
			name := fmt.Sprintf("H=%d,d=%d,prec=%d/%v", c.H, c.d, c.prec, m)
			opt := DefaultOptions(c.H, c.d)
			opt.Seed, opt.Mode, opt.Precision = 3, m, c.prec
			layer := attention.Random(c.H, c.d, 42)
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					var err error
					if c.prec > 0 {
						_, err = LearnBig(BigLayerOracle(layer, c.prec), opt)
					} else {
						_, err = Learn(LayerOracle(layer, 0, 1), opt)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
