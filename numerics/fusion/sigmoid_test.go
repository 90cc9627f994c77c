package fusion

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFusedSigmoidSumExact checks the separation's exact side: the 2^d-atom
// head equals Σ_j σ(q_j) to 1e-12 for every d ≤ 12, on queries from
// |q| ~ 1 to |q| ~ 50, evaluated both as a Flat and (for d ≤ 8) as a Head.
func TestFusedSigmoidSumExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 0x1))
	var worst float64
	for d := 1; d <= 12; d++ {
		flat, err := SigmoidSumFlat(d)
		if err != nil {
			t.Fatal(err)
		}
		if flat.Len() != 1<<d {
			t.Fatalf("d = %d: %d atoms", d, flat.Len())
		}
		var head Head
		if d <= 8 {
			head = flat.Head()
		}
		for _, scale := range []float64{0.5, 3, 15, 50} {
			for i := 0; i < 6; i++ {
				q := randomQuery(d, scale, rng)
				want := SigmoidSumValue(q)
				got, err := flat.Eval(q)
				if err != nil {
					t.Fatal(err)
				}
				if e := math.Abs(got - want); e > 1e-12 {
					t.Fatalf("d = %d, q = %v: fused %v, Σσ %v, error %.2g", d, q, got, want, e)
				} else {
					worst = math.Max(worst, e)
				}
				if head != nil && head.Output(q) != got {
					t.Fatalf("d = %d: Head %v, Flat %v", d, head.Output(q), got)
				}
			}
		}
	}
	t.Logf("largest |fused − Σσ| = %.2g", worst)
}

func TestSigmoidSumHeads(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 0x1))
	for d := 1; d <= 6; d++ {
		heads, err := SigmoidSum(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(heads) != d {
			t.Fatalf("d = %d: %d heads", d, len(heads))
		}
		terms, _ := TermCount(Sizes(heads...)...)
		if terms.Int64() != int64(2*d) {
			t.Errorf("d = %d: %v head-atom terms, want 2d", d, terms)
		}
		q := randomQuery(d, 5, rng)
		for j, h := range heads {
			if y := h.Output(q); math.Abs(y-Sigmoid(q[j])) > 2.3e-16 {
				t.Errorf("d = %d: head %d gives %v, σ(q_%d) = %v", d, j, y, j, Sigmoid(q[j]))
			}
		}
		if s, w := SplitOutput(heads, q), SigmoidSumValue(q); math.Abs(s-w) > 1e-15*float64(d) {
			t.Errorf("d = %d: split %v, Σσ %v", d, s, w)
		}
	}
	for _, d := range []int{0, -3} {
		if _, err := SigmoidSum(d); err == nil {
			t.Errorf("SigmoidSum(%d) succeeded", d)
		}
		if _, err := SigmoidSumFlat(d); err == nil {
			t.Errorf("SigmoidSumFlat(%d) succeeded", d)
		}
	}
	if !math.IsNaN(SigmoidSumValue([]float64{1, math.NaN()})) || SigmoidSumValue(nil) != 0 {
		t.Error("SigmoidSumValue of NaN or of nothing is wrong")
	}
}

// TestSigmoidSumAtoms checks the fused atoms are (1_S, 0, |S|) for every
// subset S exactly once.
func TestSigmoidSumAtoms(t *testing.T) {
	d := 7
	f, err := SigmoidSumFlat(d)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[int]bool)
	for i := 0; i < f.Len(); i++ {
		set, size := 0, 0
		for j, x := range f.Keys[i*d : i*d+d] {
			switch x {
			case 1:
				set |= 1 << j
				size++
			case 0:
			default:
				t.Fatalf("atom %d has key entry %v", i, x)
			}
		}
		if seen[set] || f.Bias[i] != 0 || f.Value[i] != float64(size) {
			t.Fatalf("atom %d: set %b seen %v, bias %v, value %v", i, set, seen[set], f.Bias[i], f.Value[i])
		}
		seen[set] = true
	}
	if len(seen) != 1<<d {
		t.Errorf("%d distinct subsets, want %d", len(seen), 1<<d)
	}
}
