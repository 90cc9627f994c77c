package recovery

import (
	"context"
	"testing"

	"headlab/numerics/attention"
)

// recoveredLayer reports whether a run returned l's canonical heads.
func recoveredLayer(r Result, err error, l attention.Layer) bool {
	if err != nil {
		return false
	}
	e, cerr := attention.RelativeError(r.Layer, attention.Canonical(l, 1e-9))
	return cerr == nil && e < 1e-6
}

// TestCalibratedScale: with Calibrate, the reference layers scaled by
// 1/16, 1/4, 4 and 16 resolve as often as the reference layers at scale 1
// with the default token scale (20 seeds at (3, 6) and (4, 8)), to within
// one layer: the calibrated token scale makes their rational functions the
// reference's, but the answers differ from the reference's in their last
// bits (16·W·z/4 is not W·z, rounded), which can tip a layer at the edge.
// The default token scale resolves few of the scaled ones.
func TestCalibratedScale(t *testing.T) {
	if testing.Short() {
		t.Skip("100 runs")
	}
	for _, c := range []struct{ H, d int }{{3, 6}, {4, 8}} {
		calibratedScale(t, c.H, c.d)
	}
}

func calibratedScale(t *testing.T, H, d int) {
	const seeds = 20
	base := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		l := attention.Random(H, d, seed)
		opt := DefaultOptions(H, d)
		opt.Seed = seed
		r, err := Recover(context.Background(), Layer(l), opt)
		if recoveredLayer(r, err, l) {
			base++
		}
	}
	for _, f := range []float64{1.0 / 16, 0.25, 1, 4, 16} {
		ok, plain := 0, 0
		for seed := uint64(1); seed <= seeds; seed++ {
			l := attention.Random(H, d, seed).Scaled(f)
			opt := DefaultOptions(H, d)
			opt.Seed = seed
			if f != 1 {
				r, err := Recover(context.Background(), Layer(l), opt)
				if recoveredLayer(r, err, l) {
					plain++
				}
			}
			opt.Calibrate = true
			r, err := Recover(context.Background(), Layer(l), opt)
			if r.Calibration == nil {
				t.Fatalf("scale %g seed %d: no calibration recorded", f, seed)
			}
			if recoveredLayer(r, err, l) {
				ok++
			}
		}
		t.Logf("(%d, %d) scale %g: calibrated %d/%d, the default token scale %d/%d (scale 1: %d/%d)", H, d, f, ok, seeds, plain, seeds, base, seeds)
		if ok < base-1 {
			t.Errorf("(%d, %d) scale %g: calibrated runs resolve %d of %d, the reference layers at scale 1 %d", H, d, f, ok, seeds, base)
		}
	}
}

// TestCalibrationKeepsDefault: a probe of a reference layer whose
// log-poles have about the target RMS keeps token scale 1, and its queries
// are the schedule's own first queries.
func TestCalibrationKeepsDefault(t *testing.T) {
	kept := 0
	for seed := uint64(1); seed <= 10; seed++ {
		l := attention.Random(3, 6, seed)
		opt := DefaultOptions(3, 6)
		opt.Seed = seed
		c, err := Calibrate(context.Background(), Layer(l), opt)
		if err != nil {
			t.Fatal(err)
		}
		if c.TokenScale == 1 {
			kept++
			if c.RMS < c.Target/2 || c.RMS > c.Target*2 {
				t.Errorf("seed %d: kept token scale 1 with RMS %g, target %g", seed, c.RMS, c.Target)
			}
			if c.Queries != 1+min(6, calibrationProbes)*6 {
				t.Errorf("seed %d: %d probe queries", seed, c.Queries)
			}
		}
	}
	if kept == 0 {
		t.Errorf("no reference layer kept token scale 1")
	}
}
