package recovery

import (
	"math"

	"headlab/numerics/internal/linalg"
	"headlab/numerics/internal/stopping"
)

// row is one oracle answer seen by a fit: the RF geometry, n, the answer
// and its noise-model standard deviation.
type row struct {
	s     *spec
	n, y  float64
	sigma float64
}

// solver is a Levenberg–Marquardt fit of a subset of the parameters to a
// set of rows. The Jacobian is block-angular, as in bundle adjustment:
// every row touches the parameters of at most one column b of the P_h (a
// "block") plus global ones (every r_h and P_h[0][0]). Each step solves
// the damped normal equations with the blocks eliminated into a Schur
// complement in the global parameters (normal.go); a fit stops when no
// damping can lower the cost by more than its rounding (package
// stopping). The variances of the self-check come instead from a
// Householder QR of the rows, block by block (linearise, step): the QR of
// a block's rows eliminates its parameters, the rows left over are
// stacked and reduced by a dense QR in the global parameters. Working on J
// itself rather than JᵀJ keeps the condition number from being squared
// there (MATH.md §4).
type solver struct {
	rows []row
	d, H int
	c    float64 // the token scale
	tick func()  // the run's checkpoint, called in every long loop

	gpos  []int // parameter → position among the free global ones, or −1
	blk   []int // parameter → free block, or −1
	lpos  []int // parameter → position within its block
	bsize []int
	ng    int

	// Factors from the last step: per block R_b (upper, row-major) and S_b,
	// and the global R_g, kept for the covariance.
	rb [][]float64
	sb [][]float64
	rg []float64

	work normalWork // stepNormal's buffers
}

// newSolver returns the solver of rows in the parameters free of a model of
// H heads, width d and cols columns, under the token scale c.
func newSolver(rows []row, free []bool, H, d, cols int, c float64, tick func()) *solver {
	sv := &solver{rows: rows, d: d, H: H, c: c, tick: tick}
	n := H * (d*cols + d)
	sv.gpos = make([]int, n)
	sv.blk = make([]int, n)
	sv.lpos = make([]int, n)
	blockOf := make([]int, cols) // column → free block index
	for b := range blockOf {
		blockOf[b] = -1
	}
	t := theta{H: H, d: d, cols: cols}
	for i := range sv.gpos {
		sv.gpos[i], sv.blk[i], sv.lpos[i] = -1, -1, -1
	}
	for h := 0; h < H; h++ {
		for a := 0; a < d; a++ {
			for b := 0; b < cols; b++ {
				idx := t.pIndex(h, a, b)
				if !free[idx] {
					continue
				}
				// Q_h (column d) is global: the paper's links on
				// z_1 + z_j touch it beside their own column.
				if (a == 0 && b == 0) || b == d {
					sv.gpos[idx] = sv.ng
					sv.ng++
					continue
				}
				if blockOf[b] < 0 {
					blockOf[b] = len(sv.bsize)
					sv.bsize = append(sv.bsize, 0)
				}
				k := blockOf[b]
				sv.blk[idx] = k
				sv.lpos[idx] = sv.bsize[k]
				sv.bsize[k]++
			}
		}
	}
	for h := 0; h < H; h++ {
		for k := 0; k < d; k++ {
			idx := t.rIndex(h, k)
			if free[idx] {
				sv.gpos[idx] = sv.ng
				sv.ng++
			}
		}
	}
	return sv
}

// cost returns Σ ((F_model − y)/σ)² over the rows and its rounding floor
// (stopping.Floor).
func (sv *solver) cost(t theta) (ss, floor float64) {
	var sum stopping.Sum
	for _, r := range sv.rows {
		sum.Add((r.s.predict(r.n, t, sv.c)-r.y)/r.sigma, stopping.Rounding(r.y, r.sigma))
	}
	if math.IsNaN(sum.Squares()) {
		return math.Inf(1), 0
	}
	return sum.Squares(), sum.Floor()
}

// linearised holds the weighted Jacobian rows split by block: for block b,
// jb[b] is (rows × (bsize+ng+1)) with the local columns, the global ones
// and −e last; free rows touch only global parameters.
type linearised struct {
	jb   [][]float64
	mb   []int
	free []float64
	mf   int
	bn   [][]float64
	gn   []float64
	ok   bool
}

// eachRow walks the rows' weighted gradients at t: for each row it calls
// local(pos, g) for every entry in the one block of parameters the row
// touches (pos the position within the block), then row(gbuf, block, e)
// with the dense global part gbuf (reused: read it, do not keep it), the
// block (−1 for none) and the weighted residual e = (f(t) − y)/σ. It
// reports false if a row touched more than one block.
func (sv *solver) eachRow(t theta, local func(pos int, g float64), row func(gbuf []float64, block int, e float64)) bool {
	ok := true
	gbuf := make([]float64, sv.ng)
	for ri, r := range sv.rows {
		if ri%256 == 255 {
			sv.tick()
		}
		clear(gbuf)
		block := -1
		y := r.s.gradient(r.n, t, sv.c, func(idx int, g float64) {
			g /= r.sigma
			if p := sv.gpos[idx]; p >= 0 {
				gbuf[p] += g
				return
			}
			if k := sv.blk[idx]; k >= 0 {
				if block >= 0 && block != k {
					ok = false
					return
				}
				block = k
				local(sv.lpos[idx], g)
			}
		})
		row(gbuf, block, (y-r.y)/r.sigma)
	}
	return ok
}

func (sv *solver) linearise(t theta) linearised {
	nb, ng := len(sv.bsize), sv.ng
	lin := linearised{jb: make([][]float64, nb), mb: make([]int, nb), bn: make([][]float64, nb), gn: make([]float64, ng), ok: true}
	for k, s := range sv.bsize {
		lin.bn[k] = make([]float64, s)
	}
	type entry struct {
		pos int
		g   float64
	}
	var loc []entry
	var rowv []float64 // the current block row, copied into jb
	lin.ok = sv.eachRow(t, func(pos int, g float64) {
		loc = append(loc, entry{pos, g})
	}, func(gbuf []float64, block int, e float64) {
		defer func() { loc = loc[:0] }()
		for i, g := range gbuf {
			lin.gn[i] += float64(g * g)
		}
		if block < 0 {
			if ng == 0 {
				return
			}
			lin.free = append(lin.free, gbuf...)
			lin.free = append(lin.free, -e)
			lin.mf++
			return
		}
		s := sv.bsize[block]
		w := s + ng + 1
		rowv = append(rowv[:0], make([]float64, w)...)
		for _, en := range loc {
			rowv[en.pos] += en.g
		}
		for i := 0; i < s; i++ {
			lin.bn[block][i] += float64(rowv[i] * rowv[i])
		}
		copy(rowv[s:], gbuf)
		rowv[w-1] = -e
		lin.jb[block] = append(lin.jb[block], rowv...)
		lin.mb[block]++
	})
	for k := range lin.bn {
		for i := range lin.bn[k] {
			lin.bn[k][i] = math.Sqrt(lin.bn[k][i])
		}
	}
	for i := range lin.gn {
		lin.gn[i] = math.Sqrt(lin.gn[i])
	}
	return lin
}

// step returns the Levenberg–Marquardt step for damping lambda (rows
// √λ·|J_i| e_i appended for every column i) by QR, leaving the factors
// R_b, S_b and R_g in the solver; variances calls it with a negligible
// damping for those factors.
func (sv *solver) step(lin linearised, lambda float64) (db [][]float64, dg []float64, ok bool) {
	nb, ng := len(sv.bsize), sv.ng
	damp := func(norm float64) float64 {
		if norm == 0 || math.IsInf(norm, 0) || math.IsNaN(norm) {
			return 1
		}
		return math.Sqrt(lambda) * norm
	}
	wg := ng + 1
	// The stacked rows: the free rows, each block's rows below its R_b,
	// and the damping rows of the global columns.
	rows := lin.mf + ng
	for k := range sv.bsize {
		rows += lin.mb[k]
	}
	stack := make([]float64, len(lin.free), rows*wg)
	copy(stack, lin.free)
	ms := lin.mf
	sv.rb = make([][]float64, nb)
	sv.sb = make([][]float64, nb)
	fb := make([][]float64, nb)
	for k, s := range sv.bsize {
		sv.tick()
		w := s + ng + 1
		m := lin.mb[k] + s
		a := make([]float64, m*w)
		copy(a, lin.jb[k])
		for i := 0; i < s; i++ {
			a[(lin.mb[k]+i)*w+i] = damp(lin.bn[k][i])
		}
		if !linalg.Householder(a, m, w, s) {
			return nil, nil, false
		}
		r := make([]float64, s*s)
		sm := make([]float64, s*ng)
		f := make([]float64, s)
		for i := 0; i < s; i++ {
			copy(r[i*s:(i+1)*s], a[i*w:i*w+s])
			copy(sm[i*ng:(i+1)*ng], a[i*w+s:i*w+s+ng])
			f[i] = a[i*w+w-1]
		}
		sv.rb[k], sv.sb[k], fb[k] = r, sm, f
		for i := s; i < m; i++ {
			stack = append(stack, a[i*w+s:(i+1)*w]...)
			ms++
		}
	}
	for i := 0; i < ng; i++ {
		row := len(stack)
		stack = stack[:row+wg]
		clear(stack[row:])
		stack[row+i] = damp(lin.gn[i])
		ms++
	}
	dg = make([]float64, ng)
	if ng > 0 {
		sv.tick()
		if !linalg.Householder(stack, ms, wg, ng) {
			return nil, nil, false
		}
		sv.rg = make([]float64, ng*ng)
		for i := 0; i < ng; i++ {
			copy(sv.rg[i*ng:(i+1)*ng], stack[i*wg:i*wg+ng])
			dg[i] = stack[i*wg+ng]
		}
		if !linalg.BackSolve(sv.rg, ng, dg) {
			return nil, nil, false
		}
	}
	db = make([][]float64, nb)
	for k, s := range sv.bsize {
		x := append([]float64(nil), fb[k]...)
		for i := 0; i < s; i++ {
			for c := 0; c < ng; c++ {
				x[i] -= float64(sv.sb[k][i*ng+c] * dg[c])
			}
		}
		if !linalg.BackSolve(sv.rb[k], s, x) {
			return nil, nil, false
		}
		db[k] = x
	}
	return db, dg, true
}

// apply returns t moved by the step.
func (sv *solver) apply(t theta, db [][]float64, dg []float64) theta {
	out := t.clone()
	for idx := range out.x {
		if p := sv.gpos[idx]; p >= 0 {
			out.x[idx] += dg[p]
		} else if k := sv.blk[idx]; k >= 0 {
			out.x[idx] += db[k][sv.lpos[idx]]
		}
	}
	return out
}

// fit runs Levenberg–Marquardt from t for at most maxIter accepted steps
// and returns the best point and its cost.
func (sv *solver) fit(t theta, maxIter int) (theta, float64) {
	cost, floor := sv.cost(t)
	if sv.ng == 0 && len(sv.bsize) == 0 {
		return t, cost
	}
	lambda := 1e-6
	small := 0
	for iter := 0; iter < maxIter && cost > 0; iter++ {
		ne := sv.normalEquations(t)
		if !ne.ok {
			return t, cost
		}
		accepted := false
		for lambda < 1e8 {
			sv.tick()
			db, dg, ok := sv.stepNormal(ne, lambda)
			if ok && stopping.Negligible(ne.predicted(db, dg, lambda), cost, floor) {
				return t, cost // more damping only shrinks the step
			}
			if ok {
				nt := sv.apply(t, db, dg)
				nc, nf := sv.cost(nt)
				if nc < cost {
					if cost-nc <= 1e-12*cost {
						small++
					} else {
						small = 0
					}
					t, cost, floor = nt, nc, nf
					lambda = math.Max(lambda/10, 1e-14)
					accepted = true
					break
				}
			}
			lambda *= 10
		}
		if !accepted || small >= 2 {
			break
		}
	}
	return t, cost
}

// variances returns, for every parameter, the first-order variance of its
// estimate at t (the diagonal of (JᵀJ)⁻¹ for the weighted Jacobian), 0 for
// parameters that are not free.
func (sv *solver) variances(t theta) []float64 {
	out := make([]float64, len(t.x))
	lin := sv.linearise(t)
	if _, _, ok := sv.step(lin, 1e-20); !ok || !lin.ok {
		for i := range out {
			out[i] = math.Inf(1)
		}
		return out
	}
	ng := sv.ng
	// X_g = R_g⁻¹ and C_gg = X_g X_gᵀ.
	cgg := make([]float64, ng*ng)
	if ng > 0 {
		xg := linalg.InvUpper(sv.rg, ng)
		for i := 0; i < ng; i++ {
			for j := 0; j < ng; j++ {
				var acc float64
				for k := max(i, j); k < ng; k++ {
					acc += float64(xg[i*ng+k] * xg[j*ng+k])
				}
				cgg[i*ng+j] = acc
			}
		}
	}
	vb := make([][]float64, len(sv.bsize))
	for k, s := range sv.bsize {
		xb := linalg.InvUpper(sv.rb[k], s)
		v := make([]float64, s)
		y := make([]float64, ng)
		for i := 0; i < s; i++ {
			var acc float64
			for c := i; c < s; c++ {
				acc += float64(xb[i*s+c] * xb[i*s+c])
			}
			// y = row i of X_b S_b.
			for g := 0; g < ng; g++ {
				var yy float64
				for c := i; c < s; c++ {
					yy += float64(xb[i*s+c] * sv.sb[k][c*ng+g])
				}
				y[g] = yy
			}
			for a := 0; a < ng; a++ {
				if y[a] == 0 {
					continue
				}
				var cy float64
				for c := 0; c < ng; c++ {
					cy += float64(cgg[a*ng+c] * y[c])
				}
				acc += float64(y[a] * cy)
			}
			v[i] = acc
		}
		vb[k] = v
	}
	for idx := range out {
		if p := sv.gpos[idx]; p >= 0 {
			out[idx] = cgg[p*ng+p]
		} else if k := sv.blk[idx]; k >= 0 {
			out[idx] = vb[k][sv.lpos[idx]]
		}
		if math.IsNaN(out[idx]) {
			out[idx] = math.Inf(1)
		}
	}
	return out
}
