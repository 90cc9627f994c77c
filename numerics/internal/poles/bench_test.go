package poles

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"headlab/numerics/internal/xmath"
)

// BenchmarkSolve times Solve on frugal measurements of H = 2…5 poles.
func BenchmarkSolve(b *testing.B) {
	for hc := 2; hc <= MaxPoles; hc++ {
		rng := rand.New(rand.NewPCG(3, uint64(hc)))
		r, rho, n := make([]float64, hc), make([]float64, hc), make([]float64, hc+1)
		for h := range r {
			r[h] = 2*rng.Float64() - 1
			rho[h] = xmath.Exp(1.5 * (2*rng.Float64() - 1) * 2)
		}
		for i := range n {
			n[i] = float64(i + 1)
		}
		w := values(r, rho, n)
		b.Run(fmt.Sprintf("H=%d", hc), func(b *testing.B) {
			for b.Loop() {
				if _, err := Solve(r, n, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
