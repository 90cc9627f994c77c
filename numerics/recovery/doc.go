// Package recovery learns the canonical heads of a multi-head softmax
// attention layer from a black box that answers value queries: the learner
// sends token sequences, the oracle returns the layer's scalar output at the
// last token (Kim, Kim and Guo, "Provably Learning Multi-Head Attention with Queries"; numerics/MATH.md §3).
//
// The learner sends n copies of a token a followed by a query token z, for
// n = 0…2H. The answers are a rational function of n whose poles −ρ_h and
// residues reveal one linear measurement of every W_h and v_h (MATH.md
// §3.1). Learn follows the paper's schedule of 4Hd²−2H+1 queries (Paper) or
// a cheaper one that labels heads by their value fingerprints (Economy,
// §3.4), or one that gives every measurement after column one only H+1
// samples, its values being known (Frugal, §3.4: near the information
// bound, falling back to economy's samples where the poles stay
// undecided), fits every rational function with package rational, matches poles
// to heads, and finishes with a global weighted least-squares fit of all
// (W_h, v_h) to every raw answer, whose residual is the run's self-check
// (§4). A run the float64 numbers cannot resolve ends in an error naming the
// rational function and the queries at fault, never in a silently wrong
// layer; every result, the empty layer too, is checked against every
// answer it was learned from. LearnPaused makes the same run calling a
// Pause at every checkpoint, with its progress, for a caller that must
// keep drawing while it computes.
//
// Recover makes the run through a BlackBox, the oracle of a layer one
// cannot open (another process, an HTTP API: package remote): a context,
// batches of Requests, an error. The fixed part of the schedule goes out
// as one batch. With Options.Calibrate it first reads the layer's scale
// (Calibrate) and chooses the spread of its queries, for layers whose
// weights are not of the reference size 1/√d, such as a framework's.
//
// Float64 stops near H = 5 (the RFs condition like Cauchy matrices, §4).
// LearnBig makes the same run in extended precision
// (Options.Precision bits of math/big, up to MaxHeadsExtended heads): the
// same schedule, trace and checks, with the plain pipeline of §3.3 at the
// working precision (linear RF fits, labels by assignment, P_h and r_h read
// off the measurements, no global fit), the oracle evaluated at that
// precision too (BigLayerOracle). NeededPrecision says which precision a
// size needs, from the measurement of cmd/accuracy -digits (ACCURACY.md).
package recovery
