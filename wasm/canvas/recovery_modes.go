//go:build js && wasm

package main

import (
	"fmt"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/numerics/recovery"
	"headlab/wasm/scene"
)

func (r *recoveryRenderer) drawModes(screen *ebiten.Image, a *app, sc *scene.Recovery, full scene.Rect, th scene.Theme) {
	u := r.u
	H, d := sc.Heads(), sc.State.D
	p := r.panel(screen, full, fmt.Sprintf("Queries against the information bound (H = %d)", H), th)
	x, y, w := p.Pad, p.Top, p.W()
	y += 6 * u
	mc := muted(th)
	paper, econ, info := recovery.PaperQueries(H, d), recovery.EconomyQueries(H, d), recovery.InformationBound(H, d)
	frugal := recovery.FrugalQueries(H, d)
	rows := []struct {
		name string
		n    int
		c    color.RGBA
	}{
		{"information bound H(d²+d)", info, th.HeadColor(2)},
		{"frugal 2H(2d−1)+1+(H+1)(d²−d)", frugal, th.HeadColor(3)},
		{"economy 2H(d²+d−1)+1", econ, th.HeadColor(1)},
		{"paper 4Hd²−2H+1 (the seed)", paper, th.HeadColor(0)},
	}
	if !sc.Computing() && sc.Err == nil {
		rows = append(rows, struct {
			name string
			n    int
			c    color.RGBA
		}{fmt.Sprintf("this run (%s mode)", sc.State.Mode), sc.Steps(), th.Text})
	}
	r.lab.put(screen, &r.text, fmt.Sprintf("at d = %d", d), x, y, mc)
	y += r.text.LineHeight() + 4*u
	nameW := 0.0
	for _, row := range rows {
		nameW = math.Max(nameW, r.text.Width(row.name))
	}
	nameW = math.Min(nameW, w*0.45)
	barW := w - nameW - 90*u
	top := float64(max(paper, sc.Steps()))
	bh := r.text.LineHeight()
	for _, row := range rows {
		r.lab.put(screen, &r.text, row.name, x, y, th.Text)
		bw := barW * float64(row.n) / top
		r.flat.Rect(x+nameW+10*u, y+2*u, bw, bh-4*u, row.c)
		r.lab.put(screen, &r.text, fmt.Sprint(row.n), x+nameW+16*u+bw, y, th.Text)
		y += bh + 8*u
	}
	y += 10 * u
	// Over d, log y.
	r.lab.put(screen, &r.text, "over d = 1…16 (log scale)", x, y, mc)
	y += r.text.LineHeight() + 4*u
	ax, ok := scene.NewModesAxes(p, y, r.ty, H, d)
	if !ok {
		return
	}
	plot, maxD, ymax := ax.Plot, ax.MaxD, ax.YMax
	px, py := ax.X, ax.Y
	for k := 0; float64(k) <= ymax; k++ {
		yy := py(int(math.Pow(10, float64(k))))
		r.flat.Line(plot.X, yy, plot.X+plot.W, yy, u, th.Grid)
		s := fmt.Sprint(int(math.Pow(10, float64(k))))
		r.lab.put(screen, &r.text, s, plot.X-r.text.Width(s)-4*u, yy-bh/2, mc)
	}
	for w := 1; w <= maxD; w++ {
		if w == 1 || w%4 == 0 {
			s := fmt.Sprint(w)
			r.lab.put(screen, &r.text, s, px(w)-r.text.Width(s)/2, plot.Y+plot.H+4*u, mc)
		}
	}
	cx := px(d)
	r.smooth.Dashed(cx, plot.Y, cx, plot.Y+plot.H, 4*u, 1.5*u, th.Text)
	r.lab.put(screen, &r.text, fmt.Sprintf("d = %d", d), cx+4*u, plot.Y+2*u, th.Text)
	series := []struct {
		f func(int) int
		c color.RGBA
	}{
		{func(w int) int { return recovery.InformationBound(H, w) }, th.HeadColor(2)},
		{func(w int) int { return recovery.FrugalQueries(H, w) }, th.HeadColor(3)},
		{func(w int) int { return recovery.EconomyQueries(H, w) }, th.HeadColor(1)},
		{func(w int) int { return recovery.PaperQueries(H, w) }, th.HeadColor(0)},
	}
	// The curves' names, top-left, in the curves' order from the top, on a
	// box of the background over the curves: names at the curves' ends
	// would lie across the close ones (frugal, economy), and at large H the
	// curves reach the corner too.
	legendY := plot.Y + 4*u + bh
	legendW := 0.0
	for i := range series {
		legendW = math.Max(legendW, r.text.Width(rows[i].name))
	}
	r.top.Rect(plot.X+4*u, legendY-2*u, legendW+8*u, float64(len(series))*bh+4*u, th.Background)
	for i, s := range series {
		for w := 1; w < maxD; w++ {
			r.smooth.Line(px(w), py(s.f(w)), px(w+1), py(s.f(w+1)), 3*u, s.c)
		}
		for w := 1; w <= maxD; w++ {
			r.smooth.Disc(px(w), py(s.f(w)), 3.5*u, s.c)
		}
		r.topLab.put(screen, &r.text, rows[i].name, plot.X+8*u, legendY+float64(len(series)-1-i)*bh, s.c)
	}
	r.top.StrokeRect(plot.X, plot.Y, plot.W, plot.H, u, th.Axis)
	r.lab.put(screen, &r.text, "token width d", plot.X+plot.W-r.text.Width("token width d"), plot.Y+plot.H+4*u+bh, mc)
}
