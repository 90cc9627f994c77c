package transformer

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
)

// Equivalent reports whether a and b are the same network up to the
// equivalences of MATH.md §3.7, comparing parameters to the relative
// tolerance tol: heads permuted and merged (W within tol), units rescaled,
// permuted, merged when their η point the same way, dropped when dead, and
// a unit traded for its opposite plus a linear term
// (s·ReLU(η·φ) = s·ReLU(−η·φ) + s·η·φ). Values in another basis leave the
// canonical form unchanged. It returns nil when they are equivalent, else
// an error saying what differs. The comparison is at the larger of the two
// precisions.
func Equivalent(a, b Canonical, tol float64) error {
	if a.Width != b.Width {
		return fmt.Errorf("transformer: widths %d and %d differ", a.Width, b.Width)
	}
	if a.Residual != b.Residual {
		return fmt.Errorf("transformer: one network has the residual, the other not")
	}
	if !(tol > 0) {
		return fmt.Errorf("transformer: tolerance %v is not positive", tol)
	}
	for _, c := range []Canonical{a, b} {
		if err := c.validate(); err != nil {
			return err
		}
	}
	ar := arith{max(precOf(a), precOf(b))}
	na, nb := normalHeads(ar, a, tol), normalHeads(ar, b, tol)
	if len(na.Heads) != len(nb.Heads) {
		return fmt.Errorf("transformer: %d canonical heads against %d", len(na.Heads), len(nb.Heads))
	}
	// Match b's heads to a's and reorder b's blocks accordingly.
	d := a.Width
	perm := make([]int, len(na.Heads)) // perm[i]: b's head matched to a's head i
	used := make([]bool, len(nb.Heads))
	for i, wa := range na.Heads {
		best, bestErr := -1, math.Inf(1)
		for j, wb := range nb.Heads {
			if used[j] {
				continue
			}
			if e := relMatDiff(wa, wb); e < bestErr {
				best, bestErr = j, e
			}
		}
		if bestErr > tol {
			return fmt.Errorf("transformer: head %d has no counterpart (closest W differs by %.3g relative)", i, bestErr)
		}
		perm[i], used[best] = best, true
	}
	reorder := func(x []*big.Float) []*big.Float {
		out := make([]*big.Float, 0, len(x))
		for _, j := range perm {
			out = append(out, x[j*d:(j+1)*d]...)
		}
		return append(out, x[len(perm)*d:]...) // the residual block
	}
	for k := range nb.Units {
		nb.Units[k].Eta = reorder(nb.Units[k].Eta)
	}
	nb.Linear = reorder(nb.Linear)
	ga, la := normalUnits(ar, na, tol)
	gb, lb := normalUnits(ar, nb, tol)
	scale := math.Max(maxAbs(la), math.SmallestNonzeroFloat64)
	for _, g := range ga {
		scale = math.Max(scale, maxAbs(g))
	}
	if len(ga) != len(gb) {
		return fmt.Errorf("transformer: %d units against %d", len(ga), len(gb))
	}
	usedU := make([]bool, len(gb))
	for i, g := range ga {
		best, bestErr := -1, math.Inf(1)
		for j, h := range gb {
			if usedU[j] {
				continue
			}
			if e := maxAbs(ar.subVec(g, h)) / scale; e < bestErr {
				best, bestErr = j, e
			}
		}
		if bestErr > tol {
			return fmt.Errorf("transformer: unit %d has no counterpart (closest s·η differs by %.3g relative)", i, bestErr)
		}
		usedU[best] = true
	}
	if e := maxAbs(ar.subVec(la, lb)) / scale; e > tol {
		return fmt.Errorf("transformer: linear terms differ by %.3g relative", e)
	}
	return nil
}

// validate reports whether c's shapes agree: W_h d×d, every η and λ of
// length Blocks()·d, no missing entry.
func (c Canonical) validate() error {
	d, n := c.Width, c.Blocks()*c.Width
	if d < 1 {
		return fmt.Errorf("transformer: canonical network of width %d", d)
	}
	ok := func(v []*big.Float) bool {
		for _, x := range v {
			if x == nil || x.IsInf() {
				return false
			}
		}
		return true
	}
	for h, w := range c.Heads {
		if len(w) != d {
			return fmt.Errorf("transformer: canonical head %d has %d rows, want %d", h, len(w), d)
		}
		for _, row := range w {
			if len(row) != d || !ok(row) {
				return fmt.Errorf("transformer: canonical head %d is not a finite %d×%d matrix", h, d, d)
			}
		}
	}
	if len(c.Linear) != n || !ok(c.Linear) {
		return fmt.Errorf("transformer: linear term of length %d, want %d finite entries", len(c.Linear), n)
	}
	for k, u := range c.Units {
		if len(u.Eta) != n || !ok(u.Eta) || (u.Sign != 1 && u.Sign != -1) {
			return fmt.Errorf("transformer: unit %d has η of length %d (want %d finite entries) or sign %d", k, len(u.Eta), n, u.Sign)
		}
	}
	return nil
}

func precOf(c Canonical) uint {
	for _, w := range c.Heads {
		return w[0][0].Prec()
	}
	for _, l := range c.Linear {
		return l.Prec()
	}
	return 64
}

// normalHeads returns a copy of c with heads whose W agree within tol
// merged (blocks summed) and heads that no unit or linear term sees
// dropped.
func normalHeads(a arith, c Canonical, tol float64) Canonical {
	d := c.Width
	var groups [][]int
	for h, w := range c.Heads {
		found := false
		for g := range groups {
			if relMatDiff(c.Heads[groups[g][0]], w) <= tol {
				groups[g] = append(groups[g], h)
				found = true
				break
			}
		}
		if !found {
			groups = append(groups, []int{h})
		}
	}
	merge := func(x []*big.Float) []*big.Float {
		out := a.vec(len(groups) * d)
		for g, hs := range groups {
			for _, h := range hs {
				for i := 0; i < d; i++ {
					out[g*d+i].Add(out[g*d+i], x[h*d+i])
				}
			}
		}
		return append(out, a.copyVec(x[len(c.Heads)*d:])...)
	}
	out := Canonical{Width: d, Residual: c.Residual}
	units := make([][]*big.Float, len(c.Units))
	scale := maxAbs(c.Linear)
	for k, u := range c.Units {
		units[k] = merge(u.Eta)
		scale = math.Max(scale, maxAbs(u.Eta))
	}
	linear := merge(c.Linear)
	seen := make([]bool, len(groups))
	for g := range groups {
		seen[g] = maxAbs(linear[g*d:(g+1)*d]) > tol*scale
		for k := range units {
			seen[g] = seen[g] || maxAbs(units[k][g*d:(g+1)*d]) > tol*scale
		}
	}
	keep := func(x []*big.Float) []*big.Float {
		var y []*big.Float
		for g := range groups {
			if seen[g] {
				y = append(y, x[g*d:(g+1)*d]...)
			}
		}
		return append(y, x[len(groups)*d:]...)
	}
	for g, hs := range groups {
		if seen[g] {
			out.Heads = append(out.Heads, c.Heads[hs[0]])
		}
	}
	for k, u := range c.Units {
		out.Units = append(out.Units, CanonicalUnit{Sign: u.Sign, Eta: keep(units[k])})
	}
	out.Linear = keep(linear)
	return out
}

// normalUnits writes every unit as a signed vector g = s·η pointing into
// the half-space r·η > 0 of a fixed reference r (a unit on the other side
// is traded for its opposite and a linear term), merges units pointing the
// same way (their g add), drops dead ones, and returns the g and the
// linear term.
func normalUnits(a arith, c Canonical, tol float64) ([][]*big.Float, []*big.Float) {
	n := len(c.Linear)
	r := make([]*big.Float, n)
	for i := range r {
		// A fixed generic direction: no unit of a random network lies
		// near its orthogonal complement.
		x := float64(i+1) * 0.6180339887498949
		r[i] = a.f(x - math.Floor(x) - 0.3)
	}
	lin := a.copyVec(c.Linear)
	var gs [][]*big.Float
	scale := maxAbs(lin)
	for _, u := range c.Units {
		g := a.copyVec(u.Eta)
		if u.Sign < 0 {
			g = a.scaleVec(a.f(-1), g)
		}
		if a.dot(u.Eta, r).Sign() < 0 {
			// s·ReLU(η·φ) = s·ReLU(−η·φ) + s·η·φ.
			lin = a.addVec(lin, g)
			g = a.scaleVec(a.f(-1), g)
		}
		gs = append(gs, g)
		scale = math.Max(scale, maxAbs(g))
	}
	// Merge units whose directions agree within tol.
	var out [][]*big.Float
	var dirs [][]*big.Float
	for _, g := range gs {
		nrm := a.norm(g)
		if nrm.Sign() == 0 {
			continue
		}
		dir := a.scaleVec(a.quo(a.f(1), nrm), g)
		if a.dot(dir, r).Sign() < 0 {
			dir = a.scaleVec(a.f(-1), dir)
		}
		merged := false
		for j := range out {
			if maxAbs(a.subVec(dirs[j], dir)) <= tol {
				out[j] = a.addVec(out[j], g)
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, g)
			dirs = append(dirs, dir)
		}
	}
	var live [][]*big.Float
	for _, g := range out {
		if maxAbs(g) > tol*scale {
			live = append(live, g)
		}
	}
	return live, lin
}

// relMatDiff returns max |x − y| / max(1, |x|, |y|), entrywise.
func relMatDiff(x, y [][]*big.Float) float64 {
	var diff, scale float64 = 0, 1
	a := arith{max(x[0][0].Prec(), y[0][0].Prec())}
	for i := range x {
		diff = math.Max(diff, maxAbs(a.subVec(x[i], y[i])))
		scale = math.Max(scale, math.Max(maxAbs(x[i]), maxAbs(y[i])))
	}
	return diff / scale
}

// Agreement compares f and g functionally on count random sequences of
// 1…maxLen tokens of width d (entries standard normal, drawn from seed):
// it returns the largest |f(X) − g(X)| relative to max(|f(X)|, the RMS of f
// over the sequences), so that a sequence where every unit is off
// (F = 0) does not divide by zero. Tokens are exact float64 values; the
// answers are compared at prec bits. It returns NaN for nothing to compare
// (a nil oracle, d, count or maxLen below 1).
func Agreement(f, g OracleFunc, d int, seed uint64, count, maxLen int, prec uint) float64 {
	if f == nil || g == nil || d < 1 || count < 1 || maxLen < 1 {
		return math.NaN()
	}
	rng := rand.New(rand.NewPCG(seed, 0x6167726565)) // "agree"
	a := arith{prec}
	fs := make([]*big.Float, count)
	gs := make([]*big.Float, count)
	var sq float64
	for s := 0; s < count; s++ {
		n := 1 + rng.IntN(maxLen)
		X := make([][]*big.Float, n)
		for i := range X {
			X[i] = a.vec(d)
			for j := range X[i] {
				X[i][j].SetFloat64(rng.NormFloat64())
			}
		}
		fs[s], gs[s] = f(X), g(X)
		v := float(fs[s])
		sq += float64(v * v)
	}
	rms := math.Sqrt(sq / float64(max(count, 1)))
	worst := 0.0
	for s := range fs {
		diff := math.Abs(float(a.sub(fs[s], gs[s])))
		den := math.Max(math.Abs(float(fs[s])), rms)
		if den == 0 {
			den = 1
		}
		worst = math.Max(worst, diff/den)
	}
	return worst
}
