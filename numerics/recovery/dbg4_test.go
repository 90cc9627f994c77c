package recovery

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
)

func TestDebugErrors(t *testing.T) {
	if os.Getenv("DBG") == "" {
		t.Skip()
	}
	const d = 2
	rng := rand.New(rand.NewPCG(3, 3))
	random := func(*mat.Dense) float64 { return rng.NormFloat64() }
	three := attention.Random(3, d, 77)
	noisy := attention.Random(2, d, 78)
	for name, o := range map[string]Oracle{"random": random, "bound": LayerOracle(three, 0, 1), "noise": LayerOracle(noisy, 1e-6, 1),
		"const": func(x *mat.Dense) float64 { r, _ := x.Dims(); return float64(r % 3) }} {
		opt := DefaultOptions(2, d)
		if name == "bound" {
			opt.Heads = 1
		}
		_, err := Learn(o, opt)
		fmt.Println(name, ":", err)
	}
}
