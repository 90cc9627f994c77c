package recovery

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
)

// Self-check limits on the RMS of the global fit's weighted residuals: for
// an exact oracle the noise model (1e-16 relative) is below the oracle's
// real rounding, so the limit is loose; for a noisy oracle the residuals
// are in units of its stated accuracy.
const (
	exactResidualLimit = 30.0
	noisyResidualLimit = 1.5
)

// fitStats is what the self-check of a run needs: the weighted sum of
// squared residuals of the answers under the noise model (chi2) and their
// number (rows), with either the global fit's variances of every
// parameter (vars, float64) or an estimate of the largest relative error
// of a head (est, extended precision).
type fitStats struct {
	chi2 float64
	vars []float64
	rows int
	est  float64
	// inflate (0 meaning 1) multiplies the estimate from vars.
	inflate float64
	// scale (≥ 1, 0 meaning 1) multiplies the residual limit: in extended
	// precision the answers must be reproduced to the accuracy the run
	// estimates for its heads (est), which the conditioning of the RFs
	// puts above the working precision's noise model.
	scale float64
}

// finish builds the layer from the parameters, checks it against every
// answer it was learned from (a layer that does not reproduce them is an
// error, whatever the pipeline concluded on the way) and against the
// estimated error, and completes the trace. big, in extended precision,
// holds the heads at the working precision in the order of t.
func (l *learner) finish(t theta, st *fitStats, big []BigHead) (Result, error) {
	hc := t.H
	layer, qb, est := l.layerOf(t, st, big)
	order := canonicalOrder(layer)
	l.relabelTrace(t, order)
	l.res.Heads = hc
	if err := l.selfCheck(t, st, est); err != nil {
		return l.res, err
	}
	l.res.Layer = make(attention.Layer, hc)
	for k, h := range order {
		l.res.Layer[k] = layer[h]
	}
	if qb != nil {
		l.res.QueryBias = make([][]float64, hc)
		for k, h := range order {
			l.res.QueryBias[k] = qb[h]
		}
	}
	if big != nil {
		l.res.BigLayer = make([]BigHead, hc)
		for k, h := range order {
			l.res.BigLayer[k] = big[h]
		}
	}
	return l.res, nil
}

// layerOf returns the heads of t in float64, W_h = U (P̃_h − Q_h 1ᵀ) Zᵀ/c
// and v_h = U r_h/c (the roundings of big's, where given), with the query
// biases c_h = U Q_h/c (nil without biases) and, from the global fit's
// variances, the largest relative error of a head.
func (l *learner) layerOf(t theta, st *fitStats, big []BigHead) (layer attention.Layer, qb [][]float64, est float64) {
	d, hc := l.d, t.H
	layer = make(attention.Layer, hc)
	for h := 0; h < hc; h++ {
		// P̃_h − Q_h 1ᵀ, Q_h = 0 without biases (model.go).
		q := make([]float64, d)
		if t.biased() {
			for a := range q {
				q[a] = t.Q(h, a)
			}
			cb := make([]float64, d)
			for x := range cb {
				var acc float64
				for a := 0; a < d; a++ {
					acc += float64(l.u[a][x] * q[a])
				}
				cb[x] = acc / l.c
			}
			qb = append(qb, cb)
		}
		w := mat.NewDense(d, d, nil)
		for x := 0; x < d; x++ {
			for y := 0; y < d; y++ {
				var acc float64
				for a := 0; a < d; a++ {
					for b := 0; b < d; b++ {
						acc += float64(l.u[a][x] * float64(t.P(h, a, b)-q[a]) * l.z[b][y])
					}
				}
				w.Set(x, y, acc/float64(l.c*l.opt.tokenScale()))
			}
		}
		v := mat.NewVecDense(d, nil)
		for x := 0; x < d; x++ {
			var acc float64
			for a := 0; a < d; a++ {
				acc += float64(l.u[a][x] * t.R(h, a))
			}
			v.SetVec(x, acc/l.c)
		}
		if big != nil {
			// The float64 layer is the rounding of the extended one.
			for x := 0; x < d; x++ {
				for y := 0; y < d; y++ {
					f, _ := big[h].W[x][y].Float64()
					w.Set(x, y, f)
				}
				f, _ := big[h].V[x].Float64()
				v.SetVec(x, f)
			}
		}
		layer[h] = attention.Head{W: w, V: v}
		if st.vars != nil {
			var vw, vv float64
			for a := 0; a < d; a++ {
				for b := 0; b < t.cols; b++ {
					vw += st.vars[t.pIndex(h, a, b)]
				}
				vv += st.vars[t.rIndex(h, a)]
			}
			ew := math.Sqrt(vw) / float64(l.c*l.opt.tokenScale()) / maxAbs(w.RawMatrix().Data)
			ev := math.Sqrt(vv) / l.c / maxAbs(v.RawVector().Data)
			est = math.Max(est, math.Max(ew, ev))
		}
	}
	if st.vars == nil {
		est = st.est
	} else if st.inflate > 0 {
		est *= st.inflate
	}
	return layer, qb, est
}

// canonicalOrder returns the heads' order as attention.Canonical sorts
// them: order[k] is the head that comes k-th.
func canonicalOrder(layer attention.Layer) []int {
	order := make([]int, len(layer))
	for i := range order {
		order[i] = i
	}
	for i := 1; i < len(layer); i++ {
		for k := i; k > 0 && attention.LessW(layer[order[k]].W, layer[order[k-1]].W); k-- {
			order[k], order[k-1] = order[k-1], order[k]
		}
	}
	return order
}

// relabelTrace gives every RF of the trace the heads' new labels (order,
// canonicalOrder) and every head's (p, r) in it.
func (l *learner) relabelTrace(t theta, order []int) {
	hc := t.H
	newLabel := make([]int, hc)
	for k, h := range order {
		newLabel[h] = k
	}
	for k := range l.res.Trace.RFs {
		rf := &l.res.Trace.RFs[k]
		for b, h := range rf.Heads {
			if h >= 0 && h < hc {
				rf.Heads[b] = newLabel[h]
			}
		}
		rf.HeadP = make([]float64, hc)
		rf.HeadR = make([]float64, hc)
		for h := 0; h < hc; h++ {
			p, r, _ := l.specs[k].headTerms(t, h, l.c)
			rf.HeadP[newLabel[h]] = p
			rf.HeadR[newLabel[h]] = r
		}
	}
}

// selfCheck sets the run's residual and error estimate and returns an
// error where the heads do not reproduce the answers (the residual above
// its limit) or the estimated error exceeds Options.MaxError.
func (l *learner) selfCheck(t theta, st *fitStats, est float64) error {
	hc := t.H
	dof := max(1, st.rows-len(t.x))
	l.res.Residual = math.Sqrt(st.chi2 / float64(dof))
	if math.IsNaN(l.res.Residual) {
		l.res.Residual = math.Inf(1)
	}
	if math.IsNaN(est) {
		est = math.Inf(1)
	}
	l.res.Estimate = est
	limit := exactResidualLimit
	if l.opt.Tolerance > 0 {
		limit = noisyResidualLimit + 3/math.Sqrt(float64(dof))
	}
	if st.scale > 1 {
		limit *= st.scale
	}
	if !(l.res.Residual <= limit) {
		reason := fmt.Sprintf("self-check failed: the %d recovered heads do not reproduce the answers they were learned from (residuals %.3g times the noise model, limit %.3g)", hc, l.res.Residual, limit)
		if hc == 0 {
			reason = fmt.Sprintf("self-check failed: no head is visible, yet the answers are not those of an empty layer (residuals %.3g times the noise model, limit %.3g): no attention layer explains them", l.res.Residual, limit)
		}
		return &Error{RF: -1, First: 0, Last: l.res.Queries - 1, Reason: reason}
	}
	if !(est <= l.opt.maxError()) {
		return &Error{RF: -1, First: 0, Last: l.res.Queries - 1,
			Reason: fmt.Sprintf("estimated relative error %.3g exceeds %.3g: the answers do not determine the heads %s", est, l.opt.maxError(), l.precisionName())}
	}
	return nil
}

// precisionName is "in float64" or "at N bits", for messages.
func (l *learner) precisionName() string {
	if l.opt.Precision > 0 {
		return fmt.Sprintf("at %d bits", l.opt.Precision)
	}
	return "in float64"
}

func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	if m == 0 {
		return math.SmallestNonzeroFloat64
	}
	return m
}
