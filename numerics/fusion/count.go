package fusion

import (
	"fmt"
	"math"
	"math/big"
)

// Limits on what the package builds, checked from the counts before
// anything is allocated.
const (
	// MaxAtoms is the largest number of atoms Fuse and the W_d builders
	// build: 2^22 ≈ 4.2 million.
	MaxAtoms = 1 << 22
	// MaxKeyEntries is the largest number of key entries (atoms × d) they
	// build: 2^25, 256 MiB of float64 keys. Fused W_d therefore stops at
	// d = 20 (2^20·20 entries); d = 21 needs 44 million.
	MaxKeyEntries = 1 << 25
	// MaxCountArg bounds the arguments of the count functions (number of
	// heads, d, and the smaller side of a binomial), so that every count is
	// computed in well under a millisecond however large it is.
	MaxCountArg = 1 << 12
)

// LimitError reports a build refused because it would exceed MaxAtoms or
// MaxKeyEntries. Atoms and Entries are the exact counts it would have built.
type LimitError struct {
	// What names the build, e.g. "Fuse of 23 heads".
	What string
	// Atoms is the number of atoms the build needs.
	Atoms *big.Int
	// Entries is Atoms times the key length.
	Entries *big.Int
}

// Error names the build, its counts and the limit it exceeds.
func (e *LimitError) Error() string {
	if e.Atoms.Cmp(big.NewInt(MaxAtoms)) > 0 {
		return fmt.Sprintf("fusion: %s needs %s atoms, over the limit MaxAtoms = %d", e.What, e.Atoms, MaxAtoms)
	}
	return fmt.Sprintf("fusion: %s needs %s key entries (%s atoms), over the limit MaxKeyEntries = %d", e.What, e.Entries, e.Atoms, MaxKeyEntries)
}

// checkLimit returns a *LimitError when atoms or atoms·d exceeds the limits.
func checkLimit(what string, atoms *big.Int, d int) error {
	entries := new(big.Int).Mul(atoms, big.NewInt(int64(d)))
	if atoms.Cmp(big.NewInt(MaxAtoms)) > 0 || entries.Cmp(big.NewInt(MaxKeyEntries)) > 0 {
		return &LimitError{What: what, Atoms: atoms, Entries: entries}
	}
	return nil
}

// Sizes returns the atom counts m_h of heads.
func Sizes(heads ...Head) []int {
	m := make([]int, len(heads))
	for i, h := range heads {
		m[i] = len(h)
	}
	return m
}

// TermCount returns the head-atom terms Σ_h m_h of heads with sizes m_h,
// the cost of the split evaluation. It fails for no sizes, more than
// MaxCountArg of them, or a size below 1.
func TermCount(sizes ...int) (*big.Int, error) {
	if err := checkSizes("TermCount", sizes); err != nil {
		return nil, err
	}
	sum := new(big.Int)
	for _, m := range sizes {
		sum.Add(sum, big.NewInt(int64(m)))
	}
	return sum, nil
}

// ProductCount returns Π_h m_h, the number of atoms the product
// construction builds before merging (an upper bound after it). It fails
// for no sizes, more than MaxCountArg of them, or a size below 1.
func ProductCount(sizes ...int) (*big.Int, error) {
	if err := checkSizes("ProductCount", sizes); err != nil {
		return nil, err
	}
	p := big.NewInt(1)
	for _, m := range sizes {
		p.Mul(p, big.NewInt(int64(m)))
	}
	return p, nil
}

// SharedKeyCount returns C(m+H−1, H), the number of atoms left after merging
// when H heads share the same m keys and those keys are generic (distinct
// multisets of H of them have distinct sums): a fused atom depends only on
// the multiset of keys its tuple picks. Fuse reaches this count exactly when
// the key sums are exact in float64 (see Fuse). It fails for m or H below 1
// or when min(H, m−1) exceeds MaxCountArg.
func SharedKeyCount(m, heads int) (*big.Int, error) {
	if m < 1 || heads < 1 {
		return nil, fmt.Errorf("fusion: SharedKeyCount(m = %d, H = %d), want both ≥ 1", m, heads)
	}
	if min(heads, m-1) > MaxCountArg || m > math.MaxInt64-heads {
		return nil, fmt.Errorf("fusion: SharedKeyCount(m = %d, H = %d) is over the limit min(H, m−1) ≤ MaxCountArg = %d", m, heads, MaxCountArg)
	}
	// C(m+H−1, H) = C(m+H−1, m−1); big.Int.Binomial loops over the smaller.
	return new(big.Int).Binomial(int64(m)+int64(heads)-1, int64(min(heads, m-1))), nil
}

// SigmoidSumCount returns 2^d, the atoms of the fused W_d head: its keys are
// the vertices of the hypercube, all distinct, so nothing merges. It fails
// for d below 1 or above MaxCountArg.
func SigmoidSumCount(d int) (*big.Int, error) {
	if d < 1 || d > MaxCountArg {
		return nil, fmt.Errorf("fusion: SigmoidSumCount(d = %d), want 1 ≤ d ≤ MaxCountArg = %d", d, MaxCountArg)
	}
	return new(big.Int).Lsh(big.NewInt(1), uint(d)), nil
}

func checkSizes(what string, sizes []int) error {
	if len(sizes) == 0 || len(sizes) > MaxCountArg {
		return fmt.Errorf("fusion: %s of %d heads, want 1 to MaxCountArg = %d", what, len(sizes), MaxCountArg)
	}
	for h, m := range sizes {
		if m < 1 {
			return fmt.Errorf("fusion: %s: head %d has %d atoms, want ≥ 1", what, h, m)
		}
	}
	return nil
}
