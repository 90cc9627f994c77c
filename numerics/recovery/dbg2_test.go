package recovery

import (
	"fmt"
	"os"
	"testing"

	"headlab/numerics/attention"
)

func trueTheta(l *learner, lay attention.Layer) theta {
	t := newTheta(len(lay), l.d)
	for h, hd := range lay {
		for a := 0; a < l.d; a++ {
			for b := 0; b < l.d; b++ {
				t.x[t.pIndex(h, a, b)] = l.c * bil(l.u[a], hd.W, l.z[b])
			}
			t.x[t.rIndex(h, a)] = l.c * dot(hd.V.RawVector().Data, l.u[a])
		}
	}
	return t
}

func TestDebugB(t *testing.T) {
	if os.Getenv("DBG") == "" {
		t.Skip()
	}
	H, d, s := envInt("H", 3), envInt("D", 8), envInt("S", 0)
	lay := attention.Random(H, d, uint64(1000+s))
	opt := DefaultOptions(H, d)
	opt.Seed = uint64(s)
	l := newLearner(LayerOracle(lay, 0, 1), opt)
	if err := l.schedule(); err != nil {
		t.Fatal(err)
	}
	tt := trueTheta(l, lay)
	th, err := l.learnColumnOne()
	if err != nil {
		t.Fatal(err)
	}
	for h := 0; h < H; h++ {
		fmt.Printf("true r %d: %.6f\n", h, tt.x[tt.rIndex(h, 0):tt.rIndex(h, 0)+d])
		fmt.Printf("est  r %d: %.6f\n", h, th.x[th.rIndex(h, 0):th.rIndex(h, 0)+d])
	}
	k := l.phaseB[1][0]
	rf := l.res.Trace.RFs[k]
	fmt.Println(rf.Name())
	for i, n := range rf.N {
		fmt.Println(n, rf.F[i], l.predict(l.specs[k], n, tt))
	}
	for h := 0; h < H; h++ {
		p, r, vz := l.headTerms(l.specs[k], tt, h)
		p2, r2, vz2 := l.headTerms(l.specs[k], th, h)
		fmt.Println("head", h, p, r, vz, "| est", p2, r2, vz2)
	}
}
