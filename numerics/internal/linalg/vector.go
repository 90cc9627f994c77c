package linalg

// Dot returns Σ a_i b_i summed left to right, each product rounded before
// the addition. b must be at least as long as a.
func Dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s float64
	for i, x := range a {
		s += float64(x * b[i])
	}
	return s
}

// Axpy adds a·x to y in place, each product rounded before the addition.
// x must be at least as long as y.
func Axpy(y []float64, a float64, x []float64) {
	x = x[:len(y)]
	for i := range y {
		y[i] += float64(a * x[i])
	}
}
