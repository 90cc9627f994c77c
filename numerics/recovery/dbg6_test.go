package recovery

import (
	"fmt"
	"math"
	"os"
	"testing"

	"headlab/numerics/attention"
)

func TestDebugGlobal(t *testing.T) {
	if os.Getenv("DBG") == "" {
		t.Skip()
	}
	H, d, s := envInt("H", 4), envInt("D", 8), envInt("S", 44)
	lay := attention.Random(H, d, uint64(envInt("BASE", 1000000)+s))
	opt := DefaultOptions(H, d)
	opt.Seed = uint64(s)
	if os.Getenv("MODE") == "economy" {
		opt.Mode = Economy
	}
	l := newLearner(LayerOracle(lay, 0, uint64(s)), opt)
	if err := l.schedule(); err != nil {
		t.Fatal(err)
	}
	tt := trueTheta(l, lay)
	debugHook = func(l *learner, k int, p []float64) {
		var tp []float64
		for h := 0; h < H; h++ {
			pp, _, _ := l.headTerms(l.specs[k], tt, h)
			tp = append(tp, pp)
		}
		if os.Getenv("HOOK") != "" {
			fmt.Printf("  %s est %.5g true %.5f\n", l.res.Trace.RFs[k].Name(), p, tp)
		}
	}
	defer func() { debugHook = nil }()
	th, err := l.learnColumnOne()
	if err != nil {
		t.Fatal(err)
	}
	cmp := func(j int) {
		// best match of heads by column-1 P
		worst := 0.0
		for h := 0; h < H; h++ {
			best := math.Inf(1)
			for g := 0; g < H; g++ {
				e := 0.0
				for a := 0; a < d; a++ {
					e = math.Max(e, math.Abs(th.P(h, a, j)-tt.P(g, a, j)))
					if j == 0 {
						e = math.Max(e, math.Abs(th.R(h, a)-tt.R(g, a)))
					}
				}
				best = math.Min(best, e)
			}
			worst = math.Max(worst, best)
		}
		fmt.Printf("column %d: worst head error %.3g\n", j, worst)
	}
	cmp(0)
	for j := 1; j < d; j++ {
		if err := l.column(th, j); err != nil {
			t.Fatal(err)
		}
		cmp(j)
	}
	free := make([]bool, len(th.x))
	for i := range free {
		free[i] = true
	}
	sv := l.newSolver(l.queryRows(), free, th.H)
	c0 := sv.cost(th)
	th2, c1 := sv.fit(th, 100)
	fmt.Println("global: start", c0, "end", c1, "truth", sv.cost(tt), "rows", len(sv.rows), "params", len(th.x))
	th3, c3 := sv.fit(tt, 100)
	_ = th3
	fmt.Println("global from truth: end", c3)
	_ = th2
}
