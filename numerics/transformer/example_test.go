package transformer_test

import (
	"fmt"

	"headlab/numerics/transformer"
)

// Learn recovers a random one-layer Transformer — two heads of width 3,
// four ReLU units — from value queries, up to equivalence.
func ExampleLearn() {
	shape := transformer.Shape{Heads: 2, Width: 3, Dim: 3, Units: 4}
	net, err := transformer.Random(shape, 7)
	if err != nil {
		fmt.Println(err)
		return
	}
	oracle, err := transformer.NewOracle(net, transformer.DefaultPrecision)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := transformer.Learn(oracle.Query, transformer.DefaultOptions(2, 3))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("heads:", len(res.Net.Heads), "units:", len(res.Net.Units))
	fmt.Println("head queries:", res.HeadQueries, "= 2 ×", res.HeadQueries/2)
	fmt.Println("equivalent:", transformer.Equivalent(net.Canonical(transformer.DefaultPrecision), res.Net, 1e-20) == nil)
	for _, c := range res.Conditions {
		fmt.Println(c.Name, c.Holds)
	}
	// Output:
	// heads: 2 units: 4
	// head queries: 138 = 2 × 69
	// equivalent: true
	// C1 true
	// C2 true
	// C3 true
	// C4 true
}
