package recovery

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/internal/bigmath"
)

// biasedLayer is a layer with query biases c_h and a constant C.
type biasedLayer struct {
	l attention.Layer
	c [][]float64
	C float64
}

func randomBiased(H, d int, seed uint64) biasedLayer {
	rng := rand.New(rand.NewPCG(seed, 99))
	b := biasedLayer{l: attention.Random(H, d, seed), C: rng.NormFloat64()}
	for h := 0; h < H; h++ {
		c := make([]float64, d)
		for i := range c {
			c[i] = 0.5 * rng.NormFloat64()
		}
		b.c = append(b.c, c)
	}
	return b
}

// output is C + Σ_h Σ_i softmax_i(x_iᵀ(W_h x_N + c_h)) (v_h·x_i).
func (b biasedLayer) output(X *mat.Dense) float64 {
	n, d := X.Dims()
	y := b.C
	for h, hd := range b.l {
		q := make([]float64, d)
		for r := 0; r < d; r++ {
			acc := b.c[h][r]
			for c := 0; c < d; c++ {
				acc += float64(hd.W.At(r, c) * X.At(n-1, c))
			}
			q[r] = acc
		}
		s := make([]float64, n)
		for i := range s {
			for c := 0; c < d; c++ {
				s[i] += float64(X.At(i, c) * q[c])
			}
		}
		w := attention.Softmax(nil, s)
		for i := range s {
			var v float64
			for c := 0; c < d; c++ {
				v += float64(hd.V.AtVec(c) * X.At(i, c))
			}
			y += float64(w[i] * v)
		}
	}
	return y
}

// bigOracle is b's exact oracle at prec bits.
func (b biasedLayer) bigOracle(prec uint) BigOracle {
	num := func() *big.Float { return new(big.Float).SetPrec(prec) }
	return func(X [][]*big.Float) *big.Float {
		n, d := len(X), len(X[0])
		y := num().SetFloat64(b.C)
		t := num()
		for h, hd := range b.l {
			q := make([]*big.Float, d)
			for r := 0; r < d; r++ {
				q[r] = num().SetFloat64(b.c[h][r])
				for c := 0; c < d; c++ {
					q[r].Add(q[r], t.Mul(num().SetFloat64(hd.W.At(r, c)), X[n-1][c]))
				}
			}
			s := make([]*big.Float, n)
			smax := num()
			for i := range s {
				s[i] = num()
				for c := 0; c < d; c++ {
					s[i].Add(s[i], t.Mul(X[i][c], q[c]))
				}
				if i == 0 || s[i].Cmp(smax) > 0 {
					smax.Set(s[i])
				}
			}
			num0, den := num(), num()
			for i := range s {
				e := bigmath.Exp(num(), num().Sub(s[i], smax))
				v := num()
				for c := 0; c < d; c++ {
					v.Add(v, t.Mul(num().SetFloat64(hd.V.AtVec(c)), X[i][c]))
				}
				num0.Add(num0, num().Mul(e, v))
				den.Add(den, e)
			}
			y.Add(y, num0.Quo(num0, den))
		}
		return y
	}
}

// TestBiasesExtended: the same in extended precision, every mode.
func TestBiasesExtended(t *testing.T) {
	for _, mode := range Modes() {
		for seed := uint64(1); seed <= 3; seed++ {
			H, d := 3, 3
			b := randomBiased(H, d, seed)
			if seed == 3 {
				b.C = 0
				for _, c := range b.c {
					clear(c)
				}
			}
			opt := DefaultOptions(H, d)
			opt.Mode, opt.Seed, opt.Biases, opt.Precision = mode, seed, true, 192
			res, err := LearnBig(b.bigOracle(192), opt)
			if err != nil {
				t.Errorf("%v seed %d: %v", mode, seed, err)
				continue
			}
			if math.Abs(res.Const-b.C) > 1e-12*(1+math.Abs(b.C)) {
				t.Errorf("%v seed %d: C = %v, want %v", mode, seed, res.Const, b.C)
			}
			pair, errs, err := attention.Pairing(res.Layer, b.l)
			if err != nil {
				t.Fatal(err)
			}
			for w, g := range pair {
				if errs[w] > 1e-12 {
					t.Errorf("%v seed %d: head %d error %.3g", mode, seed, w, errs[w])
				}
				for i := range b.c[w] {
					if math.Abs(res.QueryBias[g][i]-b.c[w][i]) > 1e-12 {
						t.Errorf("%v seed %d: c[%d] = %v, want %v", mode, seed, g, res.QueryBias[g], b.c[w])
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
				b.C = 0
				for _, c := range b.c {
					clear(c)
				}
			}
			opt := DefaultOptions(H, d)
			opt.Mode, opt.Seed, opt.Biases = mode, seed, true
			res, err := Learn(b.output, opt)
			if err != nil {
				t.Logf("%v seed %d (%d, %d): %v", mode, seed, H, d, err)
				continue
			}
			ok++
			want := mode.Queries(H, d) + BiasQueries(mode, H, d)
			if (mode == Paper && res.Queries != want) || res.Queries < want {
				t.Errorf("%v seed %d: %d queries, want %d", mode, seed, res.Queries, want)
			}
			if math.Abs(res.Const-b.C) > 1e-9*(1+math.Abs(b.C)) {
				t.Errorf("%v seed %d: C = %v, want %v", mode, seed, res.Const, b.C)
			}
			pair, errs, err := attention.Pairing(res.Layer, b.l)
			if err != nil {
				t.Fatalf("%v seed %d: %v", mode, seed, err)
			}
			for w, g := range pair {
				if errs[w] > 1e-7 {
					t.Errorf("%v seed %d: head %d error %.3g", mode, seed, w, errs[w])
				}
				for i := range b.c[w] {
					if math.Abs(res.QueryBias[g][i]-b.c[w][i]) > 1e-7 {
						t.Errorf("%v seed %d: c[%d] = %v, want %v", mode, seed, g, res.QueryBias[g], b.c[w])
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
