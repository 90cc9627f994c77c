package replay

import (
	"math"
	"sort"

	"headlab/numerics/transformer"
)

// Token returns the single token at t on the run's line, (P + tQ)/√(1+t²),
// and ±Q at t = ±∞.
func (t *Transformer) Token(tt float64) []float64 {
	res := t.Run.Result
	x := make([]float64, len(res.P))
	switch {
	case math.IsInf(tt, 1):
		copy(x, res.Q)
	case math.IsInf(tt, -1):
		for i, q := range res.Q {
			x[i] = -q
		}
	default:
		s := math.Sqrt(1 + float64(tt*tt))
		for i := range x {
			x[i] = (res.P[i] + float64(tt*res.Q[i])) / s
		}
	}
	return x
}

// singleY returns the true network's attention output y on the single
// token x: every head's weighted mean of one token is the token, so
// y = Σ_h V_hᵀx (+ x with the residual).
func singleY(n transformer.Network, x []float64) []float64 {
	m := n.Dim()
	y := make([]float64, m)
	for _, h := range n.Heads {
		for i, xi := range x {
			for j := 0; j < m; j++ {
				y[j] += float64(h.V[i][j] * xi)
			}
		}
	}
	if n.Residual {
		for j := 0; j < m && j < len(x); j++ {
			y[j] += x[j]
		}
	}
	return y
}

// TrueF returns the true network's output on the single token at t, in
// float64 (for drawing; the run itself works at its precision).
func (t *Transformer) TrueF(tt float64) float64 {
	y := singleY(t.Net, t.Token(tt))
	f := 0.0
	for _, u := range t.Net.Units {
		z := 0.0
		for j, b := range u.B {
			z += float64(b * y[j])
		}
		f += float64(u.A * math.Max(0, z))
	}
	for j, w := range t.Net.Readout {
		f += float64(w * y[j])
	}
	return f
}

// PieceF returns a piece's linear map on the single token at t: on single
// tokens every block of φ is the token, so Λ·φ = (Σ_blocks Λ_b)·x.
func (t *Transformer) PieceF(p transformer.Piece, tt float64) float64 {
	x := t.Token(tt)
	d := len(x)
	f := 0.0
	for i, l := range p.Lambda {
		f += float64(l * x[i%d])
	}
	return f
}

// LineRange returns the range of F to show: the true curve's, with room.
func (t *Transformer) LineRange() (lo, hi float64) {
	lo, hi = 0, 0
	for i := 0; i <= 200; i++ {
		th := (float64(i)/200 - 0.5) * math.Pi
		f := t.TrueF(math.Tan(th))
		if i == 0 {
			f = t.TrueF(math.Inf(-1))
		} else if i == 200 {
			f = t.TrueF(math.Inf(1))
		}
		lo, hi = math.Min(lo, f), math.Max(hi, f)
	}
	pad := 0.08 * (hi - lo)
	if pad == 0 {
		pad = 1
	}
	return lo - pad, hi + pad
}

// Mark is one thing drawn on the line: a local solve (a probe), a side
// query, a hyperplane probe, or a kink with the unit it became.
type Mark struct {
	Step int // the step (1-based) that made it
	Kind transformer.StepKind
	T    float64
	OK   bool
	Unit int // for a kink: its unit once identified by the current step, else −1
}

// Marks returns the marks of phase B made by the current step, in order.
func (t *Transformer) Marks() []Mark {
	if t.Run == nil {
		return nil
	}
	res := t.Run.Result
	done := t.Done()
	identified := map[int]bool{} // kink index → its unit is identified
	for _, s := range done {
		if s.Kind == transformer.UnitFound {
			identified[s.Index] = true
		}
	}
	var out []Mark
	for i, s := range done {
		switch s.Kind {
		case transformer.Probe, transformer.Side, transformer.HyperplaneProbe:
			out = append(out, Mark{Step: i + 1, Kind: s.Kind, T: s.T, OK: s.OK, Unit: -1})
		case transformer.KinkFound:
			m := Mark{Step: i + 1, Kind: s.Kind, T: s.T, OK: true, Unit: -1}
			if k := kinkAt(res.Kinks, s); k >= 0 && identified[k] {
				m.Unit = res.Kinks[k].Unit
			}
			out = append(out, m)
		}
	}
	return out
}

// kinkAt returns the index in kinks of the kink a KinkFound step
// confirmed: its Index when it gives one, else the kink at its T (the
// trace of transformer.Learn leaves Index at −1 for kinks today).
func kinkAt(kinks []transformer.Kink, s transformer.Step) int {
	if s.Index >= 0 && s.Index < len(kinks) {
		return s.Index
	}
	best, bestD := -1, math.Inf(1)
	for j, k := range kinks {
		if d := math.Abs(k.T - s.T); d < bestD {
			best, bestD = j, d
		}
	}
	if bestD > 1e-9*(1+math.Abs(s.T)) && !(math.IsInf(s.T, 0) && best >= 0 && kinks[best].T == s.T) {
		return -1
	}
	return best
}

// Pieces returns the pieces found by the current step (Probe steps that
// succeeded), in the order of t.
func (t *Transformer) Pieces() []transformer.Piece {
	if t.Run == nil {
		return nil
	}
	res := t.Run.Result
	var out []transformer.Piece
	seen := map[int]bool{}
	for _, s := range t.Done() {
		if s.Kind == transformer.Probe && s.OK && s.Index >= 0 && s.Index < len(res.Pieces) && !seen[s.Index] {
			seen[s.Index] = true
			out = append(out, res.Pieces[s.Index])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out
}

// Span is a piece found by the current step with the stretch of the line
// it holds on: from the nearest kink found so far below its probe, A, to
// the nearest above, B (−Inf and +Inf past the outermost kinks).
type Span struct {
	Piece transformer.Piece
	A, B  float64
}

// Spans returns the pieces found by the current step (Pieces), each over
// its stretch between the kinks found so far (Marks). A piece probed at
// an infinite end of the line holds from that end to the first kink
// inward. The canvas and the figure both draw these.
func (t *Transformer) Spans() []Span {
	var kinks []float64
	for _, m := range t.Marks() {
		if m.Kind == transformer.KinkFound {
			kinks = append(kinks, m.T)
		}
	}
	sort.Float64s(kinks)
	var out []Span
	for _, p := range t.Pieces() {
		sp := Span{Piece: p, A: math.Inf(-1), B: math.Inf(1)}
		for _, k := range kinks {
			switch {
			case math.IsInf(p.T, -1):
				// The first finite kink bounds the piece at −∞.
				if !math.IsInf(k, -1) && k < sp.B {
					sp.B = k
				}
			case math.IsInf(p.T, 1):
				if !math.IsInf(k, 1) && k > sp.A {
					sp.A = k
				}
			default:
				if k <= p.T && k > sp.A {
					sp.A = k
				}
				if k >= p.T && k < sp.B {
					sp.B = k
				}
			}
		}
		out = append(out, sp)
	}
	return out
}

// UnitRow compares one true unit with the recovered unit on the same
// single-token hyperplane: what is invariant under every equivalence of
// §3.7 but the dropping of dead units, c = Σ_h η_h = |a| Σ_h V_h b (plus
// |a|·b with the residual) and the sign of a; T is where its hyperplane
// crosses the line.
type UnitRow struct {
	True, Found int // indices in Net.Units and in the recovered units (−1: none)
	T           float64
	Sign        [2]int
	C           [2][]float64
	Err         float64 // relative difference of the two c
}

// UnitRows matches the true units to the recovered ones by their
// single-token hyperplanes (nearest direction of c), true units in the
// order of their crossing with the line. Nil until the run succeeded.
func (t *Transformer) UnitRows() []UnitRow {
	if t.Run == nil || t.Run.Err != nil {
		return nil
	}
	res := t.Run.Result
	d := len(res.P)
	var found [][]float64
	var fsign []int
	for _, u := range res.Net.Units {
		c := make([]float64, d)
		for i, e := range u.Eta {
			v, _ := e.Float64()
			c[i%d] += v
		}
		found = append(found, c)
		fsign = append(fsign, u.Sign)
	}
	used := make([]bool, len(found))
	var rows []UnitRow
	for k, u := range t.Net.Units {
		c := make([]float64, d)
		for i := 0; i < d; i++ {
			s := 0.0
			for _, h := range t.Net.Heads {
				for j, b := range u.B {
					s += float64(h.V[i][j] * b)
				}
			}
			if t.Net.Residual {
				s += u.B[i]
			}
			c[i] = math.Abs(u.A) * s
		}
		sign := 1
		if u.A < 0 {
			sign = -1
		}
		row := UnitRow{True: k, Found: -1, T: crossing(c, res.P, res.Q), Sign: [2]int{sign, 0}, Err: math.NaN()}
		row.C[0] = c
		best, bestCos := -1, 0.999
		for j, g := range found {
			if cs := cosine(c, g); !used[j] && cs > bestCos {
				best, bestCos = j, cs
			}
		}
		if best >= 0 {
			used[best] = true
			row.Found, row.Sign[1], row.C[1] = best, fsign[best], found[best]
			row.Err = relDiff(c, found[best])
		}
		rows = append(rows, row)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].T < rows[j].T })
	return rows
}

// crossing returns the t where c·x = 0 on the line (P + tQ): −c·P / c·Q.
func crossing(c, p, q []float64) float64 {
	cp, cq := dot(c, p), dot(c, q)
	if cq == 0 {
		return math.Inf(1)
	}
	return -cp / cq
}

func dot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += float64(x[i] * y[i])
	}
	return s
}

func cosine(x, y []float64) float64 {
	n := math.Sqrt(dot(x, x) * dot(y, y))
	if n == 0 {
		return 0
	}
	return dot(x, y) / n
}

func relDiff(x, y []float64) float64 {
	var diff, scale float64
	for i := range x {
		diff = math.Max(diff, math.Abs(x[i]-y[i]))
		scale = math.Max(scale, math.Max(math.Abs(x[i]), math.Abs(y[i])))
	}
	if scale == 0 {
		return 0
	}
	return diff / scale
}
