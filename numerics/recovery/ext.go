package recovery

import (
	"math/big"
	"math/rand/v2"

	"headlab/numerics/internal/linalg"
)

// source is a run's oracle: float64 (f) or extended precision (big).
type source struct {
	f   Oracle
	big BigOracle
	box *boxSource
}

// ext holds the numbers of an extended-precision run at the working
// precision: the bases, every RF's tokens, every answer, and the heads in
// the learner's coordinates (MATH.md §3.3, see theta).
type ext struct {
	prec       uint
	c          *big.Float
	u, z       [][]*big.Float // basis vectors u_a, z_b
	tokA, tokZ [][]*big.Float // per RF: the copied token a and the query z
	uz         [][]*big.Float // per RF: Uᵀz
	ans        []*big.Float   // per query (less C once known)
	C          *big.Float     // the constant, with biases: nil until asked
	ts, cts    *big.Float     // Options.TokenScale (nil: 1), and c times it
	fits       []*bigFit      // per RF: its own fit, nil if none

	// P[h][a][b] and R[h][k]: the heads as the learner knows them.
	P [][][]*big.Float
	R [][]*big.Float
}

// newExt draws the bases from rng as orthonormalBasis does and
// orthonormalises them at the working precision, and sets c = κ√d.
func newExt(opt Options, rng *rand.Rand) *ext {
	x := &ext{prec: opt.Precision}
	x.c = x.num().SetFloat64(float64(opt.Width))
	x.c.Sqrt(x.c)
	x.c.Mul(x.c, x.num().SetFloat64(opt.spread()))
	if opt.TokenScale != 0 && opt.TokenScale != 1 {
		x.c.Mul(x.c, x.num().SetFloat64(opt.TokenScale))
	}
	x.cts = x.num().Set(x.c)
	if opt.TokenScale != 0 && opt.TokenScale != 1 {
		x.ts = x.num().SetFloat64(opt.TokenScale)
		x.cts.Mul(x.cts, x.ts)
	}
	x.u = x.orthonormalBasis(opt.Width, rng)
	x.z = x.orthonormalBasis(opt.Width, rng)
	if opt.Biases {
		neg := make([]*big.Float, opt.Width)
		for i, e := range x.z[0] {
			neg[i] = x.num().Neg(e)
		}
		x.z = append(x.z, neg) // the column of the biases (model.go)
	}
	return x
}

// num returns a new zero at the working precision.
func (x *ext) num() *big.Float { return new(big.Float).SetPrec(x.prec) }

// orthonormalBasis is the package's orthonormalBasis at the working
// precision: the same normal draws, modified Gram–Schmidt twice.
func (x *ext) orthonormalBasis(d int, rng *rand.Rand) [][]*big.Float {
	return linalg.OrthonormalBasisBig(d, rng, x.prec)
}

// addRF records the tokens of an RF on u = Σ_α u_a and z = Σ_β z_b.
func (x *ext) addRF(alpha, beta []int) {
	d := len(x.u)
	z := make([]*big.Float, d)
	a := make([]*big.Float, d)
	t := x.num()
	for i := 0; i < d; i++ {
		z[i] = x.num()
		for _, b := range beta {
			z[i].Add(z[i], x.z[b][i])
		}
		if x.ts != nil {
			z[i].Mul(z[i], x.ts)
		}
		u := x.num()
		for _, al := range alpha {
			u.Add(u, x.u[al][i])
		}
		a[i] = x.num().Sub(z[i], t.Mul(x.c, u))
	}
	uz := make([]*big.Float, d)
	for k := range uz {
		uz[k] = linalg.DotBig(x.prec, x.u[k], z)
	}
	x.tokA, x.tokZ = append(x.tokA, a), append(x.tokZ, z)
	x.uz = append(x.uz, uz)
	x.fits = append(x.fits, nil)
}

// ask queries o with n copies of RF k's token a (one slice, repeated)
// followed by its z, records the answer and returns it rounded to float64
// (±Inf if it is infinite).
func (x *ext) ask(o BigOracle, k, n int) float64 {
	X := make([][]*big.Float, n+1)
	for i := 0; i < n; i++ {
		X[i] = x.tokA[k]
	}
	X[n] = x.tokZ[k]
	return x.record(o(X))
}

// record rounds an answer to the working precision and keeps it (nil and
// ±Inf answers are not kept: ask reports them); it returns its rounding.
func (x *ext) record(y *big.Float) float64 {
	if y == nil {
		y = new(big.Float).SetInf(false)
	}
	y = x.num().Set(y)
	if x.C != nil {
		y.Sub(y, x.C)
	}
	f, _ := y.Float64()
	if !y.IsInf() {
		x.ans = append(x.ans, y)
	}
	return f
}

// roundVec rounds a vector to float64.
func roundVec(v []*big.Float) []float64 {
	out := make([]float64, len(v))
	for i, e := range v {
		out[i], _ = e.Float64()
	}
	return out
}

// roundAll rounds a list of vectors to float64.
func roundAll(vs [][]*big.Float) [][]float64 {
	out := make([][]float64, len(vs))
	for i, v := range vs {
		out[i] = roundVec(v)
	}
	return out
}

// bigFit is an RF's own fit in extended precision: per pole p = log ρ and
// r = R/ρ, with their float64 roundings.
type bigFit struct {
	p, r   []*big.Float
	pf, rf []float64
	err    float64 // estimated error of p and of r relative to max |r| (perturbed)
}
