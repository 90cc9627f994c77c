package recovery

import (
	"fmt"
	"os"
	"testing"

	"headlab/numerics/attention"
)

func TestDebugSame(t *testing.T) {
	if os.Getenv("DBG") == "" {
		t.Skip()
	}
	for _, c := range []struct{ H, d int }{{1, 3}, {2, 4}, {3, 4}, {4, 4}} {
		for _, mode := range []Mode{Paper, Economy} {
			for s := 0; s < 3; s++ {
				layer := attention.Random(c.H, c.d, uint64(s+10))
				opt := DefaultOptions(c.H, c.d)
				opt.Mode = mode
				opt.Seed = uint64(s)
				res, err := Learn(LayerOracle(layer, 0, 1), opt)
				e := -1.0
				if err == nil {
					e, _ = attention.RelativeError(res.Layer, attention.Canonical(layer, 1e-12))
				}
				bits := 0.0
				for _, q := range res.Trace.Queries {
					bits += q.Answer
				}
				fmt.Printf("H=%d d=%d %v s=%d err=%.6e resid=%.6e est=%.6e sumAns=%x W00=%x %v\n", c.H, c.d, mode, s, e, res.Residual, res.Estimate, bits, func() float64 {
					if len(res.Layer) > 0 {
						return res.Layer[0].W.At(0, 0)
					}
					return 0
				}(), err != nil)
			}
		}
	}
}
