// Package replay replays a recorded run step by step: what a recovery
// trace shows after k queries (the rational function of query k−1 and
// the samples made), and what a run of transformer.Learn has made by its
// k-th recorded step (the phase, the counters, the marks and pieces on
// the line of single tokens, the units matched to the true ones).
//
// The canvas's scenes (wasm/scene) and the figures (plots) both read it,
// so that a figure exported at a step shows what the canvas shows there.
// It draws nothing: no ebiten, no plotting (MATH.md §3, §3.7).
package replay
