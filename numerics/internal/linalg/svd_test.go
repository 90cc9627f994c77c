package linalg

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The Jacobi SVD reconstructs the matrix, has orthonormal V and agrees with
// gonum's singular values, for tall, square and wide matrices.
func TestSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	for _, sh := range [][2]int{{1, 1}, {5, 3}, {4, 4}, {3, 6}, {12, 7}, {2, 9}} {
		m, n := sh[0], sh[1]
		a := make([][]float64, n) // by columns
		for j := range a {
			a[j] = make([]float64, m)
		}
		g := mat.NewDense(m, n, nil)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				v := rng.NormFloat64() * math.Pow(10, float64(-j))
				a[j][i] = v
				g.Set(i, j, v)
			}
		}
		dec, ok := JacobiSVD(a)
		if !ok {
			t.Fatalf("%d×%d: no convergence", m, n)
		}
		// A = Σ_j (us_j) v_jᵀ.
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for k := range dec.S {
					s += dec.US[k][i] * dec.V[k][j]
				}
				if math.Abs(s-a[j][i]) > 1e-14 {
					t.Errorf("%d×%d: reconstruction (%d,%d) off by %.3g", m, n, i, j, s-a[j][i])
				}
			}
		}
		for k := range dec.V {
			for l := range dec.V {
				var d float64
				for i := range dec.V[k] {
					d += dec.V[k][i] * dec.V[l][i]
				}
				want := 0.0
				if k == l {
					want = 1
				}
				if math.Abs(d-want) > 1e-14 {
					t.Errorf("%d×%d: V not orthonormal (%d,%d): %v", m, n, k, l, d)
				}
			}
		}
		var ref mat.SVD
		ref.Factorize(g, mat.SVDNone)
		want := ref.Values(nil)
		for k, s := range want {
			if math.Abs(dec.S[k]-s) > 1e-13*want[0] {
				t.Errorf("%d×%d: σ_%d = %v, gonum %v", m, n, k, dec.S[k], s)
			}
		}
		for k := len(want); k < n; k++ {
			if dec.S[k] > 1e-14*want[0] {
				t.Errorf("%d×%d: σ_%d = %v, want 0", m, n, k, dec.S[k])
			}
		}
	}
}

func sortComplex(z []complex128) {
	sort.Slice(z, func(i, j int) bool {
		if real(z[i]) != real(z[j]) {
			return real(z[i]) < real(z[j])
		}
		return imag(z[i]) < imag(z[j])
	})
}

// The QR algorithm finds the eigenvalues gonum finds, real and complex,
// and the roots of a polynomial from its companion matrix.
func TestEigenvalues(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	for n := 1; n <= 12; n++ {
		for trial := 0; trial < 5; trial++ {
			rows := make([][]float64, n)
			g := mat.NewDense(n, n, nil)
			for i := range rows {
				rows[i] = make([]float64, n)
				for j := range rows[i] {
					rows[i][j] = rng.NormFloat64()
					g.Set(i, j, rows[i][j])
				}
			}
			got, ok := Eigenvalues(rows)
			if !ok {
				t.Fatalf("n=%d: no convergence", n)
			}
			var ref mat.Eigen
			ref.Factorize(g, mat.EigenNone)
			want := ref.Values(nil)
			sortComplex(got)
			sortComplex(want)
			for k := range want {
				if cmplx.Abs(got[k]-want[k]) > 1e-10*(1+cmplx.Abs(want[k])) {
					t.Errorf("n=%d: λ_%d = %v, gonum %v", n, k, got[k], want[k])
				}
			}
		}
	}
	// Companion matrix of (x+1)(x+2)(x+3)(x²+1) = x⁵+6x⁴+12x³+12x²+11x+6.
	c := []float64{6, 11, 12, 12, 6}
	rows := make([][]float64, 5)
	for i := range rows {
		rows[i] = make([]float64, 5)
		if i > 0 {
			rows[i][i-1] = 1
		}
		rows[i][4] = -c[i]
	}
	got, ok := Eigenvalues(rows)
	if !ok {
		t.Fatal("companion: no convergence")
	}
	sortComplex(got)
	want := []complex128{-3, -2, -1, complex(0, -1), complex(0, 1)}
	for k := range want {
		if cmplx.Abs(got[k]-want[k]) > 1e-12 {
			t.Errorf("companion root %d: %v, want %v", k, got[k], want[k])
		}
	}
}
