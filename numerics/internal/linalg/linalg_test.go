package linalg

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// randRows returns an m×n matrix of normal entries, by rows.
func randRows(rng *rand.Rand, m, n int) [][]float64 {
	a := make([][]float64, m)
	for i := range a {
		a[i] = make([]float64, n)
		for j := range a[i] {
			a[i][j] = rng.NormFloat64()
		}
	}
	return a
}

func flat(a [][]float64) []float64 {
	var out []float64
	for _, r := range a {
		out = append(out, r...)
	}
	return out
}

func mulVec(a [][]float64, x []float64) []float64 {
	y := make([]float64, len(a))
	for i, r := range a {
		for j, v := range r {
			y[i] += v * x[j]
		}
	}
	return y
}

func maxDiff(x, y []float64) float64 {
	var d float64
	for i := range x {
		d = math.Max(d, math.Abs(x[i]-y[i]))
	}
	return d
}

// A consistent overdetermined system is solved exactly (to rounding), and
// the least-squares residual of an inconsistent one is orthogonal to A's
// columns.
func TestSolveLS(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, sh := range [][2]int{{1, 1}, {4, 4}, {9, 4}, {30, 7}} {
		m, n := sh[0], sh[1]
		a := randRows(rng, m, n)
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		got, ok := SolveLS(a, mulVec(a, x), n)
		if !ok {
			t.Fatalf("%d×%d: full rank reported deficient", m, n)
		}
		if d := maxDiff(got, x); d > 1e-12 {
			t.Errorf("%d×%d consistent: off by %.3g", m, n, d)
		}
		b := make([]float64, m)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		got, ok = SolveLS(a, b, n)
		if !ok {
			t.Fatalf("%d×%d: no least-squares solution", m, n)
		}
		r := mulVec(a, got)
		for i := range r {
			r[i] -= b[i]
		}
		for j := 0; j < n; j++ {
			var g float64
			for i := range r {
				g += a[i][j] * r[i]
			}
			if math.Abs(g) > 1e-12 {
				t.Errorf("%d×%d: Aᵀr[%d] = %.3g, not 0", m, n, j, g)
			}
		}
	}
}

// A matrix with dependent columns, or fewer rows than columns, has no
// unique least-squares solution.
func TestSolveLSRankDeficient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := randRows(rng, 8, 3)
	for i := range a {
		a[i][2] = a[i][0] - 2*a[i][1]
	}
	if _, ok := SolveLS(a, make([]float64, 8), 3); ok {
		t.Error("dependent columns: solved")
	}
	if _, ok := SolveLS(randRows(rng, 2, 3), make([]float64, 2), 3); ok {
		t.Error("2 rows, 3 unknowns: solved")
	}
	a = randRows(rng, 3, 2)
	a[1][0] = math.NaN()
	if _, ok := SolveLS(a, make([]float64, 3), 2); ok {
		t.Error("NaN entry: solved")
	}
}

// Householder leaves R with QᵀQ = I implied: RᵀR = AᵀA, zeros below the
// diagonal; InvUpper inverts R; BackSolve solves with it.
func TestHouseholderInvUpper(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	m, n := 11, 5
	a := randRows(rng, m, n)
	q := flat(a)
	if !Householder(q, m, n, n) {
		t.Fatal("Householder failed")
	}
	r := make([]float64, n*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if i < n && j >= i {
				r[i*n+j] = q[i*n+j]
			} else if q[i*n+j] != 0 {
				t.Errorf("R[%d][%d] = %g below the diagonal", i, j, q[i*n+j])
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var rr, aa float64
			for k := 0; k < n; k++ {
				rr += r[k*n+i] * r[k*n+j]
			}
			for k := 0; k < m; k++ {
				aa += a[k][i] * a[k][j]
			}
			if math.Abs(rr-aa) > 1e-12*(1+math.Abs(aa)) {
				t.Errorf("RᵀR[%d][%d] = %g, AᵀA = %g", i, j, rr, aa)
			}
		}
	}
	x := InvUpper(r, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for k := 0; k < n; k++ {
				s += r[i*n+k] * x[k*n+j]
			}
			if want := map[bool]float64{true: 1, false: 0}[i == j]; math.Abs(s-want) > 1e-12 {
				t.Errorf("R·R⁻¹[%d][%d] = %g", i, j, s)
			}
			if i > j && x[i*n+j] != 0 {
				t.Errorf("R⁻¹[%d][%d] = %g below the diagonal", i, j, x[i*n+j])
			}
		}
	}
	b := []float64{1, 2, 3, 4, 5}
	y := append([]float64(nil), b...)
	if !BackSolve(r, n, y) {
		t.Fatal("BackSolve failed")
	}
	checkSolves(t, "R y", r, n, y, b, 1e-12)
	r[2*n+2] = 0
	if BackSolve(r, n, append([]float64(nil), b...)) {
		t.Error("zero diagonal: solved")
	}
}

// checkSolves reports where the n×n row-major a times x is not b to tol.
func checkSolves(t *testing.T, name string, a []float64, n int, x, b []float64, tol float64) {
	t.Helper()
	for i := 0; i < n; i++ {
		var s float64
		for k := 0; k < n; k++ {
			s += a[i*n+k] * x[k]
		}
		if math.Abs(s-b[i]) > tol {
			t.Errorf("(%s)[%d] = %g, want %g", name, i, s, b[i])
		}
	}
}

// Cholesky factors MᵀM + I into L Lᵀ; CholSolve solves with it and gives
// the same bits as CholSolveCols on one column; an indefinite matrix is
// refused.
func TestCholesky(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 4))
	n := 6
	mm := randRows(rng, 9, n)
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := range mm {
				a[i*n+j] += mm[k][i] * mm[k][j]
			}
		}
		a[i*n+i]++
	}
	l := append([]float64(nil), a...)
	if !Cholesky(l, n) {
		t.Fatal("positive definite refused")
	}
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			var s float64
			for k := 0; k <= j; k++ {
				s += l[i*n+k] * l[j*n+k]
			}
			if math.Abs(s-a[i*n+j]) > 1e-12*(1+math.Abs(a[i*n+j])) {
				t.Errorf("LLᵀ[%d][%d] = %g, want %g", i, j, s, a[i*n+j])
			}
		}
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	x := append([]float64(nil), b...)
	CholSolve(l, n, x)
	checkSolves(t, "A x", a, n, x, b, 1e-11)
	y := append([]float64(nil), b...)
	CholSolveCols(l, n, y, 1)
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			t.Errorf("CholSolve and CholSolveCols differ at %d: %v, %v", i, x[i], y[i])
		}
	}
	ind := []float64{1, 2, 2, 1} // eigenvalues 3 and −1
	if Cholesky(ind, 2) {
		t.Error("indefinite matrix factored")
	}
}

// bigRows converts a to big.Float at prec.
func bigRows(a [][]float64, prec uint) [][]*big.Float {
	out := make([][]*big.Float, len(a))
	for i, r := range a {
		out[i] = bigVec(r, prec)
	}
	return out
}

func bigVec(x []float64, prec uint) []*big.Float {
	out := make([]*big.Float, len(x))
	for i, v := range x {
		out[i] = new(big.Float).SetPrec(prec).SetFloat64(v)
	}
	return out
}

// bigMulVec returns a·x exactly enough: at 4·prec bits.
func bigMulVec(a [][]*big.Float, x []*big.Float, prec uint) []*big.Float {
	y := make([]*big.Float, len(a))
	for i, r := range a {
		y[i] = DotBig(4*prec, r, x)
	}
	return y
}

// relErr returns max |x_i − y_i| / max |y_i| as a float64.
func relErr(x, y []*big.Float) float64 {
	var d, s float64
	for i := range x {
		diff, _ := new(big.Float).Sub(x[i], y[i]).Float64()
		yi, _ := y[i].Float64()
		d, s = math.Max(d, math.Abs(diff)), math.Max(s, math.Abs(yi))
	}
	return d / s
}

var pivotings = []struct {
	name string
	piv  func(prec uint) Pivoting
}{
	{"exact", func(uint) Pivoting { return Pivoting{} }},
	{"rounded", func(uint) Pivoting { return Pivoting{Rounded: true} }},
	{"tolerance", func(prec uint) Pivoting { return Pivoting{ToleranceBits: int(prec) - 8} }},
}

// SolveBig recovers a known solution to nearly its working precision,
// under every pivoting rule, including a system that needs a row swap.
func TestSolveBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 5))
	for _, pv := range pivotings {
		for _, prec := range []uint{64, 200, 1000} {
			for _, n := range []int{1, 2, 5, 9} {
				a := bigRows(randRows(rng, n, n), prec)
				if n > 1 {
					a[0][0].SetInt64(0) // the first column needs a pivot from below
				}
				x := make([]*big.Float, n)
				for i := range x {
					x[i] = new(big.Float).SetPrec(prec).SetFloat64(rng.NormFloat64())
					x[i].Quo(x[i], big.NewFloat(3)) // all prec bits in use
				}
				b := bigMulVec(a, x, prec)
				got, ok := SolveBig(a, b, prec, pv.piv(prec))
				if !ok {
					t.Fatalf("%s, %d bits, n = %d: nonsingular refused", pv.name, prec, n)
				}
				if e := relErr(got, x); e > math.Ldexp(1, -int(prec)+24) {
					t.Errorf("%s, %d bits, n = %d: relative error %.3g", pv.name, prec, n, e)
				}
				for i, v := range got {
					if v.Prec() != prec {
						t.Errorf("%s: x[%d] at %d bits, want %d", pv.name, i, v.Prec(), prec)
					}
				}
			}
		}
	}
}

// A matrix with two equal rows is singular under every rule; one whose
// rows differ in the last few bits only is singular to the tolerance
// alone.
func TestSolveBigSingular(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 6))
	const prec = 128
	for _, pv := range pivotings {
		rows := randRows(rng, 4, 4)
		for j := range rows[3] {
			rows[3][j] = float64(int(8 * rows[0][j]))
			rows[0][j] = rows[3][j] // exact integers: the elimination cancels exactly
		}
		if _, ok := SolveBig(bigRows(rows, prec), bigVec([]float64{1, 2, 3, 4}, prec), prec, pv.piv(prec)); ok {
			t.Errorf("%s: equal rows solved", pv.name)
		}
	}
	near := func() [][]*big.Float {
		a := bigRows([][]float64{{1, 2}, {3, 5}}, prec)
		// Row 2 = 2·row 1 + 2^−(prec−4) in one entry: nonsingular with
		// only 4 significant bits of pivot left.
		a[1][0].SetInt64(2)
		a[1][1].SetInt64(4)
		a[1][1].Add(a[1][1], new(big.Float).SetMantExp(big.NewFloat(1), -(prec-4)))
		return a
	}
	if _, ok := SolveBig(near(), bigVec([]float64{1, 1}, prec), prec, Pivoting{}); !ok {
		t.Error("exact rule: a nonzero pivot refused")
	}
	if _, ok := SolveBig(near(), bigVec([]float64{1, 1}, prec), prec, Pivoting{ToleranceBits: prec - 8}); ok {
		t.Error("tolerance rule: a pivot of 4 bits accepted")
	}
	if x, ok := SolveBig(nil, nil, prec, Pivoting{}); !ok || len(x) != 0 {
		t.Errorf("empty system: %v, %v", x, ok)
	}
}

// SolveBig at 200 bits and SolveLS in float64 agree on a well-conditioned
// square system to float64 accuracy, and DotBig rounds to Dot's value.
func TestFloat64AgreesWithBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 7))
	n := 7
	a := randRows(rng, n, n)
	for i := 0; i < n; i++ {
		a[i][i] += 4
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	x64, ok := SolveLS(a, b, n)
	if !ok {
		t.Fatal("SolveLS failed")
	}
	xb, ok := SolveBig(bigRows(a, 200), bigVec(b, 200), 200, Pivoting{})
	if !ok {
		t.Fatal("SolveBig failed")
	}
	if e := relErr(bigVec(x64, 200), xb); e > 1e-14 {
		t.Errorf("float64 and big differ by %.3g", e)
	}
	d64 := Dot(a[0], a[1])
	db, _ := DotBig(200, bigVec(a[0], 200), bigVec(a[1], 200)).Float64()
	if math.Abs(d64-db) > 1e-15*(1+math.Abs(db)) {
		t.Errorf("Dot %v, DotBig %v", d64, db)
	}
}

// LineBig returns a line every point of which solves the system, and
// refuses a system of rank below m.
func TestLineBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 8))
	const prec = 160
	for _, m := range []int{1, 3, 6} {
		af := randRows(rng, m, m+1)
		af[0][0] = 0
		bf := make([]float64, m)
		for i := range bf {
			bf[i] = rng.NormFloat64()
		}
		a, b := bigRows(af, prec), bigVec(bf, prec)
		u0, u1, ok := LineBig(bigRows(af, prec), bigVec(bf, prec), prec)
		if !ok {
			t.Fatalf("m = %d: full rank refused", m)
		}
		if len(u0) != m+1 || len(u1) != m+1 {
			t.Fatalf("m = %d: lengths %d, %d", m, len(u0), len(u1))
		}
		var nonzero bool
		for _, v := range u1 {
			nonzero = nonzero || v.Sign() != 0
		}
		if !nonzero {
			t.Errorf("m = %d: direction 0", m)
		}
		for _, tau := range []float64{0, 1, -2.5} {
			x := make([]*big.Float, m+1)
			for i := range x {
				x[i] = new(big.Float).SetPrec(2*prec).Mul(u1[i], big.NewFloat(tau))
				x[i].Add(x[i], u0[i])
			}
			if e := relErr(bigMulVec(a, x, prec), b); e > math.Ldexp(1, -prec+24) {
				t.Errorf("m = %d, τ = %g: residual %.3g", m, tau, e)
			}
		}
	}
	af := [][]float64{{1, 2, 3}, {2, 4, 6}}
	if _, _, ok := LineBig(bigRows(af, prec), bigVec([]float64{1, 2}, prec), prec); ok {
		t.Error("rank 1 of 2: solved")
	}
}

// The bases are orthonormal, the same for the same draws, and the float64
// basis is the big one's rounding to float64 accuracy.
func TestOrthonormalBasis(t *testing.T) {
	for _, d := range []int{1, 3, 8} {
		q := OrthonormalBasis(d, rand.New(rand.NewPCG(9, uint64(d))))
		qb := OrthonormalBasisBig(d, rand.New(rand.NewPCG(9, uint64(d))), 256)
		again := OrthonormalBasis(d, rand.New(rand.NewPCG(9, uint64(d))))
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				if g := Dot(q[i], q[j]); math.Abs(g-want) > 1e-14 {
					t.Errorf("d = %d: q%d·q%d = %v", d, i, j, g)
				}
				g := DotBig(256, qb[i], qb[j])
				g.Sub(g, big.NewFloat(want))
				if e, _ := g.Float64(); math.Abs(e) > 1e-70 {
					t.Errorf("d = %d: big q%d·q%d off by %.3g", d, i, j, e)
				}
				v, _ := qb[i][j].Float64()
				if math.Abs(v-q[i][j]) > 1e-14 {
					t.Errorf("d = %d: q[%d][%d] = %v, big %v", d, i, j, q[i][j], v)
				}
				if math.Float64bits(q[i][j]) != math.Float64bits(again[i][j]) {
					t.Errorf("d = %d: the same draws gave another basis", d)
				}
			}
		}
	}
}

// Line solves a square system, and on an m × (m + 1) one returns the
// line LineBig returns, to float64 accuracy; rank deficiency is refused.
func TestLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 9))
	const m = 4
	sq := randRows(rng, m, m)
	x := []float64{1, -2, 0.5, 3}
	base, dir, ok := Line(sq, mulVec(sq, x))
	if !ok || dir != nil {
		t.Fatalf("square: ok %v, dir %v", ok, dir)
	}
	if d := maxDiff(base, x); d > 1e-12 {
		t.Errorf("square: off by %.3g", d)
	}
	af := randRows(rng, m, m+1)
	bf := []float64{1, 2, 3, 4}
	cp := func(a [][]float64) [][]float64 {
		out := make([][]float64, len(a))
		for i := range a {
			out[i] = append([]float64(nil), a[i]...)
		}
		return out
	}
	base, dir, ok = Line(cp(af), append([]float64(nil), bf...))
	if !ok || len(dir) != m+1 {
		t.Fatalf("line: ok %v, dir %v", ok, dir)
	}
	_, u1, ok := LineBig(bigRows(af, 200), bigVec(bf, 200), 200)
	if !ok {
		t.Fatal("LineBig refused")
	}
	// The two may leave different unknowns free: the points are checked
	// by their residual, the directions up to scale.
	for _, tau := range []float64{0, 1} {
		p := make([]float64, m+1)
		for i := range p {
			p[i] = base[i] + tau*dir[i]
		}
		r := mulVec(af, p)
		if d := maxDiff(r, bf); d > 1e-12 {
			t.Errorf("line point τ = %g: residual %.3g", tau, d)
		}
	}
	k := 0
	for i := range dir {
		if math.Abs(dir[i]) > math.Abs(dir[k]) {
			k = i
		}
	}
	s := new(big.Float).Quo(u1[k], big.NewFloat(dir[k]))
	for i := range dir {
		v, _ := new(big.Float).Quo(u1[i], s).Float64()
		if math.Abs(v-dir[i]) > 1e-12*math.Abs(dir[k]) {
			t.Errorf("directions differ at %d: %v, big %v", i, dir[i], v)
		}
	}
	dep := [][]float64{{1, 2, 3}, {2, 4, 6}}
	if _, _, ok := Line(dep, []float64{1, 2}); ok {
		t.Error("rank 1 of 2: solved")
	}
}
