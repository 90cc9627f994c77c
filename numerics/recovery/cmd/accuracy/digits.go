package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
	"sync"
	"time"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
)

// digitsTable prints, per H, d and mode, the smallest precision of precs
// at which every one of the seeds runs resolves with an error of at most
// target in the working precision, and a summary line for the code's table
// (recovery's neededBits). A precision is abandoned at its first run that
// fails (in seed order), so the cost is mostly that of the precision that
// succeeds.
func digitsTable(w io.Writer, H, D []int, M []recovery.Mode, precs []int, seeds, jobs int, target float64) {
	fmt.Fprintf(w, "Smallest precision at which all %d held-out random layers resolve with relative error ≤ %g\n", seeds, target)
	fmt.Fprintf(w, "(error measured in the working precision; tried: %s bits, 0 = float64).\n\n", strings.Trim(fmt.Sprint(precs), "[]"))
	head := "| H | d |"
	rule := "|---|---|"
	for _, m := range M {
		head += fmt.Sprintf(" %v | max err | s/run |", m)
		rule += "---|---|---|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	wrong, total := 0, 0
	table := make(map[recovery.Mode]map[int][]int) // mode → d → bits per H
	for _, d := range D {
		for _, h := range H {
			row := fmt.Sprintf("| %d | %d |", h, d)
			for _, m := range M {
				bits, worst, per, w, n := smallest(h, d, m, precs, seeds, jobs, target)
				wrong += w
				total += n
				if table[m] == nil {
					table[m] = make(map[int][]int)
				}
				table[m][d] = append(table[m][d], bits)
				name := "float64"
				switch {
				case bits < 0:
					name = fmt.Sprintf("> %d", precs[len(precs)-1])
				case bits > 0:
					name = fmt.Sprintf("%d (%d digits)", bits, int(float64(bits)*math.Log10(2)))
				}
				row += fmt.Sprintf(" %s | %.1e | %.2f |", name, worst, per.Seconds())
			}
			fmt.Fprintln(w, row)
		}
	}
	fmt.Fprintf(w, "\n%d runs in all, %d returned a wrong layer (error above 1e-3) without an error.\n\n", total, wrong)
	for _, m := range M {
		for _, d := range D {
			fmt.Fprintf(w, "    %v d=%d H=%v: %v\n", m, d, strings.Trim(fmt.Sprint(H), "[]"), table[m][d])
		}
	}
}

// smallest returns the smallest precision (0 for float64, −1 if none)
// at which all seeds resolve to target, the largest error there, the
// mean time per run there, and the wrong unflagged runs among all runs
// made and the number of runs.
func smallest(H, d int, mode recovery.Mode, precs []int, seeds, jobs int, target float64) (bits int, worst float64, per time.Duration, wrong, runs int) {
	for _, p := range precs {
		if (p == 0 && H > recovery.MaxHeads) || (p > 0 && H > recovery.MaxHeadsExtended) {
			continue
		}
		ok, w, tw, elapsed, n := tryPrecision(H, d, mode, uint(p), seeds, jobs, target)
		wrong += w
		runs += n
		if ok {
			return p, tw, elapsed / time.Duration(max(1, n)), wrong, runs
		}
	}
	return -1, math.NaN(), 0, wrong, runs
}

// tryPrecision runs the seeds at one precision, in order, stopping at
// the first run that does not resolve to target.
func tryPrecision(H, d int, mode recovery.Mode, prec uint, seeds, jobs int, target float64) (ok bool, wrong int, worst float64, elapsed time.Duration, runs int) {
	var mu sync.Mutex
	failed := false
	var wg sync.WaitGroup
	next := make(chan int)
	t0 := time.Now()
	for w := 0; w < max(1, jobs); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				e, flagged := runPrecision(H, d, mode, prec, s)
				mu.Lock()
				runs++
				if !flagged && !(e <= 1e-3) {
					wrong++
				}
				if flagged || !(e <= target) {
					failed = true
				}
				worst = math.Max(worst, e)
				mu.Unlock()
			}
		}()
	}
	for s := 0; s < seeds; s++ {
		mu.Lock()
		f := failed
		mu.Unlock()
		if f {
			break
		}
		next <- s
	}
	close(next)
	wg.Wait()
	return !failed, wrong, worst, time.Since(t0) * time.Duration(max(1, jobs)), runs
}

// runPrecision makes one run and returns its error in the working
// precision and whether it ended in a recovery.Error.
func runPrecision(H, d int, mode recovery.Mode, prec uint, s int) (float64, bool) {
	_, e, flagged, _ := heldOutRun(H, d, mode, prec, s)
	return e, flagged
}

// heldOutRun makes one run on held-out layer s (attention.Random from seed
// 1000000 + s) in float64 (prec 0) or at prec bits, and returns its result,
// its error in the working precision (NaN where it ended in a
// recovery.Error, flagged), and the time the run took.
func heldOutRun(H, d int, mode recovery.Mode, prec uint, s int) (res recovery.Result, e float64, flagged bool, elapsed time.Duration) {
	layer := attention.Random(H, d, uint64(1000000+s))
	opt := recovery.DefaultOptions(H, d)
	opt.Mode, opt.Seed, opt.Precision = mode, uint64(s), prec
	t0 := time.Now()
	var err error
	if prec == 0 {
		res, err = recovery.Learn(recovery.LayerOracle(layer, 0, uint64(s)), opt)
	} else {
		res, err = recovery.LearnBig(recovery.BigLayerOracle(layer, prec), opt)
	}
	elapsed = time.Since(t0)
	if err != nil {
		var re *recovery.Error
		if !errors.As(err, &re) {
			fail(err)
		}
		return res, math.NaN(), true, elapsed
	}
	truth := attention.Canonical(layer, 1e-12)
	if prec == 0 {
		e, cerr := attention.RelativeError(res.Layer, truth)
		if cerr != nil {
			return res, math.Inf(1), false, elapsed
		}
		return res, e, false, elapsed
	}
	return res, bigError(res, truth), false, elapsed
}

// bigError is attention.RelativeError in the working precision: each
// recovered head paired with the true head nearest in float64, the error
// max(|ΔW|_max/|W|_max, |Δv|_max/|v|_max) over the heads.
func bigError(res recovery.Result, truth attention.Layer) float64 {
	if len(res.BigLayer) != len(truth) {
		return math.Inf(1)
	}
	var worst float64
	used := make([]bool, len(truth))
	for k, g := range res.Layer {
		best, bi := math.Inf(1), -1
		for i, w := range truth {
			if used[i] {
				continue
			}
			var e float64
			for x := 0; x < g.V.Len(); x++ {
				for y := 0; y < g.V.Len(); y++ {
					e = math.Max(e, math.Abs(g.W.At(x, y)-w.W.At(x, y)))
				}
			}
			if e < best {
				best, bi = e, i
			}
		}
		if bi < 0 {
			return math.Inf(1)
		}
		used[bi] = true
		w, bh := truth[bi], res.BigLayer[k]
		d := w.V.Len()
		var dw, mw, dv, mv float64
		t := new(big.Float)
		for x := 0; x < d; x++ {
			for y := 0; y < d; y++ {
				t.SetPrec(bh.W[x][y].Prec()).Sub(bh.W[x][y], big.NewFloat(w.W.At(x, y)))
				f, _ := t.Float64()
				dw, mw = math.Max(dw, math.Abs(f)), math.Max(mw, math.Abs(w.W.At(x, y)))
			}
			t.SetPrec(bh.V[x].Prec()).Sub(bh.V[x], big.NewFloat(w.V.AtVec(x)))
			f, _ := t.Float64()
			dv, mv = math.Max(dv, math.Abs(f)), math.Max(mv, math.Abs(w.V.AtVec(x)))
		}
		worst = math.Max(worst, math.Max(dw/mw, dv/mv))
	}
	return worst
}
