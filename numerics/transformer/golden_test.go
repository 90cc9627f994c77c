package transformer

import (
	"testing"

	"headlab/numerics/internal/digest"
	"headlab/numerics/recovery"
)

// TestGolden checks that runs give bit-identical numbers natively and
// under GOOS=js: both compare with one golden digest of everything a
// scene replays (counts, the line, every step, the pieces, kinks and
// units), for a plain run, an economy run with a readout and a residual
// run.
func TestGolden(t *testing.T) {
	var d digest.Digest
	for i, c := range []struct {
		shape Shape
		mode  recovery.Mode
	}{
		{Shape{Heads: 2, Width: 3, Dim: 4, Units: 5}, recovery.Paper},
		{Shape{Heads: 2, Width: 2, Dim: 3, Units: 3, Readout: true}, recovery.Economy},
		{Shape{Heads: 1, Width: 3, Dim: 3, Units: 4, Residual: true, Readout: true}, recovery.Paper},
	} {
		seed := uint64(9_400_000 + i)
		n, err := Random(c.shape, seed)
		if err != nil {
			t.Fatal(err)
		}
		o, err := NewOracle(n, testPrec)
		if err != nil {
			t.Fatal(err)
		}
		opt := DefaultOptions(c.shape.Heads, c.shape.Width)
		opt.Mode, opt.Seed, opt.Residual = c.mode, seed, c.shape.Residual
		res, err := Learn(o.Query, opt)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		d.Add(float64(res.HeadQueries), float64(res.UnitQueries), float64(res.MaxLength))
		d.Add(res.P...)
		d.Add(res.Q...)
		d.Add(res.Omega...)
		for _, s := range res.Steps {
			d.Add(float64(s.Kind), s.T, float64(s.First), float64(s.Calls), float64(s.Index), s.Eps, s.Mismatch)
		}
		for _, p := range res.Pieces {
			d.Add(p.T, p.Eps)
			d.Add(p.Lambda...)
		}
		for _, k := range res.Kinks {
			d.Add(k.T, float64(k.Left), float64(k.Right), float64(k.Unit))
			d.Add(k.D...)
		}
		// The network at full precision, every bit.
		for _, u := range res.Net.Units {
			d.Add(float64(u.Sign))
			d.AddBig(u.Eta...)
		}
		d.AddBig(res.Net.Linear...)
		for _, w := range res.Net.Heads {
			for _, row := range w {
				d.AddBig(row...)
			}
		}
	}
	digest.Check(t, "runs", &d)
}
