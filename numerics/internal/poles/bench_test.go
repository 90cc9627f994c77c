package poles

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSolve times Solve on frugal measurements of H = 2…5 poles.
func BenchmarkSolve(b *testing.B) {
	for hc := 2; hc <= MaxPoles; hc++ {
		rng := rand.New(rand.NewPCG(3, uint64(hc)))
		r, rho, n := measurement(rng, hc)
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
