package recovery

import (
	"math"

	"headlab/numerics/internal/linalg"
)

// The solver's Levenberg–Marquardt steps solve the damped normal
// equations (JᵀJ + Λ) δ = −Jᵀe, assembled directly from the sparse rows
// (never the dense Jacobian) in the block-angular layout of solver: per
// block b the local part A_b = J_bᵀJ_b, its coupling B_b = J_bᵀG_b to the
// global parameters and its right-hand side, and for the global
// parameters C = GᵀG and theirs. One assembly serves every damping tried
// at that point; a damping costs a Cholesky factorisation per block, the
// Schur complement S = C − Σ B_bᵀ A_b⁻¹ B_b and its Cholesky
// factorisation, instead of a QR of all rows. The normal equations square
// the condition number of J, which the step tolerates (a step that does
// not lower the cost is rejected and the damping raised); the fixed point
// is set by the residuals, not by the step, and the variances the
// self-check uses are still computed by QR (solver.variances).

// normalWork holds stepNormal's buffers, reused for every damping tried.
type normalWork struct {
	s, rhs     []float64
	ls, ys, yb [][]float64
}

// normalEq is the damping-independent part of one Levenberg–Marquardt
// iteration: the blocks of JᵀJ and −Jᵀe, and the column norms of J.
type normalEq struct {
	a, b, gb [][]float64 // per block: A_b (s×s), B_b (s×ng), −J_bᵀe (s)
	c, gg    []float64   // C (ng×ng) and −Gᵀe (ng)
	bn       [][]float64 // column norms of the blocks' parameters
	gn       []float64   // column norms of the global parameters
	ok       bool
}

// normalEquations assembles JᵀJ and −Jᵀe at t from the rows' gradients.
func (sv *solver) normalEquations(t theta) normalEq {
	nb, ng := len(sv.bsize), sv.ng
	ne := normalEq{a: make([][]float64, nb), b: make([][]float64, nb), gb: make([][]float64, nb),
		c: make([]float64, ng*ng), gg: make([]float64, ng), bn: make([][]float64, nb), gn: make([]float64, ng), ok: true}
	maxS := 0
	for k, s := range sv.bsize {
		ne.a[k] = make([]float64, s*s)
		ne.b[k] = make([]float64, s*ng)
		ne.gb[k] = make([]float64, s)
		ne.bn[k] = make([]float64, s)
		maxS = max(maxS, s)
	}
	gnz := make([]int, 0, ng) // nonzero global entries of the row
	lval := make([]float64, maxS)
	lpos := make([]int, 0, maxS) // local positions the row touches
	ne.ok = sv.eachRow(t, func(p int, g float64) {
		found := false
		for _, q := range lpos {
			if q == p {
				found = true
				break
			}
		}
		if !found {
			lpos = append(lpos, p)
			lval[p] = 0
		}
		lval[p] += g
	}, func(gbuf []float64, block int, e float64) {
		defer func() { lpos = lpos[:0] }()
		e = -e
		gnz = gnz[:0]
		for i, g := range gbuf {
			if g != 0 {
				gnz = append(gnz, i)
			}
		}
		// C and −Gᵀe (upper triangle of C, gnz being ascending; mirrored
		// below).
		for ii, i := range gnz {
			gi := gbuf[i]
			ne.gg[i] += float64(gi * e)
			ci := ne.c[i*ng : (i+1)*ng]
			for _, j := range gnz[ii:] {
				ci[j] += float64(gi * gbuf[j])
			}
		}
		if block < 0 {
			return
		}
		s := sv.bsize[block]
		a, bb, gb := ne.a[block], ne.b[block], ne.gb[block]
		for _, p := range lpos {
			vp := lval[p]
			gb[p] += float64(vp * e)
			ap := a[p*s : (p+1)*s]
			for _, q := range lpos {
				ap[q] += float64(vp * lval[q])
			}
			bp := bb[p*ng : (p+1)*ng]
			for _, i := range gnz {
				bp[i] += float64(vp * gbuf[i])
			}
		}
	})
	for i := 0; i < ng; i++ {
		for j := 0; j < i; j++ {
			ne.c[i*ng+j] = ne.c[j*ng+i]
		}
		ne.gn[i] = math.Sqrt(ne.c[i*ng+i])
	}
	for k, s := range sv.bsize {
		for i := 0; i < s; i++ {
			ne.bn[k][i] = math.Sqrt(ne.a[k][i*s+i])
		}
	}
	return ne
}

// dampingSquare is the square of the damping of a column with norm
// norm: λ·norm², or 1 for a column J does not determine (as the QR step's
// damping rows).
func dampingSquare(norm, lambda float64) float64 {
	if norm == 0 || math.IsInf(norm, 0) || math.IsNaN(norm) {
		return 1
	}
	return float64(lambda * float64(norm*norm))
}

// stepNormal returns the Levenberg–Marquardt step for damping lambda from
// the normal equations, eliminating every block's parameters (Cholesky of
// A_b + Λ_b) and solving the Schur complement in the global ones. The step
// lives in the solver's buffers until its next call.
func (sv *solver) stepNormal(ne normalEq, lambda float64) (db [][]float64, dg []float64, ok bool) {
	nb, ng := len(sv.bsize), sv.ng
	w := &sv.work
	if w.s == nil {
		w.s = make([]float64, ng*ng)
		w.rhs = make([]float64, ng)
		w.ls, w.ys, w.yb = make([][]float64, nb), make([][]float64, nb), make([][]float64, nb)
		for k, sz := range sv.bsize {
			w.ls[k] = make([]float64, sz*sz)
			w.ys[k] = make([]float64, sz*ng)
			w.yb[k] = make([]float64, sz)
		}
	}
	s := w.s
	copy(s, ne.c)
	rhs := w.rhs
	copy(rhs, ne.gg)
	for i := 0; i < ng; i++ {
		s[i*ng+i] += dampingSquare(ne.gn[i], lambda)
	}
	ls := w.ls // Cholesky factors of the damped blocks
	ys := w.ys // A_b⁻¹ B_b (s×ng)
	yb := w.yb // A_b⁻¹ g_b
	for k, sz := range sv.bsize {
		sv.tick()
		l := ls[k]
		copy(l, ne.a[k])
		for i := 0; i < sz; i++ {
			l[i*sz+i] += dampingSquare(ne.bn[k][i], lambda)
		}
		if !linalg.Cholesky(l, sz) {
			return nil, nil, false
		}
		y := ys[k]
		copy(y, ne.b[k])
		linalg.CholSolveCols(l, sz, y, ng)
		x := yb[k]
		copy(x, ne.gb[k])
		linalg.CholSolve(l, sz, x)
		// S −= B_bᵀ Y_b, rhs −= B_bᵀ x_b (upper triangle, mirrored below).
		bb := ne.b[k]
		for p := 0; p < sz; p++ {
			bp, yp := bb[p*ng:(p+1)*ng], y[p*ng:(p+1)*ng]
			xp := x[p]
			for i := 0; i < ng; i++ {
				bi := bp[i]
				if bi == 0 {
					continue
				}
				rhs[i] -= float64(bi * xp)
				si := s[i*ng : (i+1)*ng]
				for j := i; j < ng; j++ {
					si[j] -= float64(bi * yp[j])
				}
			}
		}
	}
	for i := 0; i < ng; i++ {
		for j := 0; j < i; j++ {
			s[i*ng+j] = s[j*ng+i]
		}
	}
	dg = rhs
	if ng > 0 {
		sv.tick()
		if !linalg.Cholesky(s, ng) {
			return nil, nil, false
		}
		linalg.CholSolve(s, ng, dg)
	}
	db = make([][]float64, nb)
	for k, sz := range sv.bsize {
		x := yb[k]
		y := ys[k]
		for p := 0; p < sz; p++ {
			yp := y[p*ng : (p+1)*ng]
			var acc float64
			for i, v := range dg {
				acc += float64(yp[i] * v)
			}
			x[p] -= acc
		}
		db[k] = x
	}
	for _, x := range db {
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, false
			}
		}
	}
	for _, v := range dg {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, false
		}
	}
	return db, dg, true
}

// predicted returns the reduction of the cost the linear model predicts
// for the step (db, dg) taken with damping lambda: with g = −Jᵀe and
// (JᵀJ + Λ)δ = g it is 2δᵀg − δᵀJᵀJδ = δᵀg + δᵀΛδ.
func (ne normalEq) predicted(db [][]float64, dg []float64, lambda float64) float64 {
	var pred float64
	for k, x := range db {
		for i, v := range x {
			pred += float64(v * float64(ne.gb[k][i]+float64(dampingSquare(ne.bn[k][i], lambda)*v)))
		}
	}
	for i, v := range dg {
		pred += float64(v * float64(ne.gg[i]+float64(dampingSquare(ne.gn[i], lambda)*v)))
	}
	return pred
}
