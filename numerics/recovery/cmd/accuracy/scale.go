package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
)

// scaleTable writes, for each cell (H[i], D[i]), how many of the seeds
// held-out layers with every W scaled by each factor of S resolve in
// float64 (paper mode) with Options.Calibrate, and how many with the
// default token scale 1: the calibration reads the layer's scale from
// its first answers (MATH.md §3.8).
func scaleTable(w io.Writer, H, D []int, S []float64, seeds int) {
	head, rule := "| (H, d) |", "|---|"
	var names []string
	for _, f := range S {
		names = append(names, "×"+scaleName(f))
		head += " ×" + scaleName(f) + " |"
		rule += "---|"
	}
	head += " token scale 1 at " + strings.Join(names, ", ") + " |"
	rule += "---|"
	fmt.Fprintf(w, "Layers of %d resolved (error below 1e-6), calibrated and with token scale 1, float64, paper mode.\n\n", seeds)
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for i := range min(len(H), len(D)) {
		row := fmt.Sprintf("| (%d, %d) |", H[i], D[i])
		var plain []string
		for _, f := range S {
			cal, def := 0, 0
			for s := range seeds {
				l := attention.Random(H[i], D[i], uint64(1000000+s)).Scaled(f)
				if scaledRun(l, H[i], D[i], s, true) {
					cal++
				}
				if scaledRun(l, H[i], D[i], s, false) {
					def++
				}
			}
			row += fmt.Sprintf(" %d |", cal)
			plain = append(plain, fmt.Sprint(def))
		}
		fmt.Fprintln(w, row+" "+strings.Join(plain, ", ")+" |")
	}
}

// scaleName writes 1/16 for 0.0625, 4 for 4.
func scaleName(f float64) string {
	if f < 1 {
		return fmt.Sprintf("1/%g", 1/f)
	}
	return fmt.Sprintf("%g", f)
}

// scaledRun reports whether a run on l (learner seed s) returns its
// canonical heads within 1e-6.
func scaledRun(l attention.Layer, H, d, s int, calibrate bool) bool {
	opt := recovery.DefaultOptions(H, d)
	opt.Seed = uint64(s)
	opt.Calibrate = calibrate
	r, err := recovery.Recover(context.Background(), recovery.Layer(l), opt)
	if err != nil {
		return false
	}
	e, cerr := attention.RelativeError(r.Layer, attention.Canonical(l, 1e-9))
	return cerr == nil && e < 1e-6
}
