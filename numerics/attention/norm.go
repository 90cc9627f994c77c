package attention

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// The infinity norms below are mat.Norm(x, math.Inf(1)) written out, with
// gonum's arithmetic in gonum's order (a matrix's as LAPACK's Dlange with
// MaxRowSum, a vector's as BLAS's Idamax), so that they give the same bits.
// mat.Norm dispatches over every matrix kind gonum has and so links LAPACK
// into every program that calls it; the canvas's wasm is one of them, and
// it only ever needs these two (web/e2e/PERFORMANCE.md, the first visit's
// bytes).

// normInf returns the largest sum of the absolute values of a row of a.
func normInf(a *mat.Dense) float64 {
	r, c := a.Dims()
	return maxRowSum(r, c, func(i, j int) float64 { return math.Abs(a.At(i, j)) })
}

// normInfDiff is normInf(a - b), without making a - b.
func normInfDiff(a, b *mat.Dense) float64 {
	r, c := a.Dims()
	if br, bc := b.Dims(); br != r || bc != c {
		panic(mat.ErrShape)
	}
	return maxRowSum(r, c, func(i, j int) float64 { return math.Abs(a.At(i, j) - b.At(i, j)) })
}

// maxRowSum returns the largest of the r row sums of abs(i, j), j < c,
// each summed in order as Dlange does.
func maxRowSum(r, c int, abs func(i, j int) float64) float64 {
	var value float64
	for i := range r {
		var sum float64
		for j := range c {
			sum += abs(i, j)
		}
		value = math.Max(value, sum)
	}
	return value
}

// vecNormInf returns the largest absolute value of an entry of v (the
// first one's if it is NaN, as Idamax reads it).
func vecNormInf(v *mat.VecDense) float64 {
	if v.Len() == 0 {
		panic(mat.ErrZeroLength)
	}
	m := math.Abs(v.AtVec(0))
	for i := 1; i < v.Len(); i++ {
		if x := math.Abs(v.AtVec(i)); x > m {
			m = x
		}
	}
	return m
}

// vecNormInfDiff is the infinity norm of a - b as mat.Norm reads the
// column that (*mat.Dense).Sub makes of two vectors: a matrix of one
// column, whose norm is the largest absolute entry, NaN if any is NaN.
func vecNormInfDiff(a, b *mat.VecDense) float64 {
	if a.Len() != b.Len() {
		panic(mat.ErrShape)
	}
	var value float64
	for i := range a.Len() {
		value = math.Max(value, math.Abs(a.AtVec(i)-b.AtVec(i)))
	}
	return value
}
