package plots

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"headlab/numerics/rational"
)

// RF is the input of the fitted-rational-function figure (MATH.md §3.1):
// the samples F(n) of one rational function of a recovery run and its fit.
type RF struct {
	// Name is the function's name, e.g. "M_11".
	Name string
	// N and F are the samples; Taken of them (in order) have been queried
	// so far, the rest are drawn hollow. Taken ≥ len(N) means all.
	N, F  []float64
	Taken int
	// Fit is the fitted function; Fitted reports whether there is one.
	Fit    rational.Result
	Fitted bool
	// Heads gives the head each pole was matched to (−1 for none), used for
	// its colour; nil colours poles in order.
	Heads []int
}

// RationalFit builds the figure of a fitted rational function
// F(n) = C + Σ_h R_h/(n + ρ_h): the curve over negative and positive n
// (broken at the poles), the samples, each pole −ρ_h as a vertical line in
// its head's colour, and the constant C as a dotted asymptote.
func RationalFit(in RF, st Style) (Figure, error) {
	if err := st.validate(); err != nil {
		return Figure{}, err
	}
	if len(in.N) != len(in.F) || len(in.N) == 0 {
		return Figure{}, fmt.Errorf("plots: rational function %s with %d points and %d values", in.Name, len(in.N), len(in.F))
	}
	for i := range in.N {
		if !finite(in.N[i]) || !finite(in.F[i]) {
			return Figure{}, fmt.Errorf("plots: rational function %s: sample %d is (%v, %v)", in.Name, i, in.N[i], in.F[i])
		}
	}
	name := in.Name
	if name == "" {
		name = "F"
	}
	p := st.newPlot("copies *n* of the token *a*", fmt.Sprintf("answer *F*(*n*) of %s", labelName(name)))
	f := single("rational-fit", fmt.Sprintf("Rational function %s: samples, fit and poles", labelName(name)), p, st)
	f.Data = nil
	samples := f.table("samples", "sample (index)", "n (copies of a)", "answer F(n)", "queried (yes/no)")

	// Ranges: n from left of the farthest pole to right of the samples;
	// F over the samples, widened for the curve but clipped near poles.
	nmin, nmax := in.N[0], in.N[0]
	fmin, fmax := in.F[0], in.F[0]
	for i := range in.N {
		nmin, nmax = math.Min(nmin, in.N[i]), math.Max(nmax, in.N[i])
		fmin, fmax = math.Min(fmin, in.F[i]), math.Max(fmax, in.F[i])
	}
	var poles []float64
	if in.Fitted {
		for _, r := range in.Fit.Poles {
			if finite(r) {
				poles = append(poles, -r)
				nmin = math.Min(nmin, -r)
			}
		}
		if finite(in.Fit.C) {
			fmin, fmax = math.Min(fmin, in.Fit.C), math.Max(fmax, in.Fit.C)
		}
	}
	span := nmax - nmin
	if span == 0 {
		span = 1
	}
	nmin -= 0.12 * span
	nmax += 0.05 * span
	fspan := fmax - fmin
	if fspan == 0 {
		fspan = math.Max(1, math.Abs(fmax))
	}
	ylo, yhi := fmin-0.9*fspan, fmax+0.9*fspan

	if in.Fitted {
		sort.Float64s(poles)
		// The curve, one line per interval between poles.
		edges := append(append([]float64{nmin}, poles...), nmax)
		var all plotter.XYs
		first := true
		for k := 0; k+1 < len(edges); k++ {
			a, b := edges[k], edges[k+1]
			if b-a <= 0 {
				continue
			}
			const n = 240
			var seg plotter.XYs
			for i := 0; i <= n; i++ {
				x := a + (b-a)*float64(i)/n
				if (i == 0 && k > 0) || (i == n && k+1 < len(edges)-1) {
					continue // at a pole
				}
				y := in.Fit.Eval(x)
				if finite(y) {
					seg = append(seg, plotter.XY{X: x, Y: y})
				}
			}
			if len(seg) < 2 {
				continue
			}
			l, err := plotter.NewLine(seg)
			if err != nil {
				return Figure{}, fmt.Errorf("plots: %w", err)
			}
			l.LineStyle = draw.LineStyle{Color: black, Width: vg.Points(dataWidth)}
			p.Add(l)
			if first {
				f.legend("fitted *F*(*n*)", l)
				first = false
			}
			all = append(all, seg...)
		}
		curve := f.table("curve", "n (copies of a)", "fitted F(n)")
		for _, x := range all {
			curve.add(x.X, x.Y)
		}
		poles := f.table("poles", "pole (index)", "pole at n (copies of a)", "residue R (answer units)", "head (index)", "constant C (answer units)")
		c := &hline{Y: in.Fit.C, Line: draw.LineStyle{Color: grey, Width: vg.Points(guideWidth), Dashes: dashes[2]}}
		p.Add(c)
		f.legend("*C* = "+num(in.Fit.C, 4), c)
		for h, r := range in.Fit.Poles {
			head := h
			if h < len(in.Heads) && in.Heads[h] >= 0 {
				head = in.Heads[h]
			}
			// A dash per pole as well as a colour, so poles differ in grey.
			v := &vline{X: -r, Line: draw.LineStyle{Color: Palette[head%len(Palette)], Width: vg.Points(dataWidth), Dashes: poleDashes[head%len(poleDashes)]}}
			p.Add(v)
			label := "pole at " + num(-r, 3)
			if h < len(in.Heads) && in.Heads[h] >= 0 {
				label = fmt.Sprintf("head %d: pole at %s", in.Heads[h]+1, num(-r, 3))
			}
			f.legend(label, v)
			poles.add(h+1, -r, in.Fit.Residues[h], head+1, in.Fit.C)
		}
	}

	var taken, pending plotter.XYs
	for i := range in.N {
		xy := plotter.XY{X: in.N[i], Y: in.F[i]}
		queried := true
		if in.Taken < len(in.N) && i >= in.Taken {
			pending = append(pending, xy)
			queried = false
		} else {
			taken = append(taken, xy)
		}
		samples.add(i+1, in.N[i], in.F[i], queried)
	}
	r := vg.Points(st.FontSize * 0.28)
	if len(taken) > 0 {
		s, _ := plotter.NewScatter(taken)
		s.GlyphStyle = draw.GlyphStyle{Color: Palette[5], Radius: r, Shape: draw.CircleGlyph{}}
		p.Add(s)
		f.legend("samples", s)
	}
	if len(pending) > 0 {
		s, _ := plotter.NewScatter(pending)
		s.GlyphStyle = draw.GlyphStyle{Color: Palette[5], Radius: r, Shape: draw.RingGlyph{}}
		p.Add(s)
		f.legend("samples to come", s)
	}
	p.X.Min, p.X.Max = nmin, nmax
	p.Y.Min, p.Y.Max = ylo, yhi
	p.X.Tick.Marker = numTicks{}
	p.Y.Tick.Marker = numTicks{}
	return f, nil
}

// poleDashes are the dashes of the poles (head h takes poleDashes[h]),
// none solid: the fitted curve is.
var poleDashes = [...][]vg.Length{dashes[1], dashes[3], dashes[4], dashes[6], dashes[5], {1.8, 1.3, 1.8, 3.2}}
