package recovery

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"headlab/numerics/attention"
)

// bigLayerError is attention.RelativeError in the working precision, the
// heads of res paired in order with those of want (both sorted as
// attention.Canonical sorts them).
func bigLayerError(t *testing.T, res Result, want attention.Layer) float64 {
	t.Helper()
	if len(res.BigLayer) != len(want) {
		t.Fatalf("%d heads recovered, want %d", len(res.BigLayer), len(want))
	}
	var worst float64
	d := new(big.Float)
	for h, w := range want {
		g := res.BigLayer[h]
		n := w.V.Len()
		var dw, mw, dv, mv float64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				e, _ := d.SetPrec(g.W[i][j].Prec()).Sub(g.W[i][j], big.NewFloat(w.W.At(i, j))).Float64()
				dw, mw = math.Max(dw, math.Abs(e)), math.Max(mw, math.Abs(w.W.At(i, j)))
			}
			e, _ := d.SetPrec(g.V[i].Prec()).Sub(g.V[i], big.NewFloat(w.V.AtVec(i))).Float64()
			dv, mv = math.Max(dv, math.Abs(e)), math.Max(mv, math.Abs(w.V.AtVec(i)))
		}
		worst = math.Max(worst, math.Max(dw/mw, dv/mv))
	}
	return worst
}

// TestExtendedResolvesWhereFloat64Cannot checks the theorem past float64:
// at H = 6, 8, 10 with d = 2, random layers drawn from seeds held out of
// the measurement behind NeededPrecision resolve at that precision with
// an error of at most 1e-12 in the working precision, while float64 at the
// same seeds reports them unresolved (above MaxHeads it refuses them,
// saying extended precision goes further), never as a wrong layer.
func TestExtendedResolvesWhereFloat64Cannot(t *testing.T) {
	const d = 2
	for _, H := range []int{6, 8, 10} {
		prec := NeededPrecision(H, d, Paper)
		for _, seed := range []uint64{5000001, 5000002} {
			layer := attention.Random(H, d, seed)
			want := attention.Canonical(layer, 1e-12)
			opt := DefaultOptions(H, d)
			opt.Seed = seed
			opt.Precision = prec
			res, err := LearnBig(BigLayerOracle(layer, prec), opt)
			if err != nil {
				t.Fatalf("H = %d, seed %d, %d bits: %v", H, seed, prec, err)
			}
			e := bigLayerError(t, res, want)
			t.Logf("H = %d, seed %d: %d bits, error %.3g (estimate %.3g)", H, seed, prec, e, res.Estimate)
			if !(e <= 1e-12) {
				t.Errorf("H = %d, seed %d, %d bits: error %.3g > 1e-12", H, seed, prec, e)
			}
			opt.Precision = 0
			fres, ferr := Learn(LayerOracle(layer, 0, seed), opt)
			if ferr == nil {
				fe, _ := attention.RelativeError(fres.Layer, want)
				t.Errorf("H = %d, seed %d: float64 resolved (error %.3g), want unresolved", H, seed, fe)
				continue
			}
			if H > MaxHeads && !strings.Contains(ferr.Error(), "extended precision") {
				t.Errorf("H = %d: float64's refusal does not point to extended precision: %v", H, ferr)
			}
			var re *Error
			if H <= MaxHeads && !errors.As(ferr, &re) {
				t.Errorf("H = %d, seed %d: float64 ended in %v, want a recovery.Error", H, seed, ferr)
			}
		}
	}
}

// TestNeededPrecisionResolves: beyond the measured widths, the precision
// offered resolves every held-out reference layer in every mode.
func TestNeededPrecisionResolves(t *testing.T) {
	if testing.Short() {
		t.Skip("extended-precision runs")
	}
	for _, c := range []struct{ H, d int }{{3, 6}, {2, 8}} {
		for _, m := range Modes() {
			prec := NeededPrecision(c.H, c.d, m)
			for seed := uint64(6000001); seed <= 6000005; seed++ {
				layer := attention.Random(c.H, c.d, seed)
				opt := DefaultOptions(c.H, c.d)
				opt.Seed, opt.Precision, opt.Mode = seed, prec, m
				res, err := LearnBig(BigLayerOracle(layer, prec), opt)
				if err != nil {
					t.Fatalf("(%d, %d) %v seed %d at %d bits: %v", c.H, c.d, m, seed, prec, err)
				}
				if e := bigLayerError(t, res, attention.Canonical(layer, 1e-12)); !(e <= 1e-12) {
					t.Errorf("(%d, %d) %v seed %d at %d bits: error %.3g", c.H, c.d, m, seed, prec, e)
				}
			}
		}
	}
}

// TestNeededPrecision checks the table's lookups: float64 where it
// sufficed, the margin, widths between and beyond the measured ones.
func TestNeededPrecision(t *testing.T) {
	if p := NeededPrecision(1, 2, Paper); p != 0 {
		t.Errorf("H = 1: %d bits, want float64", p)
	}
	m, ok := MeasuredPrecision(10, 4, Paper)
	if !ok || m == 0 {
		t.Fatalf("H = 10, d = 4 not measured")
	}
	if p := NeededPrecision(10, 3, Paper); p != m+precisionMargin {
		t.Errorf("d = 3 takes d = 4's %d + margin, got %d", m, p)
	}
	if p := NeededPrecision(10, 8, Paper); p != m+precisionMargin+32 {
		t.Errorf("d = 8: %d, want %d", p, m+precisionMargin+32)
	}
	if p := NeededPrecision(3, 6, Paper); p < 128 {
		t.Errorf("(3, 6), beyond the measured widths: %d bits, want at least 128 (float64 is not offered where it was not measured)", p)
	}
	if p := NeededPrecision(13, 2, Paper); p != 0 {
		t.Errorf("H = 13: %d", p)
	}
	for H := 1; H <= MaxHeadsExtended; H++ {
		if p := NeededPrecision(H, 4, Economy); p != 0 && (p < MinPrecision || p > MaxPrecision) {
			t.Errorf("H = %d: %d bits outside the valid range", H, p)
		}
	}
}
