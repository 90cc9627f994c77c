package scene

import (
	"fmt"
	"testing"

	"headlab/numerics/fusion"
	"headlab/web/link"
)

var atomsSink float64

// BenchmarkAtomsQuery measures one query of W_d, d = 4…20, evaluated by the
// d split heads and by the explicit fused head over its 2^d atoms: the
// costs the scene's panel measures live in the browser.
func BenchmarkAtomsQuery(b *testing.B) {
	for _, d := range []int{4, 8, 12, 16, 20} {
		s := link.Default()
		s.D = d
		q := link.DefaultQuery(s)
		heads, err := fusion.SigmoidSum(d)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("split/d=%d", d), func(b *testing.B) {
			for b.Loop() {
				atomsSink = fusion.SplitOutput(heads, q)
			}
		})
		b.Run(fmt.Sprintf("fused/d=%d", d), func(b *testing.B) {
			f, err := testLab.atoms.fused(d)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				atomsSink = f.Output(q)
			}
		})
	}
}
