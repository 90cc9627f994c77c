// Package fusion holds heads written as explicit atoms and the exact fusion
// of several heads into one: the product construction with exact merging of
// identical keys, the W_d family whose d two-atom heads fuse into 2^d atoms,
// closed-form atom counts, and a numerical experiment fitting fewer atoms.
//
// The maths is in numerics/MATH.md §2. A head is a function of the
// query q given by its atoms (k_i, b_i, u_i):
//
//	y(q) = Σ_i exp(q·k_i + b_i) u_i / Σ_i exp(q·k_i + b_i),
//
// and the sum of H heads is one head whose atoms are indexed by tuples
// (key, bias and value summed over the tuple). For W_d(q) = Σ_j σ(q_j) this
// turns 2d head-atom terms into 2^d atoms.
//
// Every result is reproducible bit for bit across platforms: the package
// evaluates exp and log with its own portable code (the amd64 assembly in
// package math rounds differently from the pure Go used under GOOS=js),
// never lets the compiler fuse a multiply and an add, and iterates in a
// fixed order.
//
// Sizes are bounded before anything is allocated: building more than
// MaxAtoms atoms, or more than MaxKeyEntries key entries, is refused with a
// *LimitError. The counts themselves (Π m_h, C(m+H−1, H), 2^d) are exact
// big integers, so curves reach any d without building anything.
package fusion
