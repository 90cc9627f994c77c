package linalg

import (
	"math/big"
	"math/rand/v2"

	"headlab/numerics/internal/xmath"
)

// OrthonormalBasis returns d random orthonormal vectors of length d (Haar
// distributed: modified Gram–Schmidt, applied twice, to Gaussian vectors
// drawn from rng, d² draws in order).
func OrthonormalBasis(d int, rng *rand.Rand) [][]float64 {
	q := make([][]float64, d)
	for k := range q {
		v := make([]float64, d)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		for pass := 0; pass < 2; pass++ {
			for j := 0; j < k; j++ {
				dot := Dot(q[j], v)
				for i := range v {
					v[i] -= float64(dot * q[j][i])
				}
			}
		}
		var nrm float64
		for _, x := range v {
			nrm = xmath.Hypot(nrm, x)
		}
		for i := range v {
			v[i] /= nrm
		}
		q[k] = v
	}
	return q
}

// OrthonormalBasisBig is OrthonormalBasis at prec bits: the same normal
// draws from rng, orthonormalised by modified Gram–Schmidt twice with
// every operation rounded to prec.
func OrthonormalBasisBig(d int, rng *rand.Rand, prec uint) [][]*big.Float {
	q := make([][]*big.Float, d)
	t := new(big.Float).SetPrec(prec)
	for k := range q {
		v := make([]*big.Float, d)
		for i := range v {
			v[i] = new(big.Float).SetPrec(prec).SetFloat64(rng.NormFloat64())
		}
		for pass := 0; pass < 2; pass++ {
			for j := 0; j < k; j++ {
				dt := DotBig(prec, q[j], v)
				for i := range v {
					v[i].Sub(v[i], t.Mul(dt, q[j][i]))
				}
			}
		}
		nrm := DotBig(prec, v, v)
		nrm.Sqrt(nrm)
		for i := range v {
			v[i].Quo(v[i], nrm)
		}
		q[k] = v
	}
	return q
}
