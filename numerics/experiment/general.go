package experiment

import (
	"math/rand/v2"

	"headlab/numerics/fusion"
)

// generalStream names the random stream of general fusion's heads.
const generalStream = 0x67656e6572616c // "general"

// GeneralHeads returns H heads of m atoms for general fusion: keys in R^m
// drawn from the seed ("random" keys) or the one-hot vectors of R^m in
// every head ("shared", whose sums are exact), biases and values drawn from
// the seed. Heads are drawn one after the other from one stream per seed
// and kind of keys, so the first H heads of a larger draw are the H heads
// of a smaller one: the Atom explosion scene fuses GeneralHeads(seed, H, m,
// keys) and the explosion figure's measured counts fuse its prefixes.
func GeneralHeads(seed uint64, H, m int, keys string) []fusion.Head {
	rng := rand.New(rand.NewPCG(seed, generalStream))
	heads := make([]fusion.Head, max(H, 0))
	for h := range heads {
		heads[h] = make(fusion.Head, m)
		for i := range heads[h] {
			k := make([]float64, m)
			if keys == "shared" {
				k[i] = 1
			} else {
				for j := range k {
					k[j] = rng.NormFloat64()
				}
			}
			heads[h][i] = fusion.Atom{Key: k, Bias: 0.5 * rng.NormFloat64(), Value: rng.NormFloat64()}
		}
	}
	return heads
}
