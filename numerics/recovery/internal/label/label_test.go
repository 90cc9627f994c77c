package label

import (
	"fmt"
	"math"
	"testing"

	"headlab/numerics/recovery/internal/lsq"
)

// TestChooseWorkers checks that fitting the starts on several
// goroutines gives the one-goroutine outcome exactly, and that a fit's
// panic reaches the caller (as it would on one goroutine) instead of
// killing the program.
func TestChooseWorkers(t *testing.T) {
	// Fit a·e^{−b n} to samples of 3·e^{−n/2}: starts in different basins.
	ns := []float64{0, 1, 2, 3, 4, 5}
	newProb := func() lsq.Problem {
		pred := make([]float64, len(ns)) // a buffer of its own, as the learner's problems have
		return lsq.Problem{M: len(ns), N: 2, U: make([]float64, len(ns)),
			// Written in full, then read, as the learner's problems use
			// their buffers: goroutines sharing one would change the
			// results, not only upset the race detector.
			Resid: func(x, e []float64) {
				for i, n := range ns {
					pred[i] = x[0] * math.Exp(-x[1]*n)
				}
				for i, n := range ns {
					e[i] = pred[i] - 3*math.Exp(-n/2)
				}
			},
			Jac: func(x, j []float64) {
				for i, n := range ns {
					j[2*i], j[2*i+1] = math.Exp(-x[1]*n), -n*x[0]*math.Exp(-x[1]*n)
				}
			}}
	}
	var starts [][]float64
	for k := range 40 {
		starts = append(starts, []float64{float64(k%7) - 3, float64(k%5) - 1})
	}
	same := func(a, b []float64) bool { return math.Abs(a[0]-b[0])+math.Abs(a[1]-b[1]) < 1e-6 }
	one := Choose(starts, Fitter(newProb, 60), same, 1)
	for _, w := range []int{2, 3, 8, 64} {
		got := Choose(starts, Fitter(newProb, 60), same, w)
		if fmt.Sprint(got) != fmt.Sprint(one) {
			t.Fatalf("%d goroutines: %v, one goroutine: %v", w, got, one)
		}
	}
	if math.Abs(one.X[0]-3) > 1e-9 || math.Abs(one.X[1]-0.5) > 1e-9 {
		t.Fatalf("best fit %v, want [3 0.5]", one.X)
	}

	bad := func() Fit {
		return func(x []float64) ([]float64, float64) {
			if x[0] == 1 {
				panic("fit failed")
			}
			return x, 1
		}
	}
	for _, w := range []int{1, 4} {
		func() {
			defer func() {
				if p := recover(); p != "fit failed" {
					t.Errorf("%d goroutines: recovered %v, want the fit's panic", w, p)
				}
			}()
			Choose(starts, bad, same, w)
		}()
	}
}
