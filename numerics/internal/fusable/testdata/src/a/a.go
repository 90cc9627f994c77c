package a

import "math"

func sums(a, b, c float64, n int, xs []float64) float64 {
	x := a*b + c           // want `float64\(a \* b\)`
	x = c - a*b            // want `float64\(a \* b\)`
	x += a * b             // want `float64\(a \* b\)`
	x -= (a * b)           // want `float64\(a \* b\)`
	x = float64(a*b) + c   // converted: not fused
	x += float64(a * b)    // converted
	x = 2*a + c            // a power of two: exact
	x = a*0.5 - c          // a power of two: exact
	x = 3*a + c            // want `float64\(3 \* a\)`
	x = a * b * c          // no sum
	x = math.Sqrt(a*a) + c // the product feeds a call, not the sum
	m := n*n + n           // integers do not fuse
	_ = m
	for _, v := range xs {
		x += v * v // want `float64\(v \* v\)`
	}
	return x
}
