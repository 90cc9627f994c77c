package recovery

import (
	"math"

	"headlab/numerics/assign"
)

// matchPoles labels the fitted poles of rf with the heads whose predicted
// (p, r) are nearest (an assignment), for the trace.
func matchPoles(rf *RF, pred func(h int) (p, r float64), hc int, rs float64) []int {
	np := len(rf.P)
	out := make([]int, np)
	for b := range out {
		out[b] = -1
	}
	if np != hc || hc == 0 {
		return out
	}
	if rs == 0 {
		rs = 1
	}
	cost := make([][]float64, hc)
	for h := range cost {
		p, r := pred(h)
		cost[h] = make([]float64, np)
		for b := range cost[h] {
			cost[h][b] = math.Abs(p-rf.P[b]) + math.Abs(r-rf.R[b])/rs
		}
	}
	for h, b := range assign.MinSum(cost) {
		out[b] = h
	}
	return out
}
