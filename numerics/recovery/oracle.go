package recovery

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
)

// Oracle answers one value query: the rows of X are the tokens of a
// sequence, the last row the query token, and the answer is the layer's
// scalar output F(X) (MATH.md §1).
type Oracle func(X *mat.Dense) float64

// LayerOracle returns an oracle that answers with l.Output, perturbed when
// noise > 0 by noise·|F|·N(0,1), the normal draws taken in query order from
// seed. noise is the relative accuracy ε; 0 gives exact float64 answers.
// The oracle is not safe for concurrent use.
func LayerOracle(l attention.Layer, noise float64, seed uint64) Oracle {
	return BiasedOracle(attention.Biased{Layer: l}, noise, seed)
}

// BiasedOracle is LayerOracle for a layer with query biases and a constant
// (attention.Biased; learnt with Options.Biases). Without biases it
// answers as LayerOracle, bit for bit.
func BiasedOracle(b attention.Biased, noise float64, seed uint64) Oracle {
	rng := rand.New(rand.NewPCG(seed, 0x6f7261636c65)) // "oracle"
	return func(X *mat.Dense) float64 {
		y := b.Output(X)
		if noise > 0 {
			y += float64(noise * math.Abs(y) * rng.NormFloat64())
		}
		return y
	}
}

// sequence returns the sequence of n copies of a followed by z.
func sequence(a, z []float64, n int) *mat.Dense {
	d := len(z)
	x := mat.NewDense(n+1, d, nil)
	for i := 0; i < n; i++ {
		x.SetRow(i, a)
	}
	x.SetRow(n, z)
	return x
}

// sequenceOf returns the tokens as the rows of a matrix.
func sequenceOf(tokens [][]float64) *mat.Dense {
	x := mat.NewDense(len(tokens), len(tokens[0]), nil)
	for i, t := range tokens {
		x.SetRow(i, t)
	}
	return x
}
