package recovery

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
)

// TestConstantOracleIsAnError checks that an oracle no attention layer can
// explain (a constant: a layer has no bias) is an error that says so, in
// float64 and in extended precision, in both modes and with H known or
// only bounded; never an empty layer.
func TestConstantOracleIsAnError(t *testing.T) {
	const value = 1.25
	for _, prec := range []uint{0, 128} {
		for _, mode := range []Mode{Paper, Economy} {
			for _, hd := range [][2]int{{1, 1}, {2, 3}, {3, 2}} {
				opt := DefaultOptions(hd[0], hd[1])
				opt.Mode, opt.Precision, opt.UpperBound = mode, prec, hd[0] > 2
				var res Result
				var err error
				if prec == 0 {
					res, err = Learn(func(*mat.Dense) float64 { return value }, opt)
				} else {
					c := new(big.Float).SetPrec(prec).SetFloat64(value)
					res, err = LearnBig(func([][]*big.Float) *big.Float { return c }, opt)
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("prec %d, %v, (H, d) = %v: got %d heads and error %v, want a recovery.Error", prec, mode, hd, len(res.Layer), err)
				}
				if !strings.Contains(e.Error(), "no attention layer explains them") || res.Layer != nil {
					t.Errorf("prec %d, %v, (H, d) = %v: %v (layer %d heads)", prec, mode, hd, err, len(res.Layer))
				}
			}
		}
	}
}

// TestZeroOracleIsTheEmptyLayer checks the case the check must accept: an
// oracle that always answers 0 is the empty layer, in both precisions,
// when the number of heads is only an upper bound.
func TestZeroOracleIsTheEmptyLayer(t *testing.T) {
	opt := DefaultOptions(2, 2)
	opt.UpperBound = true
	if res, err := Learn(func(*mat.Dense) float64 { return 0 }, opt); err != nil || len(res.Layer) != 0 {
		t.Fatalf("float64: %d heads, %v", len(res.Layer), err)
	}
	opt.Precision = 128
	zero := new(big.Float).SetPrec(128)
	if res, err := LearnBig(func([][]*big.Float) *big.Float { return zero }, opt); err != nil || len(res.Layer) != 0 {
		t.Fatalf("extended: %d heads, %v", len(res.Layer), err)
	}
}

// TestLayerPlusConstantIsAnError checks a layer plus a constant offset,
// which leaves poles to fit but no layer that explains every answer.
func TestLayerPlusConstantIsAnError(t *testing.T) {
	layer := attention.Random(2, 2, 77)
	for _, prec := range []uint{0, 192} {
		opt := DefaultOptions(2, 2)
		opt.Precision = prec
		var err error
		var res Result
		if prec == 0 {
			o := LayerOracle(layer, 0, 1)
			res, err = Learn(func(X *mat.Dense) float64 { return o(X) + 0.3 }, opt)
		} else {
			o := BigLayerOracle(layer, prec)
			off := big.NewFloat(0.3)
			res, err = LearnBig(func(X [][]*big.Float) *big.Float {
				y := o(X)
				return y.Add(y, off)
			}, opt)
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("prec %d: got %d heads and error %v, want a recovery.Error", prec, len(res.Layer), err)
		}
		t.Logf("prec %d: %v", prec, err)
	}
}
