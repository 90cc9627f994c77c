package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"headlab/numerics/recovery"
)

// float64Digits is float64's precision in decimal digits (53 bits).
var float64Digits = 53 * math.Log10(2)

// digitWidths are the widths the precision table measured.
var digitWidths = []int{1, 2, 4}

// DigitsNeeded draws the decimal digits of working precision at which
// every measured random layer resolved to 1e-12, against the number of
// heads, for both modes and each measured width (recovery's measured
// table, recovery.MeasuredPrecision), with float64's precision and its
// head limit (recovery.MaxHeads) marked. Where float64 sufficed the point
// sits on float64's line.
func DigitsNeeded(st Style) (Figure, error) {
	if err := st.validate(); err != nil {
		return Figure{}, err
	}
	p := st.newPlot("heads *H*", "digits needed")
	f := single("recovery-digits", "Digits of working precision needed to recover every layer to 1e-12, against the number of heads", p, st)
	f.data().Columns = []string{"heads H (count)"}
	type ser struct {
		name string
		m    recovery.Mode
		d    int
		y    []float64
	}
	var ss []ser
	for _, m := range []recovery.Mode{recovery.Paper, recovery.Economy} {
		for _, d := range digitWidths {
			s := ser{name: fmt.Sprintf("%v, d = %d", m, d), m: m, d: d}
			for H := 1; H <= recovery.MaxHeadsExtended; H++ {
				bits, ok := recovery.MeasuredPrecision(H, d, m)
				y := math.NaN()
				switch {
				case ok && bits == 0:
					y = float64Digits
				case ok:
					y = float64(bits) * math.Log10(2)
				}
				s.y = append(s.y, y)
			}
			ss = append(ss, s)
			f.data().Columns = append(f.data().Columns, fmt.Sprintf("%v d=%d (decimal digits)", m, d))
		}
	}
	var top float64
	for H := 1; H <= recovery.MaxHeadsExtended; H++ {
		row := []any{float64(H)}
		for _, s := range ss {
			row = append(row, s.y[H-1])
			if finite(s.y[H-1]) {
				top = math.Max(top, s.y[H-1])
			}
		}
		f.data().add(row...)
	}
	for i, s := range ss {
		xys := make(plotter.XYs, len(s.y))
		for k, y := range s.y {
			xys[k] = plotter.XY{X: float64(k + 1), Y: y}
		}
		ps, th, err := series(i, xys, true, st)
		if err != nil {
			return Figure{}, err
		}
		p.Add(ps...)
		f.legend(s.name, th...)
	}
	guide := draw.LineStyle{Color: light, Width: vg.Points(guideWidth), Dashes: dashes[2]}
	h, err := plotter.NewLine(plotter.XYs{{X: 0.7, Y: float64Digits}, {X: float64(recovery.MaxHeadsExtended) + 0.3, Y: float64Digits}})
	if err != nil {
		return Figure{}, fmt.Errorf("plots: %w", err)
	}
	h.LineStyle = guide
	p.Add(h)
	f.legend("float64 (53 bits)", h)
	v, err := plotter.NewLine(plotter.XYs{{X: float64(recovery.MaxHeads) + 0.5, Y: 0}, {X: float64(recovery.MaxHeads) + 0.5, Y: top * 1.1}})
	if err != nil {
		return Figure{}, fmt.Errorf("plots: %w", err)
	}
	v.LineStyle = draw.LineStyle{Color: light, Width: vg.Points(guideWidth)}
	p.Add(v)
	f.legend(fmt.Sprintf("float64's limit, H ≤ %d", recovery.MaxHeads), v)
	p.X.Min, p.X.Max = 0.7, float64(recovery.MaxHeadsExtended)+0.3
	p.X.Tick.Marker = intTicks{n: 12}
	p.Y.Min, p.Y.Max = 0, math.Ceil(top*1.1/10)*10
	return f, nil
}
