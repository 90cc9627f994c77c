package fusion

import (
	"math/big"
	"testing"
)

func TestCounts(t *testing.T) {
	terms, err := TermCount(2, 3, 4)
	if err != nil || terms.Int64() != 9 {
		t.Errorf("TermCount(2, 3, 4) = %v, %v", terms, err)
	}
	prod, err := ProductCount(2, 3, 4)
	if err != nil || prod.Int64() != 24 {
		t.Errorf("ProductCount(2, 3, 4) = %v, %v", prod, err)
	}
	for d := 1; d <= 62; d++ {
		c, err := SigmoidSumCount(d)
		if err != nil || !c.IsInt64() || c.Int64() != 1<<d {
			t.Fatalf("SigmoidSumCount(%d) = %v, %v", d, c, err)
		}
		sizes := make([]int, d)
		for j := range sizes {
			sizes[j] = 2
		}
		if p, _ := ProductCount(sizes...); p.Cmp(c) != 0 {
			t.Fatalf("d = %d: product of d twos %v, 2^d %v", d, p, c)
		}
	}
	if c, err := SigmoidSumCount(MaxCountArg); err != nil || c.BitLen() != MaxCountArg+1 {
		t.Errorf("SigmoidSumCount(MaxCountArg) has %d bits, %v", c.BitLen(), err)
	}
}

// TestSharedKeyCount checks C(m+H−1, H) against the multiset recurrence
// S(m, H) = S(m−1, H) + S(m, H−1) with S(1, H) = 1, S(m, 0) = 1 (a multiset
// of H keys from m either never uses key m or uses it at least once), and
// at sizes where only big integers hold it.
func TestSharedKeyCount(t *testing.T) {
	const M, H = 30, 30
	var s [M + 1][H + 1]*big.Int
	for m := 1; m <= M; m++ {
		for h := 0; h <= H; h++ {
			switch {
			case h == 0 || m == 1:
				s[m][h] = big.NewInt(1)
			default:
				s[m][h] = new(big.Int).Add(s[m-1][h], s[m][h-1])
			}
			if h == 0 {
				continue
			}
			c, err := SharedKeyCount(m, h)
			if err != nil || c.Cmp(s[m][h]) != 0 {
				t.Fatalf("SharedKeyCount(%d, %d) = %v, %v; recurrence %v", m, h, c, err, s[m][h])
			}
		}
	}
	// m = 2: H+1 multisets; H = 1: m atoms (nothing to fuse).
	if c, _ := SharedKeyCount(2, 1000); c.Int64() != 1001 {
		t.Errorf("SharedKeyCount(2, 1000) = %v", c)
	}
	if c, _ := SharedKeyCount(1<<40, 1); c.Int64() != 1<<40 {
		t.Errorf("SharedKeyCount(2^40, 1) = %v", c)
	}
}

func TestCountErrors(t *testing.T) {
	many := make([]int, MaxCountArg+1)
	for i := range many {
		many[i] = 2
	}
	for name, err := range map[string]error{
		"TermCount()":            second(TermCount()),
		"TermCount(3, 0)":        second(TermCount(3, 0)),
		"ProductCount(-1)":       second(ProductCount(-1)),
		"ProductCount(many)":     second(ProductCount(many...)),
		"SharedKeyCount(0, 2)":   second(SharedKeyCount(0, 2)),
		"SharedKeyCount(2, 0)":   second(SharedKeyCount(2, 0)),
		"SharedKeyCount(huge)":   second(SharedKeyCount(1<<30, 1<<30)),
		"SharedKeyCount(MaxInt)": second(SharedKeyCount(int(^uint(0)>>1), 2)),
		"SigmoidSumCount(0)":     second(SigmoidSumCount(0)),
		"SigmoidSumCount(10^6)":  second(SigmoidSumCount(1000000)),
	} {
		if err == nil {
			t.Errorf("%s succeeded", name)
		}
	}
}

func second(_ *big.Int, err error) error { return err }
