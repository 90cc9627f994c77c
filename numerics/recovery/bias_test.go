package recovery

import (
	"math"
	"math/rand/v2"
	"testing"

	"headlab/numerics/attention"
)

// randomBiased is a random layer with query biases c_h and a constant C.
func randomBiased(H, d int, seed uint64) attention.Biased {
	rng := rand.New(rand.NewPCG(seed, 99))
	b := attention.Biased{Layer: attention.Random(H, d, seed), Const: rng.NormFloat64()}
	for h := 0; h < H; h++ {
		c := make([]float64, d)
		for i := range c {
			c[i] = 0.5 * rng.NormFloat64()
		}
		b.QueryBias = append(b.QueryBias, c)
	}
	return b
}

// TestBiasesExtended: the same in extended precision, every mode.
func TestBiasesExtended(t *testing.T) {
	for _, mode := range Modes() {
		for seed := uint64(1); seed <= 3; seed++ {
			H, d := 3, 3
			b := randomBiased(H, d, seed)
			if seed == 3 {
				b.Const = 0
				for _, c := range b.QueryBias {
					clear(c)
				}
			}
			opt := DefaultOptions(H, d)
			opt.Mode, opt.Seed, opt.Biases, opt.Precision = mode, seed, true, 192
			res, err := LearnBig(BigBiasedOracle(b, 192), opt)
			if err != nil {
				t.Errorf("%v seed %d: %v", mode, seed, err)
				continue
			}
			if math.Abs(res.Const-b.Const) > 1e-12*(1+math.Abs(b.Const)) {
				t.Errorf("%v seed %d: C = %v, want %v", mode, seed, res.Const, b.Const)
			}
			pair, errs, err := attention.Pairing(res.Layer, b.Layer)
			if err != nil {
				t.Fatal(err)
			}
			for w, g := range pair {
				if errs[w] > 1e-12 {
					t.Errorf("%v seed %d: head %d error %.3g", mode, seed, w, errs[w])
				}
				for i := range b.QueryBias[w] {
					if math.Abs(res.QueryBias[g][i]-b.QueryBias[w][i]) > 1e-12 {
						t.Errorf("%v seed %d: c[%d] = %v, want %v", mode, seed, g, res.QueryBias[g], b.QueryBias[w])
						break
					}
				}
			}
		}
	}
}

// TestBiases: with Options.Biases every mode recovers W_h, v_h, c_h and
// C of a biased layer with BiasQueries more queries than its count, and
// a layer without biases the same way, its biases 0.
func TestBiases(t *testing.T) {
	for _, mode := range Modes() {
		ok := 0
		for seed := uint64(1); seed <= 6; seed++ {
			H, d := 2, 3
			if seed > 3 {
				H, d = 3, 4
			}
			b := randomBiased(H, d, seed)
			if seed == 6 {
				b.Const = 0
				for _, c := range b.QueryBias {
					clear(c)
				}
			}
			opt := DefaultOptions(H, d)
			opt.Mode, opt.Seed, opt.Biases = mode, seed, true
			res, err := Learn(BiasedOracle(b, 0, 0), opt)
			if err != nil {
				t.Logf("%v seed %d (%d, %d): %v", mode, seed, H, d, err)
				continue
			}
			ok++
			want := mode.Queries(H, d) + BiasQueries(mode, H, d)
			if (mode == Paper && res.Queries != want) || res.Queries < want {
				t.Errorf("%v seed %d: %d queries, want %d", mode, seed, res.Queries, want)
			}
			if math.Abs(res.Const-b.Const) > 1e-9*(1+math.Abs(b.Const)) {
				t.Errorf("%v seed %d: C = %v, want %v", mode, seed, res.Const, b.Const)
			}
			pair, errs, err := attention.Pairing(res.Layer, b.Layer)
			if err != nil {
				t.Fatalf("%v seed %d: %v", mode, seed, err)
			}
			for w, g := range pair {
				if errs[w] > 1e-7 {
					t.Errorf("%v seed %d: head %d error %.3g", mode, seed, w, errs[w])
				}
				for i := range b.QueryBias[w] {
					if math.Abs(res.QueryBias[g][i]-b.QueryBias[w][i]) > 1e-7 {
						t.Errorf("%v seed %d: c[%d] = %v, want %v", mode, seed, g, res.QueryBias[g], b.QueryBias[w])
						break
					}
				}
			}
		}
		if ok < 5 {
			t.Errorf("%v: %d of 6 biased layers resolved", mode, ok)
		}
	}
}
