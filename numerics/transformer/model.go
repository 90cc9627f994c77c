package transformer

import (
	"fmt"
	"math"
	"math/rand/v2"

	"headlab/numerics/recovery"
)

// Limits on the sizes the package accepts: Learn's cost grows like
// (Hd)³·K in big.Float, and the subset sum that folds the linear part into
// units is exhaustive over the kinks (2^K).
const (
	MaxHeads = 4  // largest number of heads H
	MaxWidth = 6  // largest token width d
	MaxDim   = 8  // largest attention output width m
	MaxUnits = 12 // largest number of units K (and of kinks Learn accepts)
)

// Head is one attention head: W (d×d, W[i][j]) is the merged query-key
// matrix, V (d×m, V[i][j]) maps the head's weighted token mean φ_h ∈ R^d to
// its share V_hᵀφ_h of the attention output y ∈ R^m.
type Head struct {
	W [][]float64
	V [][]float64
}

// Unit is one ReLU unit of the feed-forward network: it adds
// A·ReLU(B·y) to the output.
type Unit struct {
	A float64
	B []float64
}

// Network is a one-layer Transformer with a scalar output at the last
// token (MATH.md §3.7):
//
//	y = Σ_h V_hᵀ φ_h(X) (+ x_N when Residual),
//	F(X) = Σ_k a_k ReLU(b_k·y) (+ Readout·y when Readout is not nil).
//
// Residual requires m = d.
type Network struct {
	Heads    []Head
	Units    []Unit
	Residual bool
	// Readout is the linear readout w ∈ R^m, nil for none.
	Readout []float64
}

// Width returns the token width d (0 for a network without heads).
func (n Network) Width() int {
	if len(n.Heads) == 0 {
		return 0
	}
	return len(n.Heads[0].W)
}

// Dim returns the attention output width m (0 for a network without heads).
func (n Network) Dim() int {
	if len(n.Heads) == 0 || len(n.Heads[0].V) == 0 {
		return 0
	}
	return len(n.Heads[0].V[0])
}

// Validate reports whether the network's shapes agree, its sizes are
// within the limits and every number is finite.
func (n Network) Validate() error {
	H, d, m := len(n.Heads), n.Width(), n.Dim()
	switch {
	case H < 1 || H > MaxHeads:
		return fmt.Errorf("transformer: %d heads outside 1…%d", H, MaxHeads)
	case d < 1 || d > MaxWidth:
		return fmt.Errorf("transformer: width %d outside 1…%d", d, MaxWidth)
	case m < 1 || m > MaxDim:
		return fmt.Errorf("transformer: output width %d outside 1…%d", m, MaxDim)
	case len(n.Units) > MaxUnits:
		return fmt.Errorf("transformer: %d units, more than %d", len(n.Units), MaxUnits)
	case n.Residual && m != d:
		return fmt.Errorf("transformer: the residual y + x_N needs m = d, have m = %d, d = %d", m, d)
	case n.Readout != nil && len(n.Readout) != m:
		return fmt.Errorf("transformer: readout of length %d, want m = %d", len(n.Readout), m)
	}
	for h, hd := range n.Heads {
		if len(hd.W) != d || len(hd.V) != d {
			return fmt.Errorf("transformer: head %d has %d rows of W and %d of V, want %d", h, len(hd.W), len(hd.V), d)
		}
		for i := 0; i < d; i++ {
			if len(hd.W[i]) != d || len(hd.V[i]) != m {
				return fmt.Errorf("transformer: head %d row %d: W has %d columns, V %d, want %d and %d", h, i, len(hd.W[i]), len(hd.V[i]), d, m)
			}
			if !finite(hd.W[i]) || !finite(hd.V[i]) {
				return fmt.Errorf("transformer: head %d has a non-finite or huge entry", h)
			}
		}
	}
	for k, u := range n.Units {
		if len(u.B) != m {
			return fmt.Errorf("transformer: unit %d has b of length %d, want %d", k, len(u.B), m)
		}
		if !finite(u.B) || !finite([]float64{u.A}) {
			return fmt.Errorf("transformer: unit %d has a non-finite or huge entry", k)
		}
	}
	if n.Readout != nil && !finite(n.Readout) {
		return fmt.Errorf("transformer: the readout has a non-finite or huge entry")
	}
	return nil
}

// maxEntry bounds every parameter and token entry, so that scores stay
// far inside what exp handles.
const maxEntry = 1e6

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.Abs(v) > maxEntry {
			return false
		}
	}
	return true
}

// Shape says what Random draws.
type Shape struct {
	Heads, Width, Dim, Units int
	// Residual adds x_N to the attention output (Dim must equal Width).
	Residual bool
	// Readout adds a random linear readout.
	Readout bool
}

// Random returns a network of the given shape whose entries are
// independent normal draws: W and V scaled by 1/√d, b and the readout by
// 1/√m, a standard. The same seed gives the same network on every
// platform (math/rand/v2's PCG).
func Random(s Shape, seed uint64) (Network, error) {
	rng := rand.New(rand.NewPCG(seed, 0x7472616e73666d72)) // "transfmr"
	d, m := s.Width, s.Dim
	if d < 1 || m < 1 || s.Heads < 1 || s.Units < 0 {
		return Network{}, fmt.Errorf("transformer: shape H=%d d=%d m=%d K=%d is not positive", s.Heads, d, m, s.Units)
	}
	sd, sm := 1/math.Sqrt(float64(d)), 1/math.Sqrt(float64(m))
	draw := func(n int, scale float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64() * scale
		}
		return v
	}
	var n Network
	for h := 0; h < s.Heads; h++ {
		var hd Head
		for i := 0; i < d; i++ {
			hd.W = append(hd.W, draw(d, sd))
		}
		for i := 0; i < d; i++ {
			hd.V = append(hd.V, draw(m, sd))
		}
		n.Heads = append(n.Heads, hd)
	}
	for k := 0; k < s.Units; k++ {
		a := rng.NormFloat64()
		n.Units = append(n.Units, Unit{A: a, B: draw(m, sm)})
	}
	n.Residual = s.Residual
	if s.Readout {
		n.Readout = draw(m, sm)
	}
	return n, n.Validate()
}

// Limits on the working precision, in bits of mantissa: recovery's, which
// phase A runs at.
const (
	MinPrecision = recovery.MinPrecision
	MaxPrecision = recovery.MaxPrecision
)

// FamilyShape returns the i-th shape of the family the tests and the
// measurements sweep (issue 12): d ∈ {2, 3}, H ∈ {1, 2}, m ∈ {d, d+1},
// K ∈ 2…5, every combination in turn as i runs through 0…31.
func FamilyShape(i int) Shape {
	d := 2 + i%2
	return Shape{Heads: 1 + i/2%2, Width: d, Dim: d + i/4%2, Units: 2 + i/8%4}
}

// IdealUnitQueries returns the unit phase's ideal count for K units
// behind Hd features: K + 1 local solves of Hd + 1 queries each
// (MATH.md §3.7).
func IdealUnitQueries(H, d, K int) int { return (K + 1) * (H*d + 1) }
