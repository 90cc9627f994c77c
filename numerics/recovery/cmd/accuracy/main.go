// Command accuracy measures how accurately recovery.Learn recovers random
// attention layers from an exact float64 oracle, and prints a Markdown
// table: for every H, d and mode, the median and 90th percentile relative
// error of the canonical parameters over the resolved runs, the fraction of
// runs flagged unresolvable, the runs that returned a wrong layer without a
// flag (there should be none), and the queries used against the paper's
// count, economy's count and the information bound (MATH.md §3.3–3.4, §4).
//
//	go run ./numerics/recovery/cmd/accuracy -H 1,2,3 -d 2,4,8 -seeds 50
//
// With -digits it measures instead, per H, d and mode, the smallest
// precision (float64, then the -precisions in bits) at which every run
// resolves with an error of at most -target in the working precision:
//
//	go run ./numerics/recovery/cmd/accuracy -digits -H 1,2,3,4,5,6,7,8,9,10,11,12 -d 1,2,4 -seeds 20 -j 2
//
// Layers come from attention.Random with seeds 1000000+s (held out from the
// tests), the learner's bases from seed s.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && (args[0] == "-doc" || args[0] == "--doc") {
		if err := writeDoc(args[1:]); err != nil {
			fail(err)
		}
		return
	}
	if err := measure(args, os.Stdout); err != nil {
		fail(err)
	}
}

// measure makes the table the command line args ask for, writing it to w.
func measure(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("accuracy", flag.ContinueOnError)
	hs := fs.String("H", "1,2,3,4,5,6", "comma-separated numbers of heads")
	ds := fs.String("d", "2,4,8,16", "comma-separated token widths")
	modes := fs.String("modes", "paper,economy", "comma-separated modes")
	seeds := fs.Int("seeds", 50, "random layers per cell")
	noise := fs.Float64("noise", 0, "relative oracle noise ε (0: exact float64)")
	jobs := fs.Int("j", 1, "runs in parallel")
	budget := fs.Duration("budget", 0, "stop a cell's remaining seeds after this long (0: no limit)")
	extra := fs.Int("bound", 0, "if > 0, give the learner only the upper bound H0 = H + bound")
	digits := fs.Bool("digits", false, "measure the smallest precision at which every run resolves (see digits.go)")
	precs := fs.String("precisions", "0,128,192,256,384,512,768,1024", "with -digits: the precisions tried, in bits (0: float64)")
	target := fs.Float64("target", 1e-12, "with -digits: the largest relative error that counts as resolved")
	compare := fs.Bool("compare", false, "compare the modes' queries and accuracy at the -precisions given (see compare.go)")
	scales := fs.String("scales", "", "measure calibration (Options.Calibrate) on layers scaled by these factors (see scale.go)")
	torch := fs.Bool("torch", false, "measure torch layers through the recover command, cells (H[i], d[i]) (see torch.go; needs /usr/bin/python3 with torch)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	H, err := ints(*hs)
	if err != nil {
		return err
	}
	D, err := ints(*ds)
	if err != nil {
		return err
	}
	var M []recovery.Mode
	for _, m := range strings.Split(*modes, ",") {
		mode, err := recovery.ParseMode(strings.TrimSpace(m))
		if err != nil {
			return err
		}
		M = append(M, mode)
	}
	switch {
	case *torch:
		root, err := moduleRoot()
		if err != nil {
			return err
		}
		tmp, err := os.MkdirTemp("", "accuracy")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		bin, err := buildRecover(root, tmp)
		if err != nil {
			return err
		}
		return torchTable(w, H, D, M, *seeds, bin, root)
	case *scales != "":
		S, err := floats(*scales)
		if err != nil {
			return err
		}
		scaleTable(w, H, D, S, *seeds)
		return nil
	case *compare:
		P, err := ints(*precs)
		if err != nil {
			return err
		}
		compareTable(w, H, D, M, P, *seeds, *jobs)
		return nil
	case *digits:
		P, err := ints(*precs)
		if err != nil {
			return err
		}
		digitsTable(w, H, D, M, P, *seeds, *jobs, *target)
		return nil
	}
	fmt.Fprintf(w, "Recovery accuracy in float64, %d random layers per cell, oracle noise ε = %g", *seeds, *noise)
	head := "| H | d | mode | median err | p90 err | unresolved | wrong, unflagged | queries | paper | economy | info bound | ms/run |"
	rule := "|---|---|---|---|---|---|---|---|---|---|---|---|"
	if *extra > 0 {
		fmt.Fprintf(w, ", only the bound H0 = H+%d known (paper and economy counts for H0)", *extra)
		head += " H found |"
		rule += "---|"
	}
	fmt.Fprint(w, ".\n\n")
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for _, h := range H {
		for _, d := range D {
			for _, m := range M {
				fmt.Fprintln(w, cell(h, d, m, *seeds, *noise, *jobs, *budget, *extra))
			}
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Errors are max(|ΔW|_∞/|W|_∞, |Δv|_max/|v|_max) (|·|_∞ the largest absolute row sum) under the best pairing of heads, over the")
	fmt.Fprintln(w, "resolved runs; 'unresolved' runs ended in a recovery.Error (a fit float64 cannot resolve, or the")
	fmt.Fprintln(w, "self-check); 'wrong, unflagged' counts runs returned as results with an error above 1e-3.")
	return nil
}

type outcome struct {
	heads   int     // canonical heads found
	err     float64 // relative error, or NaN when unresolved
	wrong   bool
	queries int
	ran     bool
	elapsed time.Duration
}

func cell(H, d int, mode recovery.Mode, seeds int, noise float64, jobs int, budget time.Duration, extra int) string {
	out := make([]outcome, seeds)
	start := time.Now()
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < max(1, jobs); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				out[s] = run(H, d, mode, s, noise, extra)
			}
		}()
	}
	for s := 0; s < seeds; s++ {
		if budget > 0 && time.Since(start) > budget {
			break
		}
		next <- s
	}
	close(next)
	wg.Wait()
	var errs []float64
	var runs, unresolved, wrong, queries, count int
	var elapsed time.Duration
	for _, o := range out {
		if !o.ran {
			continue
		}
		runs++
		queries += o.queries
		if o.heads == H {
			count++
		}
		elapsed += o.elapsed
		switch {
		case math.IsNaN(o.err):
			unresolved++
		case o.wrong:
			wrong++
		default:
			errs = append(errs, o.err)
		}
	}
	sort.Float64s(errs)
	med, p90 := "–", "–"
	if len(errs) > 0 {
		med = fmt.Sprintf("%.1e", errs[len(errs)/2])
		p90 = fmt.Sprintf("%.1e", errs[min(len(errs)-1, int(math.Ceil(0.9*float64(len(errs))))-1)])
	}
	q := "–"
	ms := "–"
	if runs > 0 {
		q = strconv.FormatFloat(float64(queries)/float64(runs), 'f', 1, 64)
		if queries%runs == 0 {
			q = strconv.Itoa(queries / runs)
		}
		ms = fmt.Sprintf("%.0f", float64(elapsed.Milliseconds())/float64(runs))
	}
	frac := "–"
	if runs > 0 {
		frac = fmt.Sprintf("%d/%d", unresolved, runs)
	}
	h0 := H + extra
	heads := ""
	if extra > 0 {
		heads = fmt.Sprintf(" | %d/%d", count, runs)
	}
	return fmt.Sprintf("| %d | %d | %v | %s | %s | %s | %d | %s | %d | %d | %d | %s%s |",
		H, d, mode, med, p90, frac, wrong, q,
		recovery.PaperQueries(h0, d), recovery.EconomyQueries(h0, d), recovery.InformationBound(H, d), ms, heads)
}

func run(H, d int, mode recovery.Mode, s int, noise float64, extra int) outcome {
	layer := attention.Random(H, d, uint64(1000000+s))
	opt := recovery.DefaultOptions(H+extra, d)
	opt.UpperBound = extra > 0
	opt.Mode = mode
	opt.Seed = uint64(s)
	opt.Tolerance = noise
	t0 := time.Now()
	res, err := recovery.Learn(recovery.LayerOracle(layer, noise, uint64(s)), opt)
	o := outcome{ran: true, queries: res.Queries, elapsed: time.Since(t0), heads: res.Heads}
	if err != nil {
		var e *recovery.Error
		if !errors.As(err, &e) {
			fail(err)
		}
		o.err = math.NaN()
		return o
	}
	e, cerr := attention.RelativeError(res.Layer, attention.Canonical(layer, 1e-12))
	o.err = e
	o.wrong = cerr != nil || !(e <= 1e-3)
	return o
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func floats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "accuracy:", err)
	os.Exit(1)
}
