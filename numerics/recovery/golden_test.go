package recovery

import (
	"testing"

	"headlab/numerics/attention"
	"headlab/numerics/internal/digest"
)

// TestGolden checks that runs give bit-identical numbers natively and under
// GOOS=js: both runs compare with one golden digest. The runs are made by
// Learn and again by a Run suspended at every checkpoint, which must give
// the same digest.
func TestGolden(t *testing.T) {
	learners := []struct {
		name  string
		learn func(Oracle, Options) (Result, error)
	}{
		{"Learn", Learn},
		{"Run", func(o Oracle, opt Options) (Result, error) {
			r := Start(o, opt)
			for !r.Step(0) {
			}
			return r.Result()
		}},
	}
	for _, lr := range learners {
		learn := lr.learn
		t.Run(lr.name, func(t *testing.T) {
			var d digest.Digest
			run := func(layer attention.Layer, opt Options, noise float64) {
				res, err := learn(LayerOracle(layer, noise, 3), opt)
				d.Add(float64(res.Queries), res.Residual, res.Estimate, res.Cond)
				if err != nil {
					d.Add(-1)
				}
				for _, h := range res.Layer {
					d.Add(h.W.RawMatrix().Data...)
					d.Add(h.V.RawVector().Data...)
				}
				for _, rf := range res.Trace.RFs {
					d.Add(rf.F...)
					d.Add(rf.P...)
					d.Add(rf.R...)
					d.Add(rf.HeadP...)
					d.Add(rf.HeadR...)
					d.Add(rf.Fit.Cond, rf.C)
				}
			}
			run(attention.Random(2, 3, 1), DefaultOptions(2, 3), 0)
			opt := DefaultOptions(2, 3)
			opt.Mode = Economy
			run(attention.Random(2, 3, 2), opt, 0)
			opt = DefaultOptions(4, 2)
			opt.UpperBound = true
			run(attention.Random(2, 2, 3), opt, 0)
			opt = DefaultOptions(3, 2)
			opt.Tolerance = 1e-9
			run(attention.Random(3, 2, 4), opt, 1e-9)
			digest.Check(t, "runs", &d)
		})
	}
}
