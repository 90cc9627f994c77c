package attention

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Canonical returns the canonical form of l (MATH.md §1): heads whose W agree
// entrywise within tol·max(1, |W|_max) are merged into one head with the
// first head's W and the sum of their v, and merged heads whose v is within
// tol·max(1, |v_k|_max) of zero are dropped, v_k ranging over the merged heads. The heads of the result are sorted
// by W in lexicographic order, so that two layers that are the same up to a
// permutation of heads give the same canonical form. l is not modified.
func Canonical(l Layer, tol float64) Layer {
	type group struct {
		w   *mat.Dense
		v   *mat.VecDense
		mag float64 // largest |v| entry among the merged heads
	}
	var groups []group
	for _, h := range l {
		merged := false
		for k := range groups {
			if closeDense(groups[k].w, h.W, tol) {
				groups[k].v.AddVec(groups[k].v, h.V)
				groups[k].mag = math.Max(groups[k].mag, mat.Norm(h.V, math.Inf(1)))
				merged = true
				break
			}
		}
		if !merged {
			groups = append(groups, group{w: mat.DenseCopyOf(h.W), v: mat.VecDenseCopyOf(h.V), mag: mat.Norm(h.V, math.Inf(1))})
		}
	}
	out := make(Layer, 0, len(groups))
	for _, g := range groups {
		if mat.Norm(g.v, math.Inf(1)) <= tol*math.Max(1, g.mag) {
			continue
		}
		out = append(out, Head{W: g.w, V: g.v})
	}
	sort.SliceStable(out, func(i, j int) bool { return LessW(out[i].W, out[j].W) })
	return out
}

func closeDense(a, b *mat.Dense, tol float64) bool {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		return false
	}
	scale := math.Max(1, math.Max(mat.Norm(a, math.Inf(1)), mat.Norm(b, math.Inf(1))))
	for i := 0; i < ar; i++ {
		for j := 0; j < ac; j++ {
			if math.Abs(a.At(i, j)-b.At(i, j)) > tol*scale {
				return false
			}
		}
	}
	return true
}

// LessW orders matrices lexicographically by rows: the order of the heads
// of a canonical layer.
func LessW(a, b *mat.Dense) bool {
	r, c := a.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if x, y := a.At(i, j), b.At(i, j); x != y {
				return x < y
			}
		}
	}
	return false
}
