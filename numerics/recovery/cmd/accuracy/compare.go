package main

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"headlab/numerics/recovery"
)

// compareTable prints, per H, d and precision, one row per mode: how many
// of the seeds held-out layers resolved, how many came back wrong without
// an error (above 1e-3: must be 0), the median error in the working
// precision, the mode's query count when nothing falls back and the
// runs' mean actual count (with the measurements that fell back, frugal
// mode), its ratio to the information bound H(d²+d), and the time per
// run. Precision 0 is float64; larger precisions in bits run LearnBig.
func compareTable(w io.Writer, H, D []int, M []recovery.Mode, precs []int, seeds, jobs int) {
	fmt.Fprintf(w, "Modes compared on %d held-out random layers per cell (layer seeds 1000000+s, learner seed s).\n\n", seeds)
	fmt.Fprintln(w, "| H | d | precision | mode | resolved | wrong, unflagged | median err | queries (formula) | queries (mean actual) | fell back | ratio to bound | ms/run |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, p := range precs {
		for _, h := range H {
			for _, d := range D {
				for _, m := range M {
					fmt.Fprintln(w, compareCell(h, d, m, uint(p), seeds, jobs))
				}
			}
		}
	}
}

type compared struct {
	err      float64 // NaN when unresolved
	flagged  bool
	queries  int
	fellBack int
	elapsed  time.Duration
}

func compareCell(H, d int, m recovery.Mode, prec uint, seeds, jobs int) string {
	out := make([]compared, seeds)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < max(1, jobs); w++ {
		wg.Go(func() {
			for s := range next {
				out[s] = compareRun(H, d, m, prec, s)
			}
		})
	}
	for s := 0; s < seeds; s++ {
		next <- s
	}
	close(next)
	wg.Wait()
	var errs []float64
	var resolved, wrong, queries, fell int
	var elapsed time.Duration
	for _, o := range out {
		queries += o.queries
		fell += o.fellBack
		elapsed += o.elapsed
		switch {
		case o.flagged:
		case !(o.err <= 1e-3):
			wrong++
		default:
			resolved++
			errs = append(errs, o.err)
		}
	}
	sort.Float64s(errs)
	med := "–"
	if len(errs) > 0 {
		med = fmt.Sprintf("%.1e", errs[len(errs)/2])
	}
	precName := "float64"
	if prec > 0 {
		precName = fmt.Sprintf("%d bits", prec)
	}
	mean := float64(queries) / float64(seeds)
	return fmt.Sprintf("| %d | %d | %s | %v | %d/%d | %d | %s | %d | %.1f | %d | %.2f | %.1f |",
		H, d, precName, m, resolved, seeds, wrong, med, m.Queries(H, d), mean, fell,
		mean/float64(recovery.InformationBound(H, d)), 1e3*elapsed.Seconds()/float64(seeds))
}

func compareRun(H, d int, m recovery.Mode, prec uint, s int) compared {
	res, e, flagged, elapsed := heldOutRun(H, d, m, prec, s)
	return compared{queries: res.Queries, fellBack: res.Fallbacks, elapsed: elapsed, flagged: flagged, err: e}
}
