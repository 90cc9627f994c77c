package attention

import (
	"math/rand/v2"
	"testing"

	"headlab/numerics/internal/digest"
)

// TestGolden checks that layers give bit-identical outputs natively and
// under GOOS=js: both runs compare with one golden digest.
func TestGolden(t *testing.T) {
	var d digest.Digest
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 40; trial++ {
		H, dim, n := 1+trial%8, 1+trial%6, 2+trial%9
		l := Random(H, dim, uint64(trial))
		X := randomSeq(rng, n, dim, 1.5)
		d.Add(l.Output(X))
		for _, det := range l.Details(X) {
			d.Add(det.Weights...)
		}
		d.Add(Canonical(l, 1e-12)[0].V.RawVector().Data...)
	}
	digest.Check(t, "outputs", &d)
}
