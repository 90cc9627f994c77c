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
func Canonical(l Layer, tol float64) Layer { return Biased{Layer: l}.Canonical(tol).Layer }

// Canonical returns the canonical form of b as Canonical does, heads being
// merged only where their query biases c_h agree too (within the same
// tolerance); the c_h follow their heads and C is kept. b is not modified.
func (b Biased) Canonical(tol float64) Biased {
	type group struct {
		w   *mat.Dense
		v   *mat.VecDense
		c   []float64
		mag float64 // largest |v| entry among the merged heads
	}
	var groups []group
	for k, h := range b.Layer {
		c := b.Bias(k)
		merged := false
		for i := range groups {
			if closeDense(groups[i].w, h.W, tol) && closeVec(groups[i].c, c, tol) {
				groups[i].v.AddVec(groups[i].v, h.V)
				groups[i].mag = math.Max(groups[i].mag, vecNormInf(h.V))
				merged = true
				break
			}
		}
		if !merged {
			groups = append(groups, group{w: mat.DenseCopyOf(h.W), v: mat.VecDenseCopyOf(h.V), c: append([]float64(nil), c...), mag: vecNormInf(h.V)})
		}
	}
	out := Biased{Layer: make(Layer, 0, len(groups)), Const: b.Const}
	var biases [][]float64
	for _, g := range groups {
		if vecNormInf(g.v) <= tol*math.Max(1, g.mag) {
			continue
		}
		out.Layer = append(out.Layer, Head{W: g.w, V: g.v})
		biases = append(biases, g.c)
	}
	order := make([]int, len(out.Layer))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return LessW(out.Layer[order[i]].W, out.Layer[order[j]].W) })
	sorted := make(Layer, len(order))
	for i, k := range order {
		sorted[i] = out.Layer[k]
	}
	out.Layer = sorted
	if b.QueryBias != nil {
		out.QueryBias = make([][]float64, len(order))
		for i, k := range order {
			out.QueryBias[i] = biases[k]
		}
	}
	return out
}

// closeVec reports whether a and b (nil: zero) agree entrywise within
// tol·max(1, their largest entry).
func closeVec(a, b []float64, tol float64) bool {
	n := max(len(a), len(b))
	at := func(x []float64, i int) float64 {
		if i < len(x) {
			return x[i]
		}
		return 0
	}
	scale := 1.0
	for i := 0; i < n; i++ {
		scale = math.Max(scale, math.Max(math.Abs(at(a, i)), math.Abs(at(b, i))))
	}
	for i := 0; i < n; i++ {
		if math.Abs(at(a, i)-at(b, i)) > tol*scale {
			return false
		}
	}
	return true
}

func closeDense(a, b *mat.Dense, tol float64) bool {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		return false
	}
	scale := math.Max(1, math.Max(normInf(a), normInf(b)))
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
