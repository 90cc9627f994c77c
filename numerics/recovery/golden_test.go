package recovery

import (
	"math"
	"math/big"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/internal/digest"
)

// TestGolden checks that runs give bit-identical numbers natively and under
// GOOS=js: both runs compare with one golden digest. The runs are made by
// Learn (with as many goroutines as GOMAXPROCS, and with four) and again
// by LearnPaused, paused at every checkpoint, which must all give the same
// digest.
func TestGolden(t *testing.T) {
	learners := []struct {
		name  string
		learn func(Oracle, Options) (Result, error)
	}{
		{"Learn", Learn},
		// Four goroutines fitting at once, whatever GOMAXPROCS is here.
		{"Learn4", func(o Oracle, opt Options) (Result, error) { return learn(source{f: o}, opt, nil, 4) }},
		{"Paused", func(o Oracle, opt Options) (Result, error) {
			return LearnPaused(o, opt, func(Progress) bool { return true })
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
				addLayer(&d, res)
				for _, rf := range res.Trace.RFs {
					addRF(&d, rf)
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
			// Frugal mode: poles by elimination (H = 3) and by the
			// deflated and quick searches (H = 4).
			opt = DefaultOptions(3, 3)
			opt.Mode = Frugal
			run(attention.Random(3, 3, 5), opt, 0)
			opt = DefaultOptions(4, 3)
			opt.Mode = Frugal
			run(attention.Random(4, 3, 6), opt, 0)
			digest.Check(t, "runs", &d)
		})
	}
}

// TestGoldenBig checks that extended-precision runs give bit-identical
// numbers natively and under GOOS=js, from the oracle's answers to the
// heads at full precision, directly and paused (LearnBigPaused) at every
// checkpoint.
func TestGoldenBig(t *testing.T) {
	learners := []struct {
		name  string
		learn func(BigOracle, Options) (Result, error)
	}{
		{"LearnBig", LearnBig},
		{"Paused", func(o BigOracle, opt Options) (Result, error) {
			return LearnBigPaused(o, opt, func(Progress) bool { return true })
		}},
	}
	for _, lr := range learners {
		learn := lr.learn
		t.Run(lr.name, func(t *testing.T) {
			var d digest.Digest
			run := func(layer attention.Layer, opt Options) {
				res, err := learn(BigLayerOracle(layer, opt.Precision), opt)
				if err != nil {
					t.Fatalf("%+v: %v", opt, err)
				}
				d.Add(float64(res.Queries), res.Residual, res.Estimate)
				for _, h := range res.BigLayer {
					for _, row := range h.W {
						d.AddBig(row...)
					}
					d.AddBig(h.V...)
				}
				addLayer(&d, res)
				for _, rf := range res.Trace.RFs {
					addRF(&d, rf)
					d.Add(rf.C)
				}
			}
			opt := DefaultOptions(3, 2)
			opt.Precision = 128
			run(attention.Random(3, 2, 11), opt)
			opt = DefaultOptions(6, 2)
			opt.Precision, opt.Mode = 256, Economy
			run(attention.Random(6, 2, 12), opt)
			opt = DefaultOptions(4, 1)
			opt.Precision, opt.UpperBound = 192, true
			run(attention.Random(2, 1, 13), opt)
			opt = DefaultOptions(3, 3)
			opt.Precision, opt.Mode = 192, Frugal
			run(attention.Random(3, 3, 14), opt)
			opt = DefaultOptions(4, 3)
			opt.Precision, opt.Mode = 192, Frugal
			run(attention.Random(4, 3, 15), opt)
			// Beyond the float64 search: every later measurement by the
			// line family (its roots by bigpoly).
			opt = DefaultOptions(6, 2)
			opt.Precision, opt.Mode = 256, Frugal
			run(attention.Random(6, 2, 16), opt)
			digest.Check(t, "bigruns", &d)
		})
	}
}

// addLayer adds the float64 heads of res to d.
func addLayer(d *digest.Digest, res Result) {
	for _, h := range res.Layer {
		d.Add(h.W.RawMatrix().Data...)
		d.Add(h.V.RawVector().Data...)
	}
}

// addRF adds the samples of rf, its fitted poles and residues, and the
// heads' to d.
func addRF(d *digest.Digest, rf RF) {
	d.Add(rf.F...)
	d.Add(rf.P...)
	d.Add(rf.R...)
	d.Add(rf.HeadP...)
	d.Add(rf.HeadR...)
}

// TestBigLayerOracle checks the extended oracle against the float64 one
// and against a direct evaluation at the same precision of a query with
// distinct tokens.
func TestBigLayerOracle(t *testing.T) {
	layer := attention.Random(3, 2, 5)
	o := BigLayerOracle(layer, 200)
	X := [][]*big.Float{
		{big.NewFloat(0.3), big.NewFloat(-1.2)},
		{big.NewFloat(1.1), big.NewFloat(0.4)},
		{big.NewFloat(0.3), big.NewFloat(-1.2)}, // equal to the first, another slice
		{big.NewFloat(-0.7), big.NewFloat(0.9)},
	}
	got, _ := o(X).Float64()
	Xf := mat.NewDense(4, 2, nil)
	for i, x := range X {
		for j, v := range x {
			f, _ := v.Float64()
			Xf.Set(i, j, f)
		}
	}
	want := layer.Output(Xf)
	if math.Abs(got-want) > 1e-14*math.Max(1, math.Abs(want)) {
		t.Fatalf("big oracle %v, float64 layer %v", got, want)
	}
}
