package rational_test

import (
	"fmt"

	"headlab/numerics/rational"
)

// Fit recovers F(n) = 2 + 3/(n+0.5) − 1/(n+4) from its values at
// n = 0, …, 4 (2H+1 samples for H = 2 poles).
func ExampleFit() {
	var n, f []float64
	for k := 0.0; k <= 4; k++ {
		n = append(n, k)
		f = append(f, 2+3/(k+0.5)-1/(k+4))
	}
	fit, err := rational.Fit(n, f, rational.Options{Poles: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("C = %.6f\n", fit.C)
	for h, rho := range fit.Poles {
		fmt.Printf("pole at n = %.6f, residue %.6f\n", -rho, fit.Residues[h])
	}
	fmt.Printf("F(10) = %.6f\n", fit.Eval(10))
	// Output:
	// C = 2.000000
	// pole at n = -0.500000, residue 3.000000
	// pole at n = -4.000000, residue -1.000000
	// F(10) = 2.214286
}
