package poles

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSolve times Solve on frugal measurements of H = 2…5 poles, on
// one goroutine and (workers=2) on two.
func BenchmarkSolve(b *testing.B) {
	for hc := 2; hc <= MaxPoles; hc++ {
		rng := rand.New(rand.NewPCG(3, uint64(hc)))
		r, rho, n := measurement(rng, hc)
		w := values(r, rho, n)
		for _, workers := range []int{1, 2} {
			if hc <= 3 && workers > 1 {
				continue // elimination: one goroutine
			}
			b.Run(fmt.Sprintf("H=%d/workers=%d", hc, workers), func(b *testing.B) {
				for b.Loop() {
					if _, err := Solve(r, n, w, workers); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
