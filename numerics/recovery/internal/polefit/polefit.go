// Package polefit searches, in float64, for the log-poles of a frugal
// measurement (numerics/MATH.md §3.4): samples F(n) = F(0) − Σ_h
// r_h·n/(n + ρ_h) with every r_h and F(0) known, so only the H log-poles
// p_h = log ρ_h are unknown. It holds the samples' least-squares problem,
// the starts that elimination (numerics/internal/poles) finds, and the
// coordinate and pair scans that move a start out of a false minimum.
// Every search gives the same bits whatever the number of goroutines.
package polefit

import (
	"cmp"
	"math"
	"slices"

	"headlab/numerics/internal/parallel"
	"headlab/numerics/internal/poles"
	"headlab/numerics/internal/stopping"
	"headlab/numerics/internal/xmath"
	"headlab/numerics/recovery/internal/lsq"
)

// Samples are the samples of one frugal measurement with its known
// terms: y(n) = f0 − Σ_h r[h]·n/(n + exp p_h).
type Samples struct {
	N, Y, Sigma []float64 // the samples' n, their answers and noise
	F0          float64   // F(0)
	R           []float64 // the known r_h
}

// Problem returns the weighted least-squares problem of the log-poles,
// with buffers of its own.
func (q Samples) Problem(tick func()) lsq.Problem {
	hc := len(q.R)
	rho := make([]float64, hc)
	rhos := func(p []float64) {
		for h := range rho {
			rho[h] = xmath.Exp(p[h])
		}
	}
	u := make([]float64, len(q.N))
	for i := range u {
		u[i] = stopping.Rounding(q.Y[i], q.Sigma[i])
	}
	return lsq.Problem{M: len(q.N), N: hc, U: u,
		Resid: func(p, e []float64) {
			tick()
			rhos(p)
			for i, n := range q.N {
				y := q.F0
				for h := 0; h < hc; h++ {
					y -= q.R[h] * n / (n + rho[h])
				}
				e[i] = (y - q.Y[i]) / q.Sigma[i]
			}
		},
		Jac: func(p, j []float64) {
			rhos(p)
			for i, n := range q.N {
				ji := j[i*hc : (i+1)*hc]
				for h := range ji {
					den := n + rho[h]
					ji[h] = q.R[h] * n * rho[h] / (den * den) / q.Sigma[i]
				}
			}
		},
	}
}

// Same reports whether two sets of log-poles agree to 1e-6.
func Same(a, b []float64) bool {
	for h := range a {
		if math.Abs(a[h]-b[h]) > 1e-6*(1+math.Abs(b[h])) {
			return false
		}
	}
	return true
}

// The deflated search, for EliminatedHeads < H ≤ DeflatedHeads: H −
// EliminatedHeads heads' poles held (every choice of them) at every
// combination of deflatedOffsets widths from their ranges' centres, the
// other EliminatedHeads solved by elimination from the first
// EliminatedHeads + 1 samples less the held heads' terms
// (numerics/internal/poles, microseconds each), and the deflatedKeep of
// these starts that fit all the samples best fitted. Where the quick
// search's fits wander off (a pole running to 0, or two merging), these
// starts are near the truth: at (4, 4) with 192 bits the homotopy is left
// a fifth of the measurements instead of over half, and at (5, 4) with
// 256 bits (no homotopy) 62 of 120 fall back instead of 99. H = 4 holds
// one head at 3 points (12 eliminations), H = 5 two at 3 × 3 (90).
const DeflatedHeads = EliminatedHeads + 2

var deflatedOffsets = [...]float64{-0.5, 0, 0.5}

const deflatedKeep = 8

// DeflatedStarts returns the deflated search's starts for q, best fit
// first. The eliminations are independent, so they run on up to workers
// goroutines; each one's starts go into its own slot and are gathered in
// the eliminations' order, so the result is the same bits for any number.
func DeflatedStarts(q Samples, mu, width []float64, workers int) [][]float64 {
	hc := len(q.R)
	held := hc - EliminatedHeads
	if held < 1 || hc > DeflatedHeads || len(q.N) < hc+1 {
		return nil
	}
	m := EliminatedHeads + 1 // the samples the elimination takes
	w := q.Weights(m)
	type start struct {
		p   []float64
		chi float64
	}
	// One elimination per choice of held heads and of their offsets.
	type item struct{ held, free, off []int }
	var items []item
	for _, g := range subsets(hc, held) {
		var free []int
		for h := 0; h < hc; h++ {
			if !slices.Contains(g, h) {
				free = append(free, h)
			}
		}
		for _, off := range tuples(len(deflatedOffsets), held) {
			items = append(items, item{g, free, off})
		}
	}
	found := make([][]start, len(items))
	parallel.Each(len(items), min(workers, len(items)/minEliminationsPerWorker), func() func(int) {
		prob := q.Problem(func() {})
		e := make([]float64, prob.M)
		r := make([]float64, EliminatedHeads)
		v := make([]float64, m)
		hold := make([]float64, hc) // the held heads' log-poles
		return func(i int) {
			it := items[i]
			for k, h := range it.free {
				r[k] = q.R[h]
			}
			copy(v, w)
			for k, h := range it.held {
				hold[h] = mu[h] + float64(deflatedOffsets[it.off[k]]*width[h])
				rho := xmath.Exp(hold[h])
				for s := range v {
					v[s] -= q.R[h] / (q.N[s] + rho)
				}
			}
			res, err := poles.Solve(r, q.N[:m], v, 1)
			if err != nil {
				return
			}
			for _, sol := range res.Solutions {
				lp, ok := logPoles(sol)
				if !ok {
					continue
				}
				p := make([]float64, hc)
				for _, h := range it.held {
					p[h] = hold[h]
				}
				for k, h := range it.free {
					p[h] = lp[k]
				}
				prob.Resid(p, e)
				if chi := lsq.SumSquares(e); !math.IsNaN(chi) && !math.IsInf(chi, 0) {
					found[i] = append(found[i], start{p, chi})
				}
			}
		}
	})
	starts := slices.Concat(found...)
	slices.SortStableFunc(starts, func(a, b start) int { return cmp.Compare(a.chi, b.chi) })
	var out [][]float64
	for _, s := range starts[:min(len(starts), deflatedKeep)] {
		out = lsq.AppendDistinct(out, s.p)
	}
	return out
}

// minEliminationsPerWorker is the fewest deflated eliminations worth a
// goroutine of their own (some 20 µs each).
const minEliminationsPerWorker = 8

// subsets returns every k-element subset of 0…n−1, each increasing, in
// lexicographic order.
func subsets(n, k int) [][]int {
	var out [][]int
	var walk func(from int, s []int)
	walk = func(from int, s []int) {
		if len(s) == k {
			out = append(out, slices.Clone(s))
			return
		}
		for i := from; i < n; i++ {
			walk(i+1, append(s, i))
		}
	}
	walk(0, nil)
	return out
}

// tuples returns every k-tuple over 0…n−1, in lexicographic order.
func tuples(n, k int) [][]int {
	out := [][]int{nil}
	for range k {
		var next [][]int
		for _, t := range out {
			for i := 0; i < n; i++ {
				next = append(next, append(slices.Clone(t), i))
			}
		}
		out = next
	}
	return out
}

// Coordinate scans: scanSweeps passes over the heads, each trying
// scanPoints log-poles evenly spread over the search range for one head
// with the others fixed, and keeping the best.
const (
	scanSweeps = 3
	scanPoints = 160
)

// Grid is the grid of a coordinate scan over lo…hi for one frugal
// measurement: every head's term at every grid point and sample, divided
// by the sample's noise, computed once and shared (read only) by the
// scans of every start.
type Grid struct {
	q    Samples
	lp   []float64   // the grid's log-poles
	term [][]float64 // term[h][g*m+i] = r_h·n_i/(n_i + exp lp[g]) / σ_i
}

// Grid returns the scan grid of q over lo…hi.
func (q Samples) Grid(lo, hi float64) *Grid {
	hc, m := len(q.R), len(q.N)
	gr := &Grid{q: q, lp: make([]float64, scanPoints), term: make([][]float64, hc)}
	rhos := make([]float64, scanPoints)
	for g := range rhos {
		gr.lp[g] = lo + (hi-lo)*float64(g)/float64(scanPoints-1)
		rhos[g] = xmath.Exp(gr.lp[g])
	}
	for h := range gr.term {
		t := make([]float64, scanPoints*m)
		for g, rho := range rhos {
			for i := 0; i < m; i++ {
				t[g*m+i] = q.R[h] * q.N[i] / (q.N[i] + rho) / q.Sigma[i]
			}
		}
		gr.term[h] = t
	}
	return gr
}

// Scan moves the log-poles p0 by coordinate scans: each head's term
// is a function of its own pole alone, so one head's best value over a
// grid costs one pass over the samples per grid point (the scaled
// residual of the other heads, less the grid's scaled term, stopped once
// it exceeds the best so far). Fits from a start so moved escape the
// local minima where two heads' poles sit in each other's place.
func (gr *Grid) Scan(p0 []float64) []float64 {
	q := gr.q
	hc, m := len(q.R), len(q.N)
	p := append([]float64(nil), p0...)
	// terms[h*m+i]: head h's term at its current pole, sample i.
	terms := make([]float64, hc*m)
	set := func(h int) {
		rho := xmath.Exp(p[h])
		for i := 0; i < m; i++ {
			terms[h*m+i] = q.R[h] * q.N[i] / (q.N[i] + rho)
		}
	}
	for h := 0; h < hc; h++ {
		set(h)
	}
	base := make([]float64, m) // (F(0) − the other heads' terms − y_i)/σ_i
	for sweep := 0; sweep < scanSweeps; sweep++ {
		for h := 0; h < hc; h++ {
			var bestCost float64
			for i := range base {
				y := q.F0
				for g := 0; g < hc; g++ {
					if g != h {
						y -= terms[g*m+i]
					}
				}
				base[i] = (y - q.Y[i]) / q.Sigma[i]
				e := (y - terms[h*m+i] - q.Y[i]) / q.Sigma[i]
				bestCost += float64(e * e)
			}
			best := -1
			th := gr.term[h]
			for g := range gr.lp {
				tg := th[g*m : (g+1)*m]
				var c float64
				for i, b := range base {
					e := b - tg[i]
					c += float64(e * e)
					if c >= bestCost {
						break
					}
				}
				if c < bestCost {
					best, bestCost = g, c
				}
			}
			if best >= 0 {
				p[h] = gr.lp[best]
				set(h)
			}
		}
	}
	return p
}

// pairPoints is the grid of a pair scan per head (pairPoints² points).
const pairPoints = 64

// PairScan moves the log-poles p0 by a scan of every pair of heads over
// the range lo…hi at once (the others fixed), keeping each improvement:
// it escapes minima that one head at a time cannot leave.
func (q Samples) PairScan(p0 []float64, lo, hi float64) []float64 {
	hc, m := len(q.R), len(q.N)
	p := append([]float64(nil), p0...)
	term := func(h, i int, ph float64) float64 { return q.R[h] * q.N[i] / (q.N[i] + xmath.Exp(ph)) }
	base := make([]float64, m)
	grid := make([][]float64, hc) // grid[h][g*m+i]: head h's term at grid point g, sample i
	for h := range grid {
		grid[h] = make([]float64, pairPoints*m)
		for g := 0; g < pairPoints; g++ {
			ph := lo + (hi-lo)*float64(g)/float64(pairPoints-1)
			for i := 0; i < m; i++ {
				grid[h][g*m+i] = term(h, i, ph)
			}
		}
	}
	for a := 0; a < hc; a++ {
		for b := a + 1; b < hc; b++ {
			for i := range base {
				y := q.F0
				for g := 0; g < hc; g++ {
					if g != a && g != b {
						y -= term(g, i, p[g])
					}
				}
				base[i] = y
			}
			bestCost := math.Inf(1)
			ga, gb := -1, -1
			for x := 0; x < pairPoints; x++ {
				for y := 0; y < pairPoints; y++ {
					var ss float64
					for i := range base {
						e := (base[i] - grid[a][x*m+i] - grid[b][y*m+i] - q.Y[i]) / q.Sigma[i]
						ss += float64(e * e)
					}
					if ss < bestCost {
						bestCost, ga, gb = ss, x, y
					}
				}
			}
			var cur float64
			for i := range base {
				e := (base[i] - term(a, i, p[a]) - term(b, i, p[b]) - q.Y[i]) / q.Sigma[i]
				cur += float64(e * e)
			}
			if ga >= 0 && bestCost < cur {
				p[a] = lo + (hi-lo)*float64(ga)/float64(pairPoints-1)
				p[b] = lo + (hi-lo)*float64(gb)/float64(pairPoints-1)
			}
		}
	}
	return p
}

// EliminatedHeads is the largest number of heads whose frugal poles
// numerics/internal/poles finds by elimination (microseconds); up to
// HomotopyHeads it follows the H! paths of a homotopy (milliseconds at
// H = 4), and beyond only the searches here look for them.
const (
	EliminatedHeads = 3
	HomotopyHeads   = 4
)

// SolvedStarts returns the real positive solutions that poles.Solve finds
// for the first H + 1 samples of q, as log-poles (up to workers
// goroutines following the homotopy's paths).
func SolvedStarts(q Samples, workers int) [][]float64 {
	hc := len(q.R)
	if hc > HomotopyHeads || len(q.N) < hc+1 {
		return nil
	}
	res, err := poles.Solve(q.R, q.N[:hc+1], q.Weights(hc+1), workers)
	if err != nil {
		return nil
	}
	var starts [][]float64
	for _, s := range res.Solutions {
		if p, ok := logPoles(s); ok {
			starts = lsq.AppendDistinct(starts, p)
		}
	}
	return starts
}

// Weights returns the weighted sums w_i = (F(0) − y_i)/n_i = Σ_h r_h/(n_i +
// ρ_h) of q's first m samples, as numerics/internal/poles takes them.
func (q Samples) Weights(m int) []float64 {
	w := make([]float64, m)
	for i := range w {
		w[i] = (q.F0 - q.Y[i]) / q.N[i]
	}
	return w
}

// logPoles returns the log-poles of a solution of poles.Solve, or false
// where a pole is not real (within realPart) and positive.
func logPoles(s []complex128) ([]float64, bool) {
	p := make([]float64, len(s))
	for h, v := range s {
		re, im := real(v), imag(v)
		if !(re > 0) || math.Abs(im) > realPart*re {
			return nil, false
		}
		p[h] = xmath.Log(re)
	}
	return p, true
}

// realPart is how large, relative to its real part, a solution's
// imaginary part may be for the solution to count as real: noise in the
// samples can turn two close real solutions into a complex pair.
const realPart = 1e-3
