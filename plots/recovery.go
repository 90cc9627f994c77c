package plots

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"headlab/numerics/recovery"
)

// Sweep is a family of curves over one parameter: recovery error against
// ε or against H, one series per schedule.
type Sweep struct {
	// X holds the parameter values.
	X []float64
	// Series holds one curve per schedule; NaN marks a run that failed
	// (Learn reported the answers unresolvable), drawn as a gap.
	Series []Series
	// H and D are the sizes of the runs (H varies in an H sweep), Noise the
	// ε of an H sweep.
	H, D  int
	Noise float64
}

// Series is one curve of a Sweep.
type Series struct {
	Name string
	// Y is the curve: at each X the median error of the resolved runs, NaN
	// where none resolved.
	Y []float64
	// Runs, when set, holds every run's error at each X (NaN: unresolved),
	// drawn as small dots around the curve.
	Runs [][]float64
	// Unresolved, when set, counts the unresolved runs at each X: each X
	// with one is marked on the top edge of the plot (a symbol with a
	// legend entry), so a curve never ends silently.
	Unresolved []int
}

func (sw Sweep) validate(what string) error {
	if len(sw.X) == 0 || len(sw.Series) == 0 {
		return fmt.Errorf("plots: %s with no points", what)
	}
	for _, s := range sw.Series {
		if len(s.Y) != len(sw.X) || (s.Runs != nil && len(s.Runs) != len(sw.X)) || (s.Unresolved != nil && len(s.Unresolved) != len(sw.X)) {
			return fmt.Errorf("plots: %s: series %q has %d values (%d runs, %d counts) for %d points", what, s.Name, len(s.Y), len(s.Runs), len(s.Unresolved), len(sw.X))
		}
	}
	return nil
}

// ErrorVsNoise builds recovery error against the oracle's relative accuracy
// ε (log–log), with the line error = ε for reference.
func ErrorVsNoise(sw Sweep, st Style) (Figure, error) {
	if err := st.validate(); err != nil {
		return Figure{}, err
	}
	if err := sw.validate("error against ε"); err != nil {
		return Figure{}, err
	}
	for _, x := range sw.X {
		if !(x > 0) || !finite(x) {
			return Figure{}, fmt.Errorf("plots: error against ε at ε = %v; ε must be positive on a log axis", x)
		}
	}
	p := st.newPlot("oracle accuracy *ε*", "largest relative error")
	f := single("recovery-noise", fmt.Sprintf("Recovery error against oracle accuracy, H = %d, d = %d", sw.H, sw.D), p, st)
	if err := sweepSeries(p, &f, sw, "oracle accuracy epsilon (relative)", true, st); err != nil {
		return Figure{}, err
	}
	ref := make(plotter.XYs, len(sw.X))
	for i, x := range sw.X {
		ref[i] = plotter.XY{X: x, Y: x}
	}
	l, _ := plotter.NewLine(lg(ref, true, true))
	l.LineStyle = draw.LineStyle{Color: light, Width: vg.Points(guideWidth), Dashes: dashes[2]}
	p.Add(l)
	f.legend("error = *ε*", l)
	powAxis(&p.X)
	powAxis(&p.Y)
	p.X.Min, p.X.Max = log10(minOf(sw.X)), log10(maxOf(sw.X))
	fitLogY(p, sw)
	return f, nil
}

// ErrorVsHeads builds recovery error against the number of heads H (log
// error axis).
func ErrorVsHeads(sw Sweep, st Style) (Figure, error) {
	if err := st.validate(); err != nil {
		return Figure{}, err
	}
	if err := sw.validate("error against H"); err != nil {
		return Figure{}, err
	}
	p := st.newPlot("heads *H*", "largest relative error")
	f := single("recovery-heads", fmt.Sprintf("Recovery error against the number of heads, d = %d, ε = %g", sw.D, sw.Noise), p, st)
	if err := sweepSeries(p, &f, sw, "heads H (count)", false, st); err != nil {
		return Figure{}, err
	}
	powAxis(&p.Y)
	p.X.Min, p.X.Max = minOf(sw.X)-0.3, maxOf(sw.X)+0.3
	p.X.Tick.Marker = intTicks{n: 10}
	fitLogY(p, sw)
	return f, nil
}

// sweepSeries draws the sweep's curves and writes its two tables: the
// medians with the number of runs each is the median of, and every run.
// xcol is the x column's header with its unit.
func sweepSeries(p *plot.Plot, f *Figure, sw Sweep, xcol string, logX bool, st Style) error {
	f.Data = nil
	medians := f.table("median", xcol, "schedule", "median error (relative)", "resolved runs (count)", "runs (count)")
	runs := f.table("runs", xcol, "schedule", "run (index)", "error (relative; empty: unresolved)")
	for _, s := range sw.Series {
		for i, x := range sw.X {
			n, ok := runCounts(s, i)
			medians.add(x, s.Name, s.Y[i], ok, n)
			if s.Runs != nil {
				for k, e := range s.Runs[i] {
					runs.add(x, s.Name, k+1, e)
				}
			}
		}
	}
	if len(runs.Rows) == 0 {
		f.Data = f.Data[:1]
	}
	var marks plotter.XYs // the X with an unresolved run
	for i, s := range sw.Series {
		xys := make(plotter.XYs, len(sw.X))
		for k, x := range sw.X {
			y := s.Y[k]
			if !(y > 0) {
				y = math.NaN() // failed, or exactly 0: no point on a log axis
			}
			xys[k] = plotter.XY{X: x, Y: y}
		}
		ps, th, err := series(i, lg(xys, logX, true), true, st)
		if err != nil {
			return err
		}
		p.Add(ps...)
		f.legend(s.Name+medianNote(s, sw.X, logX), th...)
		var dots plotter.XYs
		for k, r := range s.Runs {
			for _, e := range r {
				if e > 0 && finite(e) {
					dots = append(dots, plotter.XY{X: sw.X[k], Y: e})
				}
			}
		}
		if len(dots) > 0 {
			sc, err := plotter.NewScatter(lg(dots, logX, true))
			if err != nil {
				return fmt.Errorf("plots: %w", err)
			}
			sc.GlyphStyle = glyphStyle(i, st.FontSize*0.12)
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			p.Add(sc)
			f.legend("each run", sc)
		}
		for k, n := range s.Unresolved {
			if n > 0 {
				marks = append(marks, plotter.XY{X: sw.X[k]})
			}
		}
	}
	if len(marks) > 0 {
		// Placed on the top edge once the y range is known (unresolvedMarks.Plot).
		um := &unresolvedMarks{xs: lg(marks, logX, false), style: draw.GlyphStyle{Color: seriesColors[5%len(seriesColors)],
			Radius: vg.Points(st.FontSize * 0.3), Shape: draw.CrossGlyph{}}}
		p.Add(um)
		f.legend("unresolved run(s) at this value", um)
	}
	return nil
}

// runCounts returns the number of runs at point i of a series and how
// many of them resolved (its median is theirs); with no runs recorded, 1
// and 1 when the value exists.
func runCounts(s Series, i int) (runs, resolved int) {
	if s.Runs == nil {
		if finite(s.Y[i]) {
			return 1, 1
		}
		return 1, 0
	}
	for _, e := range s.Runs[i] {
		if finite(e) {
			resolved++
		}
	}
	return len(s.Runs[i]), resolved
}

// medianNote is the legend's note on what a series' points are: the median
// of N runs, and "n of N" where fewer resolved (honest statistics: a
// median of three is not a median of six).
func medianNote(s Series, xs []float64, logX bool) string {
	if s.Runs == nil {
		return ""
	}
	N := 0
	var short []string
	for i := range xs {
		n, ok := runCounts(s, i)
		N = max(N, n)
		if ok > 0 && ok < n {
			x := num(xs[i], 3)
			if logX {
				x = pow10Label(int(math.Round(math.Log10(xs[i]))))
				if math.Abs(math.Log10(xs[i])-math.Round(math.Log10(xs[i]))) > 1e-9 {
					x = num(xs[i], 2)
				}
			}
			short = append(short, fmt.Sprintf("%d of %d at %s", ok, n, x))
		}
	}
	note := fmt.Sprintf(" (median of %d runs", N)
	if len(short) > 3 {
		short = append(short[:3], "…")
	}
	if len(short) > 0 {
		note += "; " + strings.Join(short, ", ")
	}
	return note + ")"
}

// unresolvedMarks marks, on the top edge of the plot, each X at which a
// run of the sweep could not be resolved.
type unresolvedMarks struct {
	xs    plotter.XYs
	style draw.GlyphStyle
}

// Plot draws the marks on the top edge of the data area.
func (u *unresolvedMarks) Plot(c draw.Canvas, p *plot.Plot) {
	for _, xy := range u.xs {
		x := c.X(p.X.Norm(xy.X))
		c.DrawGlyph(u.style, vg.Point{X: x, Y: c.Max.Y - u.style.Radius})
	}
}

// Thumbnail draws the mark in the legend.
func (u *unresolvedMarks) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(u.style, c.Center())
}

// fitLogY sets a log y range covering the sweep's positive values.
func fitLogY(p *plot.Plot, sw Sweep) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range sw.Series {
		for _, y := range s.Y {
			if y > 0 && finite(y) {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
		for _, r := range s.Runs {
			for _, y := range r {
				if y > 0 && finite(y) {
					lo, hi = math.Min(lo, y), math.Max(hi, y)
				}
			}
		}
	}
	if !finite(lo) {
		lo, hi = 1e-16, 1
	}
	p.Y.Min = math.Floor(log10(lo))
	p.Y.Max = math.Ceil(log10(hi))
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min + 1
	}
}

func minOf(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, x)
	}
	return m
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

// Queries is the input of the queries-against-d figure.
type Queries struct {
	// H is the number of heads (or the bound H0) the counts use, 1…8.
	H int
	// MaxD is the last width on the curve, 2…64; Current (0: none) is marked.
	MaxD, Current int
}

// QueriesVsWidth builds the query counts against the width d: the paper's
// schedule 4Hd² − 2H + 1, economy's 2H(d² + d − 1) + 1 (when every
// fingerprint separates), and the information bound H(d² + d) that no method
// beats (MATH.md §3.3–3.4).
func QueriesVsWidth(in Queries, st Style) (Figure, error) {
	if err := st.validate(); err != nil {
		return Figure{}, err
	}
	if in.H < 1 || in.H > recovery.MaxHeads || in.MaxD < 2 || in.MaxD > recovery.MaxWidth || in.Current < 0 || in.Current > in.MaxD {
		return Figure{}, fmt.Errorf("plots: queries for H = %d up to d = %d; want 1 ≤ H ≤ %d, 2 ≤ d ≤ %d", in.H, in.MaxD, recovery.MaxHeads, recovery.MaxWidth)
	}
	p := st.newPlot("token width *d*", fmt.Sprintf("queries (*H* = %d)", in.H))
	f := single("recovery-queries", fmt.Sprintf("Queries against d for H = %d: paper, economy, frugal and the information bound", in.H), p, st)
	f.data().Columns = []string{"width d (count)", "paper (queries)", "economy (queries)", "frugal (queries)", "information bound (queries)"}
	var paper, economy, frugal, bound plotter.XYs
	for d := 1; d <= in.MaxD; d++ {
		a, b, c := recovery.PaperQueries(in.H, d), recovery.EconomyQueries(in.H, d), recovery.InformationBound(in.H, d)
		fr := recovery.FrugalQueries(in.H, d)
		x := float64(d)
		paper = append(paper, plotter.XY{X: x, Y: float64(a)})
		economy = append(economy, plotter.XY{X: x, Y: float64(b)})
		frugal = append(frugal, plotter.XY{X: x, Y: float64(fr)})
		bound = append(bound, plotter.XY{X: x, Y: float64(c)})
		f.data().add(d, a, b, fr, c)
	}
	markers := in.MaxD <= 20
	for i, s := range []struct {
		label string
		xys   plotter.XYs
	}{
		{"paper: 4*Hd*^{2} − 2*H* + 1", paper},
		{"economy: 2*H*(*d*^{2} + *d* − 1) + 1", economy},
		{"information bound *H*(*d*^{2} + *d*)", bound},
		{"frugal: 2*H*(2*d* − 1) + 1 + (*H* + 1)(*d*^{2} − *d*)", frugal},
	} {
		ps, th, err := series(i, lg(s.xys, false, true), markers, st)
		if err != nil {
			return Figure{}, err
		}
		p.Add(ps...)
		f.legend(s.label, th...)
	}
	if in.Current >= 1 {
		v := &vline{X: float64(in.Current), Line: draw.LineStyle{Color: light, Width: vg.Points(guideWidth), Dashes: dashes[2]}}
		p.Add(v)
		f.legend(fmt.Sprintf("*d* = %d", in.Current), v)
	}
	powAxis(&p.Y)
	p.X.Min, p.X.Max = 1, float64(in.MaxD)
	p.X.Tick.Marker = intTicks{n: tickCount(st, 8)}
	return f, nil
}
