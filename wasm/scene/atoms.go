package scene

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"headlab/numerics/fusion"
	"headlab/web/link"
)

// Limits of the Atom explosion scene (MATH.md §2).
const (
	// AtomsMaxWidth is the largest d of the scene: the explosion curve goes
	// on from the counts alone, 2^60 atoms being exact in float64.
	AtomsMaxWidth = 60
	// AtomsBuildLimit is the largest d whose fused head is built and
	// evaluated atom by atom: 2^20 atoms, 8·20·2^20 B = 168 MB of keys, at
	// about 40 ms per query in the browser. Beyond it the scene refuses the
	// build and shows counts.
	AtomsBuildLimit = 20
	// AtomsGridLimit is the largest d whose 2^d atoms are drawn one by one
	// (a cube projection up to AtomsCubeLimit, then a grid of cells).
	AtomsGridLimit = 10
	// AtomsCubeLimit is the largest d drawn as a projected hypercube.
	AtomsCubeLimit = 4
)

// Atoms is the Atom explosion scene computed from a state: the d two-atom
// heads of W_d(q) = Σ_j σ(q_j), their fused single head with 2^d atoms (built
// only up to AtomsBuildLimit), both outputs at the query, the distribution
// of attention mass over |S|, and the counts of the explosion curve.
type Atoms struct {
	State link.State
	// D is the width and Q the query (d numbers).
	D int
	Q []float64
	// Sigma[j] = σ(q_j) is head j's output and the weight of its atom e_j
	// (its other atom, the zero key, has weight 1 − σ(q_j)).
	Sigma []float64
	// Split is Σ_h y_h(q) evaluated head by head (2d head-atom terms).
	Split float64
	// Built reports whether the fused head was built (D ≤ AtomsBuildLimit);
	// Fused is then its output at q, evaluated over its 2^d atoms.
	Built bool
	Fused float64
	// Refused states why the fused head was not built, naming the limit.
	Refused string
	// Weights holds the fused atoms' attention weights when D ≤
	// AtomsGridLimit (in the atom order of Keys), else nil.
	Weights []float64
	// Keys holds the fused atoms' keys, row by row (d each), when D ≤
	// AtomsGridLimit: atom i is the set S = {j : Keys[i*d+j] = 1}.
	Keys []float64
	// Mass[s] is the attention mass of the atoms with |S| = s, s = 0…d: the
	// Poisson-binomial distribution of independent Bernoulli(σ(q_j)).
	Mass []float64
	// Terms and Count are the head-atom terms 2d and the fused atoms 2^d.
	Terms, Count *big.Int
	// General is the general-fusion panel (heads of m atoms).
	General General

	heads []fusion.Head
	flat  fusion.Flat
	lab   *atomsLab
}

// NewAtoms computes the Atom explosion scene for s. It fails only on a
// state outside the schema.
func NewAtoms(s link.State, lab *Lab) (*Atoms, error) {
	if lab == nil {
		lab = NewLab()
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.D < 1 || s.D > AtomsMaxWidth || len(s.Q) != s.D {
		return nil, fmt.Errorf("scene: atoms scene with d = %d and %d query numbers, want 1 ≤ d ≤ %d", s.D, len(s.Q), AtomsMaxWidth)
	}
	a := &Atoms{State: s, D: s.D, lab: lab.atoms}
	a.General = a.lab.general(s)
	if err := a.setQuery(s.Q); err != nil {
		return nil, err
	}
	return a, nil
}

// WithQuery returns the scene at query q (d numbers), sharing everything
// that does not depend on q with a.
func (a *Atoms) WithQuery(q []float64) (*Atoms, error) {
	b := &Atoms{State: a.State, D: a.D, General: a.General, lab: a.lab, heads: a.heads, flat: a.flat}
	b.State.Q = append([]float64(nil), q...)
	if err := b.State.Validate(); err != nil {
		return nil, err
	}
	if err := b.setQuery(b.State.Q); err != nil {
		return nil, err
	}
	return b, nil
}

func (a *Atoms) setQuery(q []float64) error {
	d := a.D
	a.Q = q
	var err error
	if a.heads == nil {
		if a.heads, err = fusion.SigmoidSum(d); err != nil {
			return fmt.Errorf("scene: %w", err)
		}
	}
	a.Terms, err = fusion.TermCount(fusion.Sizes(a.heads...)...)
	if err != nil {
		return fmt.Errorf("scene: %w", err)
	}
	if a.Count, err = fusion.SigmoidSumCount(d); err != nil {
		return fmt.Errorf("scene: %w", err)
	}
	a.Sigma = make([]float64, d)
	for j := range q {
		a.Sigma[j] = a.heads[j].Output(q)
	}
	a.Split = fusion.SplitOutput(a.heads, q)
	if !finite(a.Split) {
		return fmt.Errorf("scene: the split heads' output is %v at this query", a.Split)
	}
	a.Mass = fusion.PoissonBinomial(a.Sigma)
	if d > AtomsBuildLimit {
		a.Built = false
		a.Refused = fmt.Sprintf("The fused head is not built for d = %d: %s atoms and %s of keys exceed the interactive limit d ≤ %d (2^%d atoms); the numbers shown come from the counts.",
			d, formatCount(a.Count), FormatBytes(KVBytes(d, a.Count)), AtomsBuildLimit, AtomsBuildLimit)
		return nil
	}
	if a.flat.Len() == 0 {
		if a.flat, err = a.lab.fused(d); err != nil {
			return fmt.Errorf("scene: %w", err)
		}
	}
	a.Fused = a.flat.Output(q)
	if !finite(a.Fused) {
		return fmt.Errorf("scene: the fused head's output is %v at this query", a.Fused)
	}
	a.Built = true
	if d <= AtomsGridLimit {
		a.Weights = a.flat.Weights(nil, q)
		a.Keys = a.flat.Keys
	}
	return nil
}

// Heads returns the d split heads of W_d.
func (a *Atoms) Heads() []fusion.Head { return a.heads }

// Flat returns the fused head, empty when it was not built.
func (a *Atoms) Flat() fusion.Flat { return a.flat }

// Link returns the state the scene was computed from.
func (a *Atoms) Link() link.State { return a.State }

// Difference returns |fused − split|, NaN when the fused head was not built.
func (a *Atoms) Difference() float64 {
	if !a.Built {
		return math.NaN()
	}
	return math.Abs(a.Fused - a.Split)
}

// Ulps returns the difference in units in the last place of the split
// output (0 when they agree bit for bit), NaN when not built.
func (a *Atoms) Ulps() float64 {
	if !a.Built {
		return math.NaN()
	}
	u := math.Nextafter(math.Abs(a.Split), math.Inf(1)) - math.Abs(a.Split)
	return a.Difference() / u
}

// DifferenceWords says in words how large the difference between the split
// and fused outputs is.
func (a *Atoms) DifferenceWords() string {
	if !a.Built {
		return "fused head not built (over the limit)"
	}
	diff := a.Difference()
	switch u := a.Ulps(); {
	case diff == 0:
		return "identical to the last bit"
	case u <= 64*float64(a.D+1):
		return fmt.Sprintf("rounding level (%.0f ulp)", u)
	default:
		return fmt.Sprintf("%.1e: larger than rounding", diff)
	}
}

// AtomSet returns the set S ⊆ {1…d} of fused atom i (1-based members), read
// from its key; nil when the atoms are not kept.
func (a *Atoms) AtomSet(i int) []int {
	d := a.D
	if a.Keys == nil || i < 0 || (i+1)*d > len(a.Keys) {
		return nil
	}
	var s []int
	for j, x := range a.Keys[i*d : (i+1)*d] {
		if x == 1 {
			s = append(s, j+1)
		}
	}
	return s
}

// AtomBits returns fused atom i's key as a string of 0s and 1s, coordinate
// 1 first.
func (a *Atoms) AtomBits(i int) string {
	d := a.D
	if a.Keys == nil || i < 0 || (i+1)*d > len(a.Keys) {
		return ""
	}
	var b strings.Builder
	for _, x := range a.Keys[i*d : (i+1)*d] {
		if x == 1 {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

// KVBytes returns the bytes a head with the given number of atoms takes as
// a float64 key–value cache: d key entries and one value per atom.
func KVBytes(d int, atoms *big.Int) *big.Int {
	return new(big.Int).Mul(atoms, big.NewInt(8*int64(d+1)))
}

// FormatBytes writes a byte count with a binary-free SI unit (B, kB, MB,
// GB, TB, PB, EB, ZB), three significant digits.
func FormatBytes(b *big.Int) string {
	f, _ := new(big.Float).SetInt(b).Float64()
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"}
	i := 0
	for f >= 1000 && i < len(units)-1 {
		f /= 1000
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", f)
	}
	return fmt.Sprintf("%.3g %s", f, units[i])
}

// formatCount writes an exact count, grouped by thousands when short and
// as a power of ten when long.
func formatCount(n *big.Int) string {
	s := n.String()
	if len(s) <= 9 {
		return GroupDigits(s)
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return fmt.Sprintf("%.3g", f)
}

// GroupDigits writes a string of decimal digits with a comma between
// groups of three, counted from the right.
func GroupDigits(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Facts returns the numbers the scene shows, under the names of the page's
// test contract: terms (head-atom terms 2d), atoms (fused atoms 2^d, from
// the count, for every d), split and fused (the outputs at q; fused is nil
// where the head is not built), and what the panels show besides.
func (a *Atoms) Facts() map[string]any {
	count, _ := new(big.Float).SetInt(a.Count).Float64()
	terms, _ := new(big.Float).SetInt(a.Terms).Float64()
	kvSplit, _ := new(big.Float).SetInt(KVBytes(a.D, a.Terms)).Float64()
	kvFused, _ := new(big.Float).SetInt(KVBytes(a.D, a.Count)).Float64()
	f := map[string]any{
		"scene":        "atoms",
		"d":            a.D,
		"q":            append([]float64(nil), a.Q...),
		"terms":        terms,
		"atoms":        count,
		"split":        a.Split,
		"fused":        nil,
		"difference":   nil,
		"ulps":         nil,
		"agreement":    a.DifferenceWords(),
		"formula":      fusion.SigmoidSumValue(a.Q),
		"heads":        append([]float64(nil), a.Sigma...),
		"mass":         append([]float64(nil), a.Mass...),
		"built":        a.Built,
		"buildLimit":   AtomsBuildLimit,
		"kvBytesSplit": kvSplit,
		"kvBytesFused": kvFused,
		"general":      a.General.facts(),
	}
	if a.Built {
		f["fused"] = a.Fused
		f["difference"] = a.Difference()
		f["ulps"] = a.Ulps()
	} else {
		f["refused"] = a.Refused
	}
	a.lab.timingFacts(a.D, f)
	a.lab.fitFacts(a.State, f)
	return f
}

// Describe returns a sentence stating what the canvas shows.
func (a *Atoms) Describe() string {
	fused := "The fused head is not built at this d (over the limit)."
	if a.Built {
		fused = fmt.Sprintf("The fused head with %s atoms gives %.12g; difference %s.", formatCount(a.Count), a.Fused, a.DifferenceWords())
	}
	return fmt.Sprintf("Atom explosion for d = %d: %d two-atom heads (%s head-atom terms) give Σσ(q_j) = %.12g. %s The curve compares 2d with 2^d up to d = %d.",
		a.D, a.D, a.Terms, a.Split, fused, AtomsMaxWidth)
}

func finite(x float64) bool { return x-x == 0 }
