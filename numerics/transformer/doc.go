// Package transformer learns a one-layer Transformer — multi-head softmax
// attention followed by a bias-free ReLU feed-forward network with a scalar
// output at the last token — from value queries alone, up to functional
// equivalence (Kim, Kim and Guo, "Provably Learning Multi-Head Attention
// with Queries", last result; the construction is numerics/MATH.md §3.7).
//
// The model (Network) has H heads (W_h ∈ R^{d×d}, V_h ∈ R^{d×m}) whose
// weighted token means φ_h(X) = Xᵀ softmax(X W_h x_N) give the attention
// output y = Σ_h V_hᵀ φ_h(X) ∈ R^m, and K units (a_k, b_k ∈ R^m):
// F(X) = Σ_k a_k ReLU(b_kᵀ y), optionally with a residual (y + x_N) and a
// linear readout (+ wᵀy). With U_k = (V_1 b_k, …, V_H b_k) the output is
// F = Σ_k a_k ReLU(U_k·φ(X)), and what queries can identify is the
// Canonical form: the canonical W_h and, per unit, the sign of a_k and
// η_k = |a_k| U_k, plus a linear term.
//
// Learn works in two phases. Phase A hands the odd part
// G(X) = F(X) − F(−X), a plain attention layer with values
// w_h = Σ_k a_k V_h b_k, to numerics/recovery (two oracle calls per
// answer). Phase B, with the W_h known, computes φ and finds the units from
// the pieces of the piecewise-linear F along one line of single tokens:
// local solves of Hd + 1 two-token queries give each piece's linear map,
// kinks are found recursively and confirmed by one query on each side, and
// the pieces' differences are folded into units by a subset sum. Every
// run checks the conditions C1–C4 of §3.7 and ends in a *ConditionError
// naming the one that fails rather than return a wrong network. All
// arithmetic is big.Float at the run's precision (the unit phase conditions
// like ε², about 40 significant digits), so native and GOOS=js runs give the
// same numbers bit for bit.
//
// Measured by cmd/measure on the 100 held-out networks of FamilyShape
// (d ∈ {2, 3}, H ∈ {1, 2}, m ∈ {d, d+1}, K ∈ 2…5), paper mode: phase A
// makes exactly 2·(the schedule's count) queries; the unit phase a median
// 2.6× (max 4.3×) the ideal (K+1)(Hd+1) queries, its local solves a median
// 1.17× (max 3×) the ideal K + 1 (the rest are two side queries and three
// hyperplane probes per kink and four self-checks). At the default step
// ε = 1e-6 every run succeeds from 120 bits (36 digits) up, held-out
// outputs within 4e-21; below that C4 stops every run. A run at
// (H, d, K) = (2, 3, 5) takes about 40 ms natively at 192 bits.
package transformer
