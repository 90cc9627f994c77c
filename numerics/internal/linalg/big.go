package linalg

import (
	"math"
	"math/big"
)

// DotBig returns Σ a_i b_i, every product and every partial sum rounded
// to prec bits, summed in order.
func DotBig(prec uint, a, b []*big.Float) *big.Float {
	acc := new(big.Float).SetPrec(prec)
	t := new(big.Float).SetPrec(prec)
	for i := range a {
		acc.Add(acc, t.Mul(a[i], b[i]))
	}
	return acc
}

// Pivoting is the rule by which SolveBig picks each column's pivot among
// the rows not yet eliminated, and decides that there is none. The zero
// value takes the first entry of largest magnitude, compared exactly, and
// fails only on a column of exact zeros.
type Pivoting struct {
	// Rounded compares the magnitudes as rounded to float64 instead of
	// exactly: the first nonzero entry, replaced by any later one whose
	// rounded magnitude is strictly larger.
	Rounded bool
	// ToleranceBits > 0 counts a pivot as zero when its magnitude, rounded
	// to float64, is at most 2^−ToleranceBits times the largest magnitude
	// in the matrix as given (rounded likewise): prec − 8 leaves a pivot
	// that has lost all but 8 of its bits to cancellation.
	ToleranceBits int
}

// SolveBig solves the square system a·x = b (a by rows, n = len(b)) by
// Gaussian elimination with partial pivoting, every operation rounded to
// prec bits, and reports false where the pivoting finds a column without a
// pivot. The rows of a and the entries of b are reordered and their
// numbers overwritten: in place where a number is at prec (rounding to
// nearest even), else replaced by a new one at prec, which gives the same
// values either way; no two entries may be the same *big.Float. A row
// whose entry in the pivot's column is zero is left as it is.
func SolveBig(a [][]*big.Float, b []*big.Float, prec uint, piv Pivoting) ([]*big.Float, bool) {
	n := len(b)
	num := func() *big.Float { return new(big.Float).SetPrec(prec) }
	var tiny float64
	if piv.ToleranceBits > 0 {
		var amax float64
		for _, row := range a {
			for _, v := range row[:n] {
				amax = math.Max(amax, math.Abs(float64Of(v)))
			}
		}
		tiny = amax * math.Ldexp(1, -piv.ToleranceBits)
	}
	t, f := num(), num()
	for c := 0; c < n; c++ {
		p := piv.row(a, c, n)
		if p < 0 || a[p][c].Sign() == 0 || piv.ToleranceBits > 0 && math.Abs(float64Of(a[p][c])) <= tiny {
			return nil, false
		}
		a[c], a[p] = a[p], a[c]
		b[c], b[p] = b[p], b[c]
		for r := c + 1; r < n; r++ {
			if a[r][c].Sign() == 0 {
				continue
			}
			f.Quo(a[r][c], a[c][c])
			for k := c + 1; k < n; k++ {
				a[r][k] = into(a[r][k], prec).Sub(a[r][k], t.Mul(f, a[c][k]))
			}
			b[r] = into(b[r], prec).Sub(b[r], t.Mul(f, b[c]))
		}
	}
	x := make([]*big.Float, n)
	for r := n - 1; r >= 0; r-- {
		s := num().Set(b[r])
		for k := r + 1; k < n; k++ {
			s.Sub(s, t.Mul(a[r][k], x[k]))
		}
		x[r] = s.Quo(s, a[r][r])
	}
	return x, true
}

// into returns z to receive a result at prec where z rounds as a new
// number at prec would, else a new number at prec.
func into(z *big.Float, prec uint) *big.Float {
	if z.Prec() == prec && z.Mode() == big.ToNearestEven {
		return z
	}
	return new(big.Float).SetPrec(prec)
}

// row returns the pivot row of column c among rows c…n−1 of a, −1 where
// every entry is zero.
func (piv Pivoting) row(a [][]*big.Float, c, n int) int {
	p := -1
	if piv.Rounded {
		best := 0.0
		for r := c; r < n; r++ {
			if v := math.Abs(float64Of(a[r][c])); v > best || p < 0 && a[r][c].Sign() != 0 {
				p, best = r, v
			}
		}
		return p
	}
	for r := c; r < n; r++ {
		if a[r][c].Sign() != 0 && (p < 0 || cmpAbs(a[r][c], a[p][c]) > 0) {
			p = r
		}
	}
	return p
}

// LineBig solves the m × (m + 1) system a·x = b (a by rows) by Gaussian
// elimination with complete pivoting, every operation rounded to prec
// bits, and returns the line of its solutions u₀ + τ·u₁, τ the unknown of
// the column left without a pivot; false where a has rank below m. a's
// rows and columns are permuted and its numbers and b's overwritten.
func LineBig(a [][]*big.Float, b []*big.Float, prec uint) (u0, u1 []*big.Float, ok bool) {
	num := func() *big.Float { return new(big.Float).SetPrec(prec) }
	m := len(a)
	cols := m + 1
	perm := make([]int, cols) // perm[c]: the unknown in column c
	for c := range perm {
		perm[c] = c
	}
	f := num()
	for c := 0; c < m; c++ {
		pr, pc := c, c
		for i := c; i < m; i++ {
			for j := c; j < cols; j++ {
				if cmpAbs(a[i][j], a[pr][pc]) > 0 {
					pr, pc = i, j
				}
			}
		}
		if a[pr][pc].Sign() == 0 {
			return nil, nil, false
		}
		a[c], a[pr] = a[pr], a[c]
		b[c], b[pr] = b[pr], b[c]
		for i := range a {
			a[i][c], a[i][pc] = a[i][pc], a[i][c]
		}
		perm[c], perm[pc] = perm[pc], perm[c]
		for i := c + 1; i < m; i++ {
			f.Quo(a[i][c], a[c][c])
			for j := c; j < cols; j++ {
				a[i][j].Sub(a[i][j], num().Mul(f, a[c][j]))
			}
			b[i].Sub(b[i], num().Mul(f, b[c]))
		}
	}
	// Back-substitution with the last column's unknown τ: z₀ with τ = 0, z₁
	// the change per unit τ.
	z0, z1 := make([]*big.Float, cols), make([]*big.Float, cols)
	z0[m], z1[m] = num(), num().SetInt64(1)
	for i := m - 1; i >= 0; i-- {
		v0 := num().Set(b[i])
		v1 := num().Neg(a[i][m])
		for j := i + 1; j < m; j++ {
			v0.Sub(v0, num().Mul(a[i][j], z0[j]))
			v1.Sub(v1, num().Mul(a[i][j], z1[j]))
		}
		z0[i], z1[i] = v0.Quo(v0, a[i][i]), v1.Quo(v1, a[i][i])
	}
	u0, u1 = make([]*big.Float, cols), make([]*big.Float, cols)
	for c, k := range perm {
		u0[k], u1[k] = z0[c], z1[c]
	}
	return u0, u1, true
}

// cmpAbs compares |a| and |b| exactly, as Cmp does a and b.
func cmpAbs(a, b *big.Float) int {
	var x, y big.Float
	return x.Abs(a).Cmp(y.Abs(b))
}

// float64Of rounds v to the nearest float64 (±Inf beyond its range).
func float64Of(v *big.Float) float64 {
	f, _ := v.Float64()
	return f
}
