package plots

import "math/rand/v2"

// newRand returns a generator for one purpose of a seed; stream names the
// purpose so that different draws from one seed are independent.
func newRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream))
}
