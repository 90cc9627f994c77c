package fusion_test

import (
	"fmt"
	"log"

	"headlab/numerics/fusion"
)

// Example fuses the d = 3 two-atom heads of W_3(q) = Σ σ(q_j) into one head
// and compares the atom counts and outputs.
func Example() {
	const d = 3
	heads, err := fusion.SigmoidSum(d)
	if err != nil {
		log.Fatal(err)
	}
	fused, err := fusion.Fuse(heads...)
	if err != nil {
		log.Fatal(err)
	}
	terms, _ := fusion.TermCount(fusion.Sizes(heads...)...)
	fmt.Printf("%d heads, %v head-atom terms; fused: %d atoms\n", len(heads), terms, len(fused))

	q := []float64{0.5, -1, 2}
	fmt.Printf("split %.12f\nfused %.12f\nΣσ    %.12f\n",
		fusion.SplitOutput(heads, q), fused.Output(q), fusion.SigmoidSumValue(q))

	for _, m := range []int{2, 4, 8} {
		shared, _ := fusion.SharedKeyCount(m, 4)
		bound, _ := fusion.ProductCount(m, m, m, m)
		fmt.Printf("4 heads sharing %d keys: %v atoms after merging, product bound %v\n", m, shared, bound)
	}
	// Output:
	// 3 heads, 6 head-atom terms; fused: 8 atoms
	// split 1.772197830550
	// fused 1.772197830550
	// Σσ    1.772197830550
	// 4 heads sharing 2 keys: 5 atoms after merging, product bound 16
	// 4 heads sharing 4 keys: 35 atoms after merging, product bound 256
	// 4 heads sharing 8 keys: 330 atoms after merging, product bound 4096
}

// ExampleFitFewer runs the fewer-atoms experiment for W_2: four atoms fit
// exactly, three do not (in this run; it is an experiment, not a proof).
func ExampleFitFewer() {
	opt := fusion.DefaultFitOptions()
	opt.Restarts, opt.Train, opt.Test = 2, 200, 400
	for _, k := range []int{3, 4} {
		r, err := fusion.FitFewer(2, k, opt)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("k = %d: held-out RMS error below 1e-6: %v\n", k, r.TestRMS < 1e-6)
	}
	// Output:
	// k = 3: held-out RMS error below 1e-6: false
	// k = 4: held-out RMS error below 1e-6: true
}
