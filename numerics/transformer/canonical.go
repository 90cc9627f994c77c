package transformer

import (
	"math/big"
	"sort"
)

// Canonical is what value queries can identify of a Network (MATH.md §3.7):
// the canonical heads W_h, and F written on the features
// φ(X) = (φ_1, …, φ_H[, x_N]) as
//
//	F(X) = Σ_k s_k ReLU(η_k·φ(X)) + λ·φ(X),
//
// with s_k = sign a_k and η_k = |a_k| U_k, U_k = (V_1 b_k, …, V_H b_k[, b_k]).
// Values in another basis, rescaled or permuted units and the readout's
// split between units and λ give the same Canonical up to Equivalent.
type Canonical struct {
	// Width is the token width d.
	Width int
	// Heads are the canonical W_h (d×d), one block of φ each.
	Heads [][][]*big.Float
	// Residual says φ ends with the query token x_N (one more block).
	Residual bool
	// Units are the units, in no particular order.
	Units []CanonicalUnit
	// Linear is λ, of length Blocks()·d (all zeros when F has no linear
	// term).
	Linear []*big.Float
}

// CanonicalUnit is the unit s·ReLU(η·φ).
type CanonicalUnit struct {
	Sign int // +1 or −1
	Eta  []*big.Float
}

// Blocks returns the number of d-blocks of φ: the heads, and one more for
// the residual.
func (c Canonical) Blocks() int {
	if c.Residual {
		return len(c.Heads) + 1
	}
	return len(c.Heads)
}

// Func returns c as an oracle evaluated at prec bits (uncounted). A
// malformed c, or a sequence of the wrong width, is answered with zero.
func (c Canonical) Func(prec uint) OracleFunc {
	a := arith{prec}
	bad := c.validate() != nil
	return func(X [][]*big.Float) *big.Float {
		if bad || checkSequence(X, c.Width) != nil {
			return a.zero()
		}
		return c.eval(a, a.features(c.Heads, c.Residual, X))
	}
}

// eval returns F at the features phi.
func (c Canonical) eval(a arith, phi []*big.Float) *big.Float {
	f := a.dot(c.Linear, phi)
	for _, u := range c.Units {
		if z := a.dot(u.Eta, phi); z.Sign() > 0 {
			if u.Sign < 0 {
				f.Sub(f, z)
			} else {
				f.Add(f, z)
			}
		}
	}
	return f
}

// Canonical returns n's canonical form at prec bits: heads with equal W
// merged (their blocks summed), heads that no unit and no readout sees
// dropped, dead units (a_k = 0 or U_k = 0) dropped, heads sorted by W.
func (n Network) Canonical(prec uint) Canonical {
	a := arith{prec}
	d := n.Width()
	// Group heads with exactly equal W.
	var groups [][]int
	for h := range n.Heads {
		found := false
		for g := range groups {
			if equalMat(n.Heads[groups[g][0]].W, n.Heads[h].W) {
				groups[g] = append(groups[g], h)
				found = true
				break
			}
		}
		if !found {
			groups = append(groups, []int{h})
		}
	}
	sort.SliceStable(groups, func(i, j int) bool {
		return lessMat(n.Heads[groups[i][0]].W, n.Heads[groups[j][0]].W)
	})
	// block returns Σ_{h∈g} V_h b.
	block := func(g []int, b []float64) []*big.Float {
		out := a.vec(d)
		bb := a.vecOf(b)
		for _, h := range g {
			for i := 0; i < d; i++ {
				out[i].Add(out[i], a.dot(a.vecOf(n.Heads[h].V[i]), bb))
			}
		}
		return out
	}
	units := make([][]*big.Float, len(n.Units))
	var linear []*big.Float
	seen := make([]bool, len(groups))
	for g := range groups {
		for k, u := range n.Units {
			blk := block(groups[g], u.B)
			seen[g] = seen[g] || maxAbs(blk) > 0 && u.A != 0
			units[k] = append(units[k], blk...)
		}
		if n.Readout != nil {
			blk := block(groups[g], n.Readout)
			seen[g] = seen[g] || maxAbs(blk) > 0
			linear = append(linear, blk...)
		}
	}
	c := Canonical{Width: d, Residual: n.Residual}
	keep := func(x []*big.Float) []*big.Float {
		var out []*big.Float
		for g := range groups {
			if seen[g] {
				out = append(out, x[g*d:(g+1)*d]...)
			}
		}
		return out
	}
	for g := range groups {
		if seen[g] {
			c.Heads = append(c.Heads, a.matOf(n.Heads[groups[g][0]].W))
		}
	}
	for k, u := range n.Units {
		eta := keep(units[k])
		if n.Residual {
			eta = append(eta, a.vecOf(u.B)...)
		}
		if u.A == 0 || maxAbs(eta) == 0 {
			continue
		}
		s := 1
		if u.A < 0 {
			s = -1
		}
		abs := a.f(u.A)
		abs.Abs(abs)
		c.Units = append(c.Units, CanonicalUnit{Sign: s, Eta: a.scaleVec(abs, eta)})
	}
	if linear != nil {
		c.Linear = keep(linear)
		if n.Residual {
			c.Linear = append(c.Linear, a.vecOf(n.Readout)...)
		}
	} else {
		c.Linear = a.vec(c.Blocks() * d)
	}
	return c
}

func equalMat(x, y [][]float64) bool {
	for i := range x {
		for j := range x[i] {
			if x[i][j] != y[i][j] {
				return false
			}
		}
	}
	return true
}

func lessMat(x, y [][]float64) bool {
	for i := range x {
		for j := range x[i] {
			if x[i][j] != y[i][j] {
				return x[i][j] < y[i][j]
			}
		}
	}
	return false
}
