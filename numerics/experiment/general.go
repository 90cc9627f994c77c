package experiment

import (
	"fmt"
	"math/rand/v2"

	"headlab/numerics/fusion"
)

// generalStream names the random stream of general fusion's heads.
const generalStream = 0x67656e6572616c // "general"

// Keys says how general fusion draws its heads' keys. The kinds are a
// closed set, each named as the share link's keys key names it.
type Keys string

// The kinds of keys.
const (
	// RandomKeys draws every head's keys in R^m from the seed.
	RandomKeys Keys = "random"
	// SharedKeys gives every head the one-hot vectors of R^m, whose sums
	// are exact.
	SharedKeys Keys = "shared"
)

// GeneralHeads returns H heads of m atoms for general fusion: keys in R^m
// drawn from the seed (RandomKeys) or the one-hot vectors of R^m in
// every head (SharedKeys, whose sums are exact), biases and values drawn from
// the seed. Heads are drawn one after the other from one stream per seed
// and kind of keys, so the first H heads of a larger draw are the H heads
// of a smaller one: the Atom explosion scene fuses GeneralHeads(seed, H, m,
// keys) and the explosion figure's measured counts fuse its prefixes.
func GeneralHeads(seed uint64, H, m int, keys Keys) []fusion.Head {
	rng := rand.New(rand.NewPCG(seed, generalStream))
	heads := make([]fusion.Head, max(H, 0))
	for h := range heads {
		heads[h] = make(fusion.Head, m)
		for i := range heads[h] {
			k := make([]float64, m)
			if keys == SharedKeys {
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

// MergedLimit is the largest fused head MergedCounts builds, in atoms.
const MergedLimit = 4096

// MergedCounts fuses the first H = 1, 2, …, maxH of the general-fusion
// heads of m atoms (GeneralHeads with seed), for keys shared by every head
// and for random keys, each head into the fused head of the ones before,
// and returns the fused heads' atom counts: shared[H−1] and random[H−1]
// are the scene's merged counts for H heads. A curve stops before its
// fused head passes MergedLimit atoms (random keys: before the product
// passes 4·MergedLimit).
func MergedCounts(m, maxH int, seed uint64) (shared, random []int, err error) {
	if m < 1 || maxH < 1 {
		return nil, nil, fmt.Errorf("experiment: merged counts for m = %d, H ≤ %d; want m ≥ 1 and H ≥ 1", m, maxH)
	}
	for _, keys := range []Keys{SharedKeys, RandomKeys} {
		heads := GeneralHeads(seed, maxH, m, keys)
		var acc fusion.Head
		var counts []int
		for H := 1; H <= maxH; H++ {
			if acc == nil {
				acc, err = fusion.Fuse(heads[0])
			} else {
				if len(acc)*m > 4*MergedLimit {
					break
				}
				acc, err = fusion.Fuse(acc, heads[H-1])
			}
			if err != nil {
				return nil, nil, fmt.Errorf("experiment: fusing %d heads of %d atoms: %w", H, m, err)
			}
			if len(acc) > MergedLimit {
				break
			}
			counts = append(counts, len(acc))
		}
		if keys == SharedKeys {
			shared = counts
		} else {
			random = counts
		}
	}
	return shared, random, nil
}
