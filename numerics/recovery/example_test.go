package recovery_test

import (
	"fmt"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
)

// Learn recovers a random two-head layer of width 3 from the paper's
// 4Hd²−2H+1 = 69 value queries.
func ExampleLearn() {
	layer := attention.Random(2, 3, 7)
	opt := recovery.DefaultOptions(2, 3)
	res, err := recovery.Learn(recovery.LayerOracle(layer, 0, 1), opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	e, _ := attention.RelativeError(res.Layer, attention.Canonical(layer, 1e-12))
	fmt.Println("queries:", res.Queries, "of", recovery.PaperQueries(2, 3))
	fmt.Println("longest query:", res.MaxLength, "tokens")
	fmt.Println("heads:", len(res.Layer))
	fmt.Println("relative error below 1e-10:", e < 1e-10)
	// Output:
	// queries: 69 of 69
	// longest query: 5 tokens
	// heads: 2
	// relative error below 1e-10: true
}
