package recovery_test

import (
	"context"
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

// Recover makes the same run through a black box, which answers batches of
// queries as another process or an HTTP API would (package remote); here
// the in-process Layer. Frugal mode asks fewer queries than the paper's
// schedule, 2H(2d−1)+1+(H+1)(d²−d) when nothing falls back.
func ExampleRecover() {
	layer := attention.Random(2, 4, 3)
	opt := recovery.DefaultOptions(2, 4)
	opt.Mode = recovery.Frugal
	res, err := recovery.Recover(context.Background(), recovery.Layer(layer), opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	e, _ := attention.RelativeError(res.Layer, attention.Canonical(layer, 1e-12))
	fmt.Println("queries:", res.Queries, "of the paper's", recovery.PaperQueries(2, 4))
	fmt.Println("relative error below 1e-10:", e < 1e-10)
	// Output:
	// queries: 65 of the paper's 125
	// relative error below 1e-10: true
}

// LearnBig makes the run in extended precision, where float64 cannot
// separate the poles: six heads, at the precision NeededPrecision offers.
func ExampleLearnBig() {
	layer := attention.Random(6, 2, 1)
	opt := recovery.DefaultOptions(6, 2)
	opt.Precision = recovery.NeededPrecision(6, 2, opt.Mode)
	res, err := recovery.LearnBig(recovery.BigLayerOracle(layer, opt.Precision), opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	e, _ := attention.RelativeError(res.Layer, attention.Canonical(layer, 1e-12))
	fmt.Println("precision:", opt.Precision, "bits")
	fmt.Println("heads:", len(res.Layer))
	fmt.Println("relative error below 1e-12:", e < 1e-12)
	// Output:
	// precision: 224 bits
	// heads: 6
	// relative error below 1e-12: true
}
