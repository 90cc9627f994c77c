//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/numerics/experiment"
	"headlab/wasm/scene"
)

func (r *recoveryRenderer) drawSweep(screen *ebiten.Image, a *app, sc *scene.Recovery, full scene.Rect, th scene.Theme) {
	u := r.u
	p := r.panel(screen, full, "Noise sweep: parameter error against the oracle's accuracy ε", th)
	x, y, w := p.Pad, p.Top, p.W()
	mc := muted(th)
	st := sc.Sweep()
	if st.Refused != "" {
		r.paragraph(screen, &r.text, st.Refused, x, y+8*u, w, th.Query)
		return
	}
	line := fmt.Sprintf("H = %d, d = %d, %s mode; %d seeds per ε, from seed %d.", max(sc.State.H, sc.State.H0), sc.State.D, sc.State.Mode, experiment.SweepSeeds, sc.State.Seed)
	switch {
	case sc.Computing():
		line = "Computing the run first… " + line
	case !st.Done:
		line = fmt.Sprintf("Computing… %d%%: %s. ", int(100*st.Progress), st.Doing) + line
	}
	y = r.paragraph(screen, &r.text, line, x, y, w, mc)
	r.progressBar(scene.ProgressTrack(x, y, w, r.u), st.Progress, th)
	y += 16 * u
	// Statement of the largest H.
	var stmt string
	switch {
	case len(st.Heads) == 0:
		stmt = fmt.Sprintf("The largest H that float64 recovers at ε = %s is found after the sweep.", experiment.PowerText(experiment.SweepHeadNoise))
	default:
		tried := st.Tried()
		stmt = fmt.Sprintf("float64 recovers up to H = %d at ε = %s (d = %d; most of %d random layers within %s; H = %d…%d tried)",
			st.Largest, experiment.PowerText(experiment.SweepHeadNoise), sc.State.D, experiment.SweepHeadSeeds, scene.FormatSci(experiment.RecoveredError), tried[0], tried[len(tried)-1])
		if st.LimitH > 0 {
			stmt += fmt.Sprintf("; H = %d is beyond the page's per-run limit", st.LimitH)
		}
		if !st.HeadsDone {
			stmt += "; still scanning"
		}
		stmt += "."
	}
	// Log–log axes (scene.SweepAxes): ε a decade beyond the sweep's range
	// each side, error 1e−17…10^0.5.
	ax := scene.NewSweepAxes(p, y, r.ty)
	plot := ax.Plot
	r.paragraph(screen, &r.title, stmt, x, ax.Statement, w, th.Text)
	ex0, ex1, ey0 := ax.EX0, ax.EX1, ax.EY0
	tx, ty := ax.X, ax.Y
	dst := clip(screen, plot, 0)
	defer r.clipTo(plot)
	decade := func(k int) string { return strings.Replace(fmt.Sprintf("1e%d", k), "-", "−", 1) }
	var xs, ys []tick
	for k := int(ex0); k <= int(ex1); k++ {
		t := tick{px: tx(math.Pow(10, float64(k)))}
		if slices.ContainsFunc(experiment.SweepNoise, func(e float64) bool { return math.Abs(math.Log10(e)-float64(k)) < 1e-6 }) { // the ε of the sweep
			t.label = decade(k)
		}
		xs = append(xs, t)
	}
	for k := int(ey0); k <= 0; k++ {
		t := tick{px: ty(math.Pow(10, float64(k)))}
		if k%2 == 0 {
			t.label = decade(k)
		}
		ys = append(ys, t)
	}
	r.grid(screen, plot, xs, ys, th)
	r.plotFrame(screen, plot, "oracle accuracy ε (log)", th) // the grid under the frame
	r.under.put(dst, &r.text, "largest relative error of W_h, v_h (log)", plot.X+6*u, plot.Y+4*u, mc)
	// Slope-1 reference through the first median.
	for _, p := range st.Points {
		if finite(p.Median) && p.Median > 0 {
			k := p.Median / p.X
			e0, e1 := math.Pow(10, ex0), math.Pow(10, ex1)
			r.clipSmooth.Dashed(tx(e0), ty(k*e0), tx(e1), ty(k*e1), 6*u, 2*u, mc)
			lx, ly := tx(e1/100), ty(k*e1/100)
			r.under.put(dst, &r.text, "slope 1", lx+6*u, ly+4*u, mc)
			break
		}
	}
	// Seeds as dots, failures as crosses along the top, medians joined.
	dot := mix(th.Background, accent(th), 0.45)
	var mx0, my0 float64
	have := false
	for _, p := range st.Points {
		px := tx(p.X)
		fails := 0
		for k, e := range p.Errors {
			off := (float64(k) - float64(experiment.SweepSeeds-1)/2) * 3 * u
			if !finite(e) {
				cy := plot.Y + 14*u + r.text.LineHeight() + float64(fails)*7*u // under the axis name
				r.clipSmooth.Line(px-4*u, cy-4*u, px+4*u, cy+4*u, 2*u, th.Query)
				r.clipSmooth.Line(px-4*u, cy+4*u, px+4*u, cy-4*u, 2*u, th.Query)
				fails++
				continue
			}
			e = math.Max(e, 1e-17)
			r.clipSmooth.Disc(px+off, ty(e), 3.5*u, dot)
		}
		if finite(p.Median) {
			py := ty(math.Max(p.Median, 1e-17))
			if have {
				r.clipSmooth.Line(mx0, my0, px, py, 3*u, accent(th))
			}
			r.clipSmooth.Disc(px, py, 6*u, accent(th))
			mx0, my0, have = px, py, true
		} else {
			have = false
		}
	}
	legend := "● median   · one seed   × run not resolved"
	r.topLab.put(screen, &r.text, legend, plot.X+plot.W-r.text.Width(legend)-6*u, plot.Y+plot.H-r.text.LineHeight()-6*u, mc)
}
