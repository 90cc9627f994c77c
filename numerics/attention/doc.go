// Package attention is the multi-head softmax attention layer studied by
// both of headlab's papers: heads (W, v) whose independently normalised
// outputs are summed, and the canonical form in which heads are identifiable.
//
// The maths is in numerics/MATH.md §1. A sequence is a matrix whose rows
// are tokens; its last row is the query x_N. Head h scores token x_i by
// x_iᵀ W_h x_N, takes a stable softmax of the scores and returns the weighted
// mean of the values v_h·x_i.
package attention
