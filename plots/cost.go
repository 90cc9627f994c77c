package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
)

// Cost is the measured cost of one query of W_d, in nanoseconds, for each
// width in D: the d split heads (2d head-atom terms), the explicit fused head
// (2^d atoms) and the O(d) closed form Σ σ(q_j), as
// experiment.MeasureCostCurve measures it.
type Cost struct {
	D                     []int
	Split, Fused, Formula []float64
	Machine               string // where it was measured, for the caption
}

// CostPerQuery plots the measured cost of one query of W_d against d on a
// log axis: split heads, the explicit fused head and the closed form.
func CostPerQuery(c Cost, st Style) (Figure, error) {
	if err := st.validate(); err != nil {
		return Figure{}, err
	}
	n := len(c.D)
	if n == 0 || len(c.Split) != n || len(c.Fused) != n || len(c.Formula) != n {
		return Figure{}, fmt.Errorf("plots: cost per query needs one time per method for each of the %d widths", n)
	}
	p := st.newPlot("width *d*", "time per query (ns)")
	title := "Cost of one query of *W*_{*d*}: split heads against the explicit fused head"
	if c.Machine != "" {
		title += " (" + c.Machine + ")"
	}
	f := single("atom-cost", title, p, st)
	f.data().Columns = []string{"width d (count)", "split heads (ns per query)", "fused head (ns per query)", "closed form (ns per query)"}
	var split, fused, formula plotter.XYs
	for i, d := range c.D {
		for _, t := range []float64{c.Split[i], c.Fused[i], c.Formula[i]} {
			if !(t > 0) || math.IsInf(t, 0) {
				return Figure{}, fmt.Errorf("plots: time %v at d = %d", t, d)
			}
		}
		x := float64(d)
		split = append(split, plotter.XY{X: x, Y: c.Split[i]})
		fused = append(fused, plotter.XY{X: x, Y: c.Fused[i]})
		formula = append(formula, plotter.XY{X: x, Y: c.Formula[i]})
		f.data().add(d, c.Split[i], c.Fused[i], c.Formula[i])
	}
	curves := []struct {
		label string
		xys   plotter.XYs
	}{
		{"fused head, 2^{*d*} atoms", fused},
		{"*d* split heads, 2*d* terms", split},
		{"Σ σ(*q*_{*j*}), *O*(*d*)", formula},
	}
	for i, cv := range curves {
		ps, th, err := series(i, lg(cv.xys, false, true), true, st)
		if err != nil {
			return Figure{}, err
		}
		p.Add(ps...)
		f.legend(cv.label, th...)
	}
	powAxis(&p.Y)
	p.X.Min, p.X.Max = float64(c.D[0]), float64(c.D[n-1])
	p.X.Tick.Marker = intTicks{n: tickCount(st, 8)}
	return f, nil
}

// CostFigure is CostPerQuery in the style the options ask for.
func CostFigure(c Cost, o Options) (Figure, error) {
	if err := o.Validate(); err != nil {
		return Figure{}, err
	}
	return CostPerQuery(c, o.style())
}
