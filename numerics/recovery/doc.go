// Package recovery learns the canonical heads of a multi-head softmax
// attention layer from a black box that answers value queries: the learner
// sends token sequences, the oracle returns the layer's scalar output at the
// last token (Kim, Kim and Guo, "Provably Learning Multi-Head Attention with
// Queries"). numerics/MATH.md §3 is the algorithm, §4 its numerics; this
// package follows them step by step.
//
// # Entry points
//
//   - Learn(oracle, Options) makes a run in float64 against a function of
//     the tokens (LayerOracle for a known layer); LearnBig the same run in
//     extended precision (Options.Precision bits, BigLayerOracle).
//     NeededPrecision says which precision a size needs (ACCURACY.md).
//   - Recover(ctx, BlackBox, Options) makes the run through a layer one
//     cannot open (another process, an HTTP API: package remote): batches
//     of Requests, a context, an error. PlannedBatch is its first batch,
//     the schedule's fixed queries; with Options.Calibrate it first reads
//     the layer's scale (Calibrate).
//   - LearnPaused, LearnBigPaused and RecoverPaused make the same runs
//     calling a Pause at every checkpoint with the run's Progress, for a
//     caller that must keep drawing while it computes; the numbers are the
//     same bits.
//   - Options.Mode chooses the schedule (Paper, Economy, Frugal; ParseMode
//     reads a name), and the query counts are PaperQueries,
//     EconomyQueries, FrugalQueries and BiasQueries.
//
// A Result holds the canonical layer with its self-check and the Trace of
// every query and rational function. A run the numbers cannot resolve ends
// in an *Error naming the rational function and the queries at fault,
// never in a silently wrong layer: every result, the empty layer too, is
// checked against every answer it was learned from.
//
// # Map of the files
//
// learn.go is the top of the package: the entry points above, and below
// them the algorithm in one screen, learner.run: the schedule's queries,
// the fits of the RFs on z_1, the measurements of the other columns, the
// solve for the heads and its check (MATH.md §3).
//
//   - The schedules, one interface (schedule.go: schedule, askFixed) and
//     an implementation a file: paper.go (§3.3), economy.go and frugal.go
//     (§3.4). Frugal's ladders, as lists of steps: frugal_ladder.go; the
//     float64 pole searches: frugal_float.go over internal/polefit;
//     extended precision's polish: frugal_big.go; the line family:
//     frugal_line.go.
//   - The precisions, one interface (pipeline, learn.go) and two
//     implementations: float.go (float64: joint fits and the global fit of
//     §4) over first.go and link.go (column one through its links),
//     columns.go and known.go (the other columns, labelled by the known
//     values), model.go (the heads in the learner's coordinates), lm.go
//     and normal.go (the global fit), internal/lsq (small fits and robust
//     linear solves), internal/label (choosing among labellings); plain.go
//     (extended precision: every RF on its own) over ext.go and big.go (the
//     numbers and oracles at the working precision).
//   - The run's bookkeeping: schedule.go (the learner, its queries, its
//     checkpoints and the trace), rf.go (an RF's fit), check.go (the
//     heads, their self-check, the trace relabelled), run.go (Pause and
//     Progress), trace.go (the Result, Trace and Calibration), options.go
//     (Options, their limits, Mode and the counts), precision.go (the
//     precision a size needs).
//   - The black box: oracle.go (Oracle, LayerOracle), blackbox.go
//     (BlackBox, its requests and answers, the in-process Layer),
//     calibrate.go (the layer's scale).
package recovery
