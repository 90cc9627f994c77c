package attention

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Random returns a layer of H heads of width d whose entries are independent
// standard normal draws scaled by 1/√d, from the given seed. The same seed
// gives the same layer on every platform.
func Random(H, d int, seed uint64) Layer {
	rng := rand.New(rand.NewPCG(seed, 0x6865_6164_6c61_62)) // "headlab"
	scale := 1 / math.Sqrt(float64(d))
	l := make(Layer, H)
	for h := range l {
		w := mat.NewDense(d, d, nil)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				w.Set(i, j, rng.NormFloat64()*scale)
			}
		}
		v := mat.NewVecDense(d, nil)
		for i := 0; i < d; i++ {
			v.SetVec(i, rng.NormFloat64())
		}
		l[h] = Head{W: w, V: v}
	}
	return l
}
