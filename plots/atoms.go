package plots

import (
	"fmt"
	"math"
	"math/big"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"headlab/numerics/fusion"
)

// Explosion is the input of the atom explosion curve (MATH.md §2): counts
// for H = 1…MaxH heads.
type Explosion struct {
	// MaxH is the last number of heads (d for W_d) on the curve, 1…60.
	MaxH int
	// Current is the d the scene shows, marked on the 2^d curve (0: none).
	Current int
	// M is the atoms per head of the general-fusion curves (product bound
	// m^H and the shared-key count C(m+H−1, H)), 1…8.
	M int
	// Merged holds counts measured by fusion.Fuse, drawn as markers: for
	// heads sharing their m keys (index H−1) and for heads with random keys.
	// Either may be shorter than MaxH or nil.
	MergedShared, MergedRandom []int
}

// Limits of the explosion curve.
const (
	MaxExplosionHeads = 60
)

func bigFloat(b *big.Int) float64 {
	f, _ := new(big.Float).SetInt(b).Float64()
	return f
}

// ExplosionCurve builds the atom explosion curve on a log axis: head-atom
// terms 2d of the split W_d against the 2^d atoms of its fused head (nothing
// merges), and, for heads of m atoms, the product bound m^H against the
// count C(m+H−1, H) after merging when the heads share keys; measured counts
// from fusion.Fuse as markers.
func ExplosionCurve(in Explosion, st Style) (Figure, error) {
	if err := st.validate(); err != nil {
		return Figure{}, err
	}
	if in.MaxH < 2 || in.MaxH > MaxExplosionHeads || in.M < 1 || in.M > 8 || in.Current < 0 || in.Current > MaxExplosionHeads {
		return Figure{}, fmt.Errorf("plots: explosion curve to H = %d with m = %d; want 2 ≤ H ≤ %d, 1 ≤ m ≤ 8", in.MaxH, in.M, MaxExplosionHeads)
	}
	p := st.newPlot("heads *H* (*d* heads for *W*_{*d*})", "atoms")
	f := single("atom-explosion", fmt.Sprintf("Atom explosion: 2*d* terms against 2^{*d*} atoms, and *m* = %d atoms per head", in.M), p, st)
	f.data().Columns = []string{"heads H (count)", "split W_d terms 2d (count)", "fused W_d atoms 2^d (count)", "product bound m^H (count)", "shared-key atoms C(m+H-1,H) (count)", "measured atoms, shared keys (count)", "measured atoms, random keys (count)"}
	var terms, fused, product, shared plotter.XYs
	for H := 1; H <= in.MaxH; H++ {
		t, err1 := fusion.TermCount(repeat(2, H)...)
		a, err2 := fusion.SigmoidSumCount(H)
		pb, err3 := fusion.ProductCount(repeat(in.M, H)...)
		sk, err4 := fusion.SharedKeyCount(in.M, H)
		for _, err := range []error{err1, err2, err3, err4} {
			if err != nil {
				return Figure{}, fmt.Errorf("plots: counts at H = %d: %w", H, err)
			}
		}
		x := float64(H)
		terms = append(terms, plotter.XY{X: x, Y: bigFloat(t)})
		fused = append(fused, plotter.XY{X: x, Y: bigFloat(a)})
		product = append(product, plotter.XY{X: x, Y: bigFloat(pb)})
		shared = append(shared, plotter.XY{X: x, Y: bigFloat(sk)})
		ms, mr := "", ""
		if H <= len(in.MergedShared) {
			ms = fmt.Sprint(in.MergedShared[H-1])
		}
		if H <= len(in.MergedRandom) {
			mr = fmt.Sprint(in.MergedRandom[H-1])
		}
		f.data().add(H, t.String(), a.String(), pb.String(), sk.String(), ms, mr)
	}
	type s struct {
		label string
		xys   plotter.XYs
	}
	curves := []s{
		{"2^{*d*}: fused *W*_{*d*}", fused},
		{"2*d*: split *W*_{*d*}", terms},
		{fmt.Sprintf("*m*^{*H*}: product, *m* = %d", in.M), product},
		{"C(*m*+*H*−1, *H*): shared keys", shared},
	}
	for i, c := range curves {
		ps, th, err := series(i, lg(c.xys, false, true), false, st)
		if err != nil {
			return Figure{}, err
		}
		p.Add(ps...)
		f.legend(c.label, th...)
	}
	measured := func(counts []int, i int, label string) {
		if len(counts) == 0 {
			return
		}
		xys := make(plotter.XYs, len(counts))
		for k, n := range counts {
			xys[k] = plotter.XY{X: float64(k + 1), Y: float64(n)}
		}
		sc, _ := plotter.NewScatter(lg(xys, false, true))
		sc.GlyphStyle = draw.GlyphStyle{Color: seriesColors[i], Radius: vg.Points(st.FontSize * 0.22), Shape: glyphs[i+2]}
		p.Add(sc)
		f.legend(label, sc)
	}
	measured(in.MergedRandom, 2, "Fuse: random keys")
	measured(in.MergedShared, 3, "Fuse: shared")
	if in.Current >= 1 && in.Current <= in.MaxH {
		sc, _ := plotter.NewScatter(plotter.XYs{{X: float64(in.Current), Y: float64(in.Current) * math.Log10(2)}})
		sc.GlyphStyle = draw.GlyphStyle{Color: black, Radius: vg.Points(st.FontSize * 0.4), Shape: draw.RingGlyph{}}
		p.Add(sc)
		f.legend(fmt.Sprintf("*d* = %d", in.Current), sc)
	}
	powAxis(&p.Y)
	p.Y.Min = 0
	p.X.Min, p.X.Max = 1, float64(in.MaxH)
	p.X.Tick.Marker = intTicks{n: tickCount(st, 8)}
	return f, nil
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// Mass is the input of the mass-by-|S| figure: the query q of W_d.
type Mass struct {
	Q []float64
}

// MaxMassWidth is the largest d of the mass-by-|S| figure.
const MaxMassWidth = 60

// MassBySize builds the fused W_d head's attention mass by |S| at the query
// q: the atoms (1_S, 0, |S|) grouped by |S| = s, whose weights sum to the
// Poisson-binomial probabilities of independent Bernoulli(σ(q_j)), and the
// output E|S| = Σ σ(q_j) as a vertical line.
func MassBySize(in Mass, st Style) (Figure, error) {
	if err := st.validate(); err != nil {
		return Figure{}, err
	}
	d := len(in.Q)
	if d < 1 || d > MaxMassWidth {
		return Figure{}, fmt.Errorf("plots: mass by |S| for d = %d; want 1 ≤ d ≤ %d", d, MaxMassWidth)
	}
	sigma := make([]float64, d)
	for j, q := range in.Q {
		if !finite(q) {
			return Figure{}, fmt.Errorf("plots: query entry %d is %v", j+1, q)
		}
		sigma[j] = fusion.Sigmoid(q)
	}
	mass := fusion.PoissonBinomial(sigma)
	mean := fusion.SigmoidSumValue(in.Q)
	p := st.newPlot("size |*S*| of the atom's set", "attention mass")
	f := single("atom-mass", fmt.Sprintf("Attention mass of the fused *W*_{%d} head by |*S*|", d), p, st)
	f.data().Columns = []string{"size |S| (count)", "attention mass (probability)", "atoms with this |S| (count)", "output E|S| (count)"}
	xys := make(plotter.XYs, d+1)
	top := 0.0
	for s, m := range mass {
		xys[s] = plotter.XY{X: float64(s), Y: m}
		top = math.Max(top, m)
		f.data().add(s, m, new(big.Int).Binomial(int64(d), int64(s)).String(), mean)
	}
	b := &bars{XYs: xys, Width: 0.7, Fill: Palette[0], Line: draw.LineStyle{Color: black, Width: vg.Points(edgeWidth)}}
	p.Add(b)
	v := &vline{X: mean, Line: draw.LineStyle{Color: Palette[5], Width: vg.Points(dataWidth), Dashes: dashes[1]}}
	p.Add(v)
	f.legend("mass of the atoms with |*S*| = *s*", b)
	f.legend(fmt.Sprintf("output E|*S*| = Σ σ(*q*_{*j*}) = %.3g", mean), v)
	p.X.Min, p.X.Max = -0.5, float64(d)+0.5
	p.Y.Min, p.Y.Max = 0, niceCeil(top*1.05)
	p.X.Tick.Marker = intTicks{n: tickCount(st, 10)}
	p.Y.Tick.Marker = numTicks{}
	p.X.Padding, p.Y.Padding = 0, 0
	return f, nil
}
