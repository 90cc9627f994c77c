// Command measure runs numerics/transformer's Learn over the family of
// random networks the tests use and reports what issue 12 asks to
// record: queries per phase against 2·(the schedule's count) and the
// ideal K + 1 local solves of Hd + 1 queries (median and max), the time
// per run for (H, d, K) = (2, 3, 5), and the smallest precision at which
// every run succeeds (Equivalent to the truth and agreeing on 200 held-out
// sequences to 1e-20 relative).
//
//	go run ./numerics/transformer/cmd/measure [-runs 100] [-seed 9100000] [-mode paper]
package main

import (
	"flag"
	"fmt"
	"log"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"headlab/numerics/recovery"
	"headlab/numerics/transformer"
)

func main() {
	runs := flag.Int("runs", 100, "networks of the family")
	seed := flag.Uint64("seed", 9_100_000, "seed of the first network (each run i uses seed+i)")
	mode := flag.String("mode", "paper", "phase A's schedule: paper or economy")
	precs := flag.String("precs", "96,104,112,120,128,144,160,192", "precisions (bits) to sweep")
	step := flag.Float64("step", 0, "local-solve step ε (0: the default)")
	timing := flag.Int("timing", 20, "runs timed at (H, d, K) = (2, 3, 5) and the larger sizes (0: none)")
	flag.Parse()
	log.SetFlags(0)
	m := recovery.Paper
	switch *mode {
	case "paper":
	case "economy":
		m = recovery.Economy
	default:
		log.Fatalf("measure: unknown mode %q", *mode)
	}
	var bits []uint
	for _, f := range strings.Split(*precs, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			log.Fatalf("measure: bad precision %q", f)
		}
		bits = append(bits, uint(b))
	}
	w := os.Stdout

	// Queries at the default precision.
	var headRatio, unitRatio, solveRatio []float64
	var headQ, unitQ []int
	parts := map[transformer.StepKind][]int{}
	ok, failed := 0, map[string]int{}
	for i := 0; i < *runs; i++ {
		r := run(i, *seed, m, transformer.DefaultPrecision, *step)
		if r.err != nil {
			failed[r.cond]++
			continue
		}
		ok++
		headQ = append(headQ, r.res.HeadQueries)
		unitQ = append(unitQ, r.res.UnitQueries)
		headRatio = append(headRatio, float64(r.res.HeadQueries)/float64(2*r.schedule))
		unitRatio = append(unitRatio, float64(r.res.UnitQueries)/float64(r.ideal))
		solveRatio = append(solveRatio, float64(len(r.res.Pieces))/float64(r.sh.Units+1))
		calls := map[transformer.StepKind]int{}
		for _, s := range r.res.Steps {
			calls[s.Kind] += s.Calls
		}
		for _, k := range []transformer.StepKind{transformer.Probe, transformer.Side, transformer.HyperplaneProbe, transformer.SelfCheck} {
			parts[k] = append(parts[k], calls[k])
		}
	}
	fmt.Fprintf(w, "%d networks of the family from seed %d, %s mode, %d bits: %d recovered, errors %v\n",
		*runs, *seed, m, transformer.DefaultPrecision, ok, failed)
	fmt.Fprintf(w, "  head queries          median %d, max %d; ÷ 2·schedule: median %.3f, max %.3f\n", median(headQ), slices.Max(headQ), medianF(headRatio), slices.Max(headRatio))
	fmt.Fprintf(w, "  unit queries          median %d, max %d; ÷ ideal (K+1)(Hd+1): median %.2f, max %.2f\n", median(unitQ), slices.Max(unitQ), medianF(unitRatio), slices.Max(unitRatio))
	fmt.Fprintf(w, "  local solves ÷ (K+1)  median %.2f, max %.2f\n", medianF(solveRatio), slices.Max(solveRatio))
	for _, k := range []transformer.StepKind{transformer.Probe, transformer.Side, transformer.HyperplaneProbe, transformer.SelfCheck} {
		fmt.Fprintf(w, "  unit queries in %-17s median %d, max %d\n", k.String()+"s", median(parts[k]), slices.Max(parts[k]))
	}

	// Time per run at (H, d, K) = (2, 3, 5), m = 3 and 4, and at larger
	// sizes for choosing a scene's limits.
	for _, sh := range []transformer.Shape{
		{Heads: 2, Width: 3, Dim: 3, Units: 5},
		{Heads: 2, Width: 3, Dim: 4, Units: 5},
		{Heads: 3, Width: 4, Dim: 6, Units: 8},
		{Heads: 4, Width: 6, Dim: 8, Units: 12},
	} {
		var times []time.Duration
		var q []int
		fails := 0
		for i := 0; i < *timing; i++ {
			n, err := transformer.Random(sh, *seed+uint64(1000+i))
			if err != nil {
				log.Fatal(err)
			}
			o, err := transformer.NewOracle(n, transformer.DefaultPrecision)
			if err != nil {
				log.Fatal(err)
			}
			opt := transformer.DefaultOptions(sh.Heads, sh.Width)
			opt.Mode, opt.Seed, opt.Step = m, *seed+uint64(1000+i), *step
			start := time.Now()
			res, err := transformer.Learn(o.Query, opt)
			times = append(times, time.Since(start))
			if err == nil {
				q = append(q, res.Queries)
			} else {
				fails++
			}
		}
		if len(times) == 0 {
			break // -timing 0: no runs timed
		}
		slices.Sort(times)
		fmt.Fprintf(w, "time per run, (H, d, m, K) = (%d, %d, %d, %d), %d bits, %d runs: median %v, max %v (queries median %d, %d errors)\n",
			sh.Heads, sh.Width, sh.Dim, sh.Units, transformer.DefaultPrecision, *timing, times[len(times)/2].Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond), median(q), fails)
	}

	// The smallest precision at which every run succeeds.
	for _, b := range bits {
		ok, wrong := 0, 0
		failed := map[string]int{}
		var worst float64
		for i := 0; i < *runs; i++ {
			r := run(i, *seed, m, b, *step)
			switch {
			case r.err != nil:
				failed[r.cond]++
			case r.good:
				ok++
				worst = max(worst, r.agree)
			default:
				wrong++
			}
		}
		fmt.Fprintf(w, "%4d bits (%.1f digits): %d of %d recovered (largest held-out |ΔF| %.2g), %d wrong, errors %v\n",
			b, float64(b)*0.30103, ok, *runs, worst, wrong, failed)
	}
}

type outcome struct {
	sh              transformer.Shape
	res             transformer.Result
	err             error
	cond            string
	good            bool
	agree           float64
	schedule, ideal int
}

// run learns network i of the family at prec bits and checks it against
// the truth.
func run(i int, seed uint64, m recovery.Mode, prec uint, step float64) outcome {
	sh := transformer.FamilyShape(i)
	n, err := transformer.Random(sh, seed+uint64(i))
	if err != nil {
		log.Fatal(err)
	}
	o, err := transformer.NewOracle(n, prec)
	if err != nil {
		log.Fatal(err)
	}
	opt := transformer.DefaultOptions(sh.Heads, sh.Width)
	opt.Mode, opt.Seed, opt.Precision, opt.Step = m, seed+uint64(i), prec, step
	res, err := transformer.Learn(o.Query, opt)
	out := outcome{sh: sh, res: res, err: err, cond: transformer.FailedCondition(err),
		ideal: transformer.IdealUnitQueries(sh.Heads, sh.Width, sh.Units)}
	out.schedule = recovery.PaperQueries(sh.Heads, sh.Width)
	if m == recovery.Economy {
		out.schedule = recovery.EconomyQueries(sh.Heads, sh.Width)
	}
	if err != nil {
		if out.cond == "" {
			out.cond = "other"
		}
		return out
	}
	exact := func(X [][]*big.Float) *big.Float {
		y, _ := o.Eval(X)
		return y
	}
	out.agree = transformer.Agreement(exact, res.Net.Func(prec), sh.Width, 77, 200, 6, prec)
	out.good = transformer.Equivalent(n.Canonical(prec), res.Net, 1e-20) == nil && out.agree <= 1e-20
	return out
}

func median(x []int) int {
	if len(x) == 0 {
		return 0
	}
	y := slices.Clone(x)
	slices.Sort(y)
	return y[len(y)/2]
}

func medianF(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	y := slices.Clone(x)
	slices.Sort(y)
	return y[len(y)/2]
}
