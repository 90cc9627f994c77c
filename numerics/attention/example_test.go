package attention_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
)

// Two heads that share W act as one head with the summed v.
func ExampleCanonical() {
	w := mat.NewDense(2, 2, []float64{1, 0, 0, -1})
	l := attention.Layer{
		{W: w, V: mat.NewVecDense(2, []float64{1, 2})},
		{W: w, V: mat.NewVecDense(2, []float64{0.5, -2})},
	}
	c := attention.Canonical(l, 1e-12)
	X := mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0.5, 0.5})
	fmt.Printf("%d head, v = %v, outputs %.6f and %.6f\n", len(c), c[0].V.RawVector().Data, l.Output(X), c.Output(X))
	// Output: 1 head, v = [1.5 0], outputs 0.990118 and 0.990118
}
