package scene

import (
	"fmt"
	"math"
	"testing"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
)

// canvases are the canvas sizes the layouts are checked on: a phone, a
// laptop's iframe and a wide screen, at one and two device pixels per CSS
// pixel, with the type the renderer sets (title and body line heights).
var canvases = []struct {
	w, h float64
	ty   Type
}{
	{360, 640, Type{U: 1, Title: 22, Text: 17}},
	{800, 600, Type{U: 1, Title: 27, Text: 20}},
	{1280, 800, Type{U: 1, Title: 27, Text: 20}},
	{2560, 1600, Type{U: 2, Title: 52, Text: 38}},
}

// inside reports whether r lies in outer and has a positive size.
func inside(r, outer Rect) bool {
	return r.W > 0 && r.H > 0 && r.X >= outer.X && r.Y >= outer.Y && r.X+r.W <= outer.X+outer.W+1e-9 && r.Y+r.H <= outer.Y+outer.H+1e-9
}

func overlap(a, b Rect) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

// TestResultLayout lays out the result view of a run (H = 3, d = 2): the
// heat-map cells lie inside the canvas under the summary, no two overlap,
// and hit-testing the centre of each cell returns that cell. The pairing
// is attention.Pairing's (the assignment of numerics/assign).
func TestResultLayout(t *testing.T) {
	r := recoveryAt(t, "#v=1&scene=recovery&H=3&d=2&view=result")
	pair, errs := r.Pairing()
	want, wantErrs, err := attention.Pairing(r.Result.Layer, r.Canonical)
	if err != nil || fmt.Sprint(pair) != fmt.Sprint(want) || fmt.Sprint(errs) != fmt.Sprint(wantErrs) {
		t.Fatalf("pairing %v %v, attention.Pairing %v %v (%v)", pair, errs, want, wantErrs, err)
	}
	for _, c := range canvases {
		full := Rect{W: c.w, H: c.h}
		p := NewPanel(full, c.ty)
		y := p.Top + 2*c.ty.Text
		m := measureFor(t, c.w, c.ty.U)
		l := r.ResultLayout(p, y, m)
		// The column titles side by side over the cells (they overlapped
		// at 1280×800 with H = 3).
		t0, t1 := labelBox(m, "true", l.Titles[0]), labelBox(m, "recovered", l.Titles[1])
		if overlap(t0.r, t1.r) || !inside(t1.r, full) || t0.r.Y+t0.r.H > l.W[0][0][1] {
			t.Fatalf("%gx%g: titles %+v and %+v over cells at %v", c.w, c.h, t0.r, t1.r, l.W[0])
		}
		if len(l.W) != len(r.Canonical) || !(l.Cell > 0) {
			t.Fatalf("%gx%g: %d rows, cell %g", c.w, c.h, len(l.W), l.Cell)
		}
		var cells []Rect
		for h := range l.W {
			for side := 0; side < 2; side++ {
				for i := 0; i <= l.D; i++ {
					for j := 0; j < l.D; j++ {
						cell := l.CellRect(h, side, i, j)
						if !inside(cell, full) || cell.Y < y {
							t.Fatalf("%gx%g: cell %d %d %d %d at %+v", c.w, c.h, h, side, i, j, cell)
						}
						for _, o := range cells {
							if overlap(cell, o) {
								t.Fatalf("%gx%g: cell %+v overlaps %+v", c.w, c.h, cell, o)
							}
						}
						cells = append(cells, cell)
						gh, gs, gi, gj, ok := l.Hit(cell.X+cell.W/2, cell.Y+cell.H/2)
						if !ok || gh != h || gs != side || gi != i || gj != j {
							t.Fatalf("%gx%g: hit at cell %d %d %d %d gave %d %d %d %d %v", c.w, c.h, h, side, i, j, gh, gs, gi, gj, ok)
						}
					}
				}
			}
		}
		if _, _, _, _, ok := l.Hit(1, 1); ok {
			t.Fatalf("%gx%g: a hit in the margin", c.w, c.h)
		}
	}
}

// TestSweepAndModesAxes: the sweep's ε and the error range map into its
// plot, left to right and bottom to top; the modes plot puts d = 1 and
// the widest d at its edges and every count of the paper's schedule inside.
func TestSweepAndModesAxes(t *testing.T) {
	for _, c := range canvases {
		full := Rect{W: c.w, H: c.h}
		p := NewPanel(full, c.ty)
		y := p.Top + 2*c.ty.Text
		a := NewSweepAxes(p, y, c.ty)
		if !inside(a.Plot, full) || a.Statement < a.Plot.Y+a.Plot.H || a.Statement > full.H {
			t.Fatalf("%gx%g: sweep plot %+v, statement at %g", c.w, c.h, a.Plot, a.Statement)
		}
		prev := math.Inf(-1)
		for _, e := range experiment.SweepNoise {
			x := a.X(e)
			if x <= a.Plot.X || x >= a.Plot.X+a.Plot.W || x <= prev {
				t.Fatalf("%gx%g: ε %g at x %g", c.w, c.h, e, x)
			}
			prev = x
		}
		if a.Y(1e-17) != a.Plot.Y+a.Plot.H || !(a.Y(1) > a.Plot.Y) || !(a.Y(1) < a.Y(1e-8)) {
			t.Fatalf("%gx%g: error axis %g %g", c.w, c.h, a.Y(1e-17), a.Y(1))
		}
		for _, heads := range []int{1, 4, 8} {
			m, ok := NewModesAxes(p, y, c.ty, heads, 3)
			if !ok {
				continue
			}
			if !inside(m.Plot, full) || m.X(1) != m.Plot.X || math.Abs(m.X(m.MaxD)-(m.Plot.X+m.Plot.W)) > 1e-9 || m.Y(1) != m.Plot.Y+m.Plot.H {
				t.Fatalf("%gx%g H=%d: modes plot %+v", c.w, c.h, heads, m.Plot)
			}
		}
	}
}
