// Package experiment owns headlab's numerical experiments: for each, its
// parameters, seeds, ranges, the slicing of its work and the shape of its
// results. The page's compute worker, the figures (through RunFigure) and
// the figures command all run them from here, so what the canvas shows is
// what a figure exports, from the same numbers.
//
//   - recovery.go: a recovery run's set-up (the true layer, the learner's
//     options, the oracle's noise) and the run itself (Learn).
//   - sweep.go: the noise sweep (its ε range, its seeds, the scan over H,
//     the page's cost limit): change the sweep here and nowhere else.
//   - fit.go: the fewer-atoms fit of the Atom explosion scene.
//   - timing.go: the measured cost per query of split and fused W_d.
//   - general.go: the heads of general fusion, one random stream for the
//     scene and the figure, and the figure's merged counts (MergedCounts).
//   - transformer.go: a Transformer run (LearnTransformer) with its
//     held-out agreement and equivalence check.
//   - figure.go: the experiments a figure draws (Figure), run by RunFigure.
//   - job.go: one Job type naming an experiment and its parameters, run by
//     Run, and its Result; wire.go encodes both for the compute worker.
//
// The package is plain Go on numerics: no browser, no ebiten, no plotting.
// Every run is made in the compute worker (or natively), never on the
// canvas's thread; a Pacer paces it and lets its caller stop it.
package experiment
