package recovery

import (
	"fmt"
	"math"
	"os"
	"testing"

	"headlab/numerics/attention"
)

func TestDebugA(t *testing.T) {
	if os.Getenv("DBG") == "" {
		t.Skip()
	}
	H, d, s := envInt("H", 3), envInt("D", 4), envInt("S", 7)
	lay := attention.Random(H, d, uint64(1000+s))
	opt := DefaultOptions(H, d)
	opt.Seed = uint64(s)
	l := newLearner(LayerOracle(lay, 0, 1), opt)
	if err := l.schedule(); err != nil {
		t.Fatal(err)
	}
	th, err := l.learnColumnOne()
	if err != nil {
		t.Fatal(err)
	}
	// true params
	for h := 0; h < H; h++ {
		w, v := lay[h].W, lay[h].V
		fmt.Printf("true head %d: P00=%.6f P10=%.6f r0=%.6f r1=%.6f\n", h,
			l.c*bil(l.u[0], w, l.z[0]), l.c*bil(l.u[1], w, l.z[0]), l.c*dot(v.RawVector().Data, l.u[0]), l.c*dot(v.RawVector().Data, l.u[1]))
	}
	for h := 0; h < th.H; h++ {
		fmt.Printf("est  head %d: P00=%.6f P10=%.6f r0=%.6f r1=%.6f\n", h, th.P(h, 0, 0), th.P(h, 1, 0), th.R(h, 0), th.R(h, 1))
	}
	for _, k := range l.phaseB[1][:1] {
		rf := l.res.Trace.RFs[k]
		fmt.Println(rf.Name(), rf.N, rf.F)
		for i, n := range rf.N {
			fmt.Println(n, rf.F[i], l.predict(l.specs[k], n, th))
		}
	}
	_ = math.Abs
}

func bil(u []float64, w interface{ At(i, j int) float64 }, z []float64) float64 {
	var s float64
	for i := range u {
		for j := range z {
			s += u[i] * w.At(i, j) * z[j]
		}
	}
	return s
}
func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
