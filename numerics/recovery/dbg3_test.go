package recovery

import (
	"fmt"
	"math"
	"os"
	"testing"

	"headlab/numerics/attention"
	"headlab/numerics/rational"
)

func TestDebugC(t *testing.T) {
	if os.Getenv("DBG") == "" {
		t.Skip()
	}
	H, d, s := envInt("H", 4), envInt("D", 8), envInt("S", 3)
	k := envInt("K", 0)
	lay := attention.Random(H, d, uint64(1000+s))
	opt := DefaultOptions(H, d)
	opt.Seed = uint64(s)
	l := newLearner(LayerOracle(lay, 0, 1), opt)
	if err := l.schedule(); err != nil {
		t.Fatal(err)
	}
	tt := trueTheta(l, lay)
	rf := l.res.Trace.RFs[k]
	fmt.Println(rf.Name(), rf.N, rf.F)
	for h := 0; h < H; h++ {
		p, r, vz := l.headTerms(l.specs[k], tt, h)
		fmt.Printf("head %d: p %.6f rho %.6g r %.6g R %.6g vz %.4g\n", h, p, math.Exp(p), r, r*math.Exp(p), vz)
	}
	for hh := H - 1; hh <= H; hh++ {
		res, err := rational.Fit(rf.N, rf.F, rational.Options{Poles: hh})
		fmt.Println(hh, res.Poles, res.Residues, res.Misfit, err)
	}
}
