package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"headlab/numerics/experiment"
	"headlab/numerics/replay"
	"headlab/numerics/transformer"
	"headlab/plots/palette"
	"headlab/web/link"
)

// TransformerReplay returns the transformer run of runs (as Needs asks
// for it and the page's compute worker makes it) replayed to the state's
// step (replay.Transformer), and the state as the page shows it: its view
// the transformer scene's (link.State.TransformerView) and its step
// clamped to the run's end. The figures draw this replay, as the canvas
// does, so a figure shows what the canvas shows at the same link.
func TransformerReplay(s link.State, runs experiment.FigureRuns) (*replay.Transformer, link.State, error) {
	s.View = s.TransformerView()
	tr := replay.NewTransformer(s.Transformer(), s.Step)
	if tr.NetErr != nil {
		return nil, s, fmt.Errorf("plots: %w", tr.NetErr)
	}
	if runs.Transformer == nil {
		return nil, s, fmt.Errorf("plots: the transformer figure needs the transformer run (Needs)")
	}
	tr.Finish(*runs.Transformer)
	s.Step = tr.Step()
	return &tr, s, nil
}

// TransformerFigure builds the figure of a replayed run in a view: in the
// result view the recovered against the true parameters
// (TransformerResult); in the step view, at a step of phase A (or step 0),
// the rational function of the odd part's current query as the Recovery
// scene's figure shows it, and at a step of phase B the line of single
// tokens (TransformerLine).
func TransformerFigure(sc *replay.Transformer, view link.View, st Style) (Figure, error) {
	if view == link.Result {
		return TransformerResult(sc, st)
	}
	if sc.Phase() == "units" {
		return TransformerLine(sc, st)
	}
	rec, ok := sc.PhaseA()
	if !ok {
		return Figure{}, fmt.Errorf("plots: the transformer run has no phase A to draw: %v", sc.Failed())
	}
	in, err := stepRF(&rec.Result.Trace, rec.Step())
	if err != nil {
		return Figure{}, fmt.Errorf("plots: transformer step %d has no rational function", sc.Step())
	}
	f, err := RationalFit(in, st)
	if err != nil {
		return Figure{}, err
	}
	f.rename("transformer-heads")
	f.Title = fmt.Sprintf("Transformer step %d of %d, phase A: rational function %s of the odd part *F*(*X*) − *F*(−*X*)", sc.Step(), sc.Steps(), labelName(in.Name))
	return f, nil
}

// atanTicks labels the axis θ = atan t with values of t, ±∞ at the ends.
type atanTicks struct{}

func (atanTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for _, t := range []float64{math.Inf(-1), -3, -1, -0.3, 0, 0.3, 1, 3, math.Inf(1)} {
		th := math.Atan(t)
		if th < min-1e-12 || th > max+1e-12 {
			continue
		}
		label := num(t, 2)
		switch {
		case math.IsInf(t, 1):
			label = "+∞"
		case math.IsInf(t, -1):
			label = "−∞"
		}
		ticks = append(ticks, plot.Tick{Value: th, Label: label})
	}
	return ticks
}

// TransformerLine builds the figure of phase B at the scene's step: F on
// the single tokens of the line (the true network, grey), the pieces
// solved so far, the kinks found, coloured by their unit once identified,
// and the local solves and side queries as marks; the horizontal axis is
// θ = atan t, labelled with t.
func TransformerLine(sc *replay.Transformer, st Style) (Figure, error) {
	if err := st.validate(); err != nil {
		return Figure{}, err
	}
	p := st.newPlot("place *t* on the line of single tokens (axis atan *t*)", "*F* on single tokens")
	f := single("transformer-units", fmt.Sprintf("Transformer step %d of %d, phase B: the units along a line of single tokens", sc.Step(), sc.Steps()), p, st)
	f.Data = nil
	trueF := f.table("true-F", "place t (on the line)", "true F (output units)")
	const n = 400
	var curve plotter.XYs
	for i := 0; i <= n; i++ {
		th := (float64(i)/n - 0.5) * math.Pi
		t := math.Tan(th)
		switch i {
		case 0:
			t = math.Inf(-1)
		case n:
			t = math.Inf(1)
		}
		y := sc.TrueF(t)
		curve = append(curve, plotter.XY{X: th, Y: y})
		trueF.add(t, y)
	}
	l, err := plotter.NewLine(curve)
	if err != nil {
		return Figure{}, fmt.Errorf("plots: %w", err)
	}
	l.LineStyle = draw.LineStyle{Color: light, Width: vg.Points(2 * dataWidth)}
	p.Add(l)
	f.legend("true *F* (not seen by the learner)", l)

	marks := sc.Marks()
	first := true
	pieces := f.table("pieces", "piece (index)", "place t (on the line)", "solved F (output units)")
	for i, sp := range sc.Spans() {
		pc, a, b := sp.Piece, sp.A, sp.B
		ta, tb := math.Atan(a), math.Atan(b)
		var seg plotter.XYs
		for j := 0; j <= 60; j++ {
			th := ta + (tb-ta)*float64(j)/60
			seg = append(seg, plotter.XY{X: th, Y: sc.PieceF(pc, math.Tan(th))})
		}
		pl, err := plotter.NewLine(seg)
		if err != nil {
			return Figure{}, fmt.Errorf("plots: %w", err)
		}
		pl.LineStyle = draw.LineStyle{Color: black, Width: vg.Points(dataWidth)}
		p.Add(pl)
		if first {
			f.legend("pieces Λ·φ solved so far", pl)
			first = false
		}
		pieces.add(i+1, pc.T, sc.PieceF(pc, pc.T))
	}
	var probes, sides plotter.XYs
	kinkT := f.table("kinks", "step (index)", "place t (on the line)", "unit (index; empty: not yet identified)")
	queries := f.table("queries", "step (index)", "kind", "place t (on the line)", "F (output units)")
	unnamed := false // the legend has its entry for kinks without a unit
	for i, m := range marks {
		th := math.Atan(m.T)
		switch m.Kind {
		case transformer.KinkFound:
			c, label := grey, ""
			unit := ""
			dash := dashes[1]
			if m.Unit >= 0 {
				dash = poleDashes[(m.Unit+1)%len(poleDashes)]
				c = Palette[palette.UnitHead(m.Unit)]
				label = fmt.Sprintf("unit %d", m.Unit+1)
				unit = fmt.Sprint(m.Unit + 1)
			}
			v := &vline{X: th, Line: draw.LineStyle{Color: c, Width: vg.Points(dataWidth), Dashes: dash}}
			p.Add(v)
			if m.Unit >= 0 {
				f.legend(label+" at *t* = "+num(m.T, 3), v)
			} else if !unnamed {
				f.legend("kinks, units not yet identified", v)
				unnamed = true
			}
			kinkT.add(i+1, m.T, unit)
		case transformer.Probe:
			probes = append(probes, plotter.XY{X: th, Y: sc.TrueF(m.T)})
			queries.add(i+1, "local solve", m.T, sc.TrueF(m.T))
		default:
			sides = append(sides, plotter.XY{X: th, Y: sc.TrueF(m.T)})
			queries.add(i+1, map[transformer.StepKind]string{transformer.Side: "side", transformer.HyperplaneProbe: "hyperplane"}[m.Kind], m.T, sc.TrueF(m.T))
		}
	}
	r := vg.Points(st.FontSize * 0.28)
	if len(probes) > 0 {
		s, _ := plotter.NewScatter(probes)
		s.GlyphStyle = draw.GlyphStyle{Color: Palette[0], Radius: 1.3 * r, Shape: draw.PyramidGlyph{}}
		p.Add(s)
		f.legend("local solves", s)
	}
	if len(sides) > 0 {
		s, _ := plotter.NewScatter(sides)
		s.GlyphStyle = draw.GlyphStyle{Color: Palette[5], Radius: r, Shape: draw.CircleGlyph{}}
		p.Add(s)
		f.legend("side and hyperplane queries", s)
	}
	lo, hi := sc.LineRange()
	p.X.Min, p.X.Max = -math.Pi/2, math.Pi/2
	p.Y.Min, p.Y.Max = lo, hi
	p.X.Tick.Marker = atanTicks{}
	p.Y.Tick.Marker = numTicks{}
	return f, nil
}

// TransformerResult builds the result figure: every recovered parameter
// against its true value, up to equivalence — the canonical W_h and the
// odd part's values w_h of each head (phase A), and each unit's
// single-token direction c = Σ_h η_h with its sign (phase B) — on the
// diagonal when they agree; its title gives the largest held-out |ΔF|.
func TransformerResult(sc *replay.Transformer, st Style) (Figure, error) {
	if err := st.validate(); err != nil {
		return Figure{}, err
	}
	if err := sc.Failed(); err != nil {
		return Figure{}, fmt.Errorf("plots: the transformer run returned no network: %w", err)
	}
	p := st.newPlot("true value", "recovered value")
	f := single("transformer-result", fmt.Sprintf("Recovered against true Transformer, up to equivalence; largest held-out |ΔF| %s relative", num(sc.Run.Agreement, 2)), p, st)
	f.data().Columns = []string{"parameter", "kind", "head or unit (index)", "true value (parameter units)", "recovered value (parameter units)"}
	lo, hi := 0.0, 0.0
	add := func(xys plotter.XYs, label string, c color.RGBA, shape draw.GlyphDrawer) {
		if len(xys) == 0 {
			return
		}
		s, _ := plotter.NewScatter(xys)
		s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(st.FontSize * 0.28), Shape: shape}
		p.Add(s)
		f.legend(label, s)
		for _, xy := range xys {
			lo, hi = math.Min(lo, math.Min(xy.X, xy.Y)), math.Max(hi, math.Max(xy.X, xy.Y))
		}
	}
	res := sc.Run.Result
	pair, _ := sc.Pairing()
	for h, hd := range sc.Odd {
		if pair == nil || h >= len(pair) {
			break
		}
		got := res.Heads.Layer[pair[h]]
		var xys plotter.XYs
		d, _ := hd.W.Dims()
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				xys = append(xys, plotter.XY{X: hd.W.At(i, j), Y: got.W.At(i, j)})
				f.data().add(fmt.Sprintf("W_%d[%d,%d]", h+1, i+1, j+1), "W", h+1, hd.W.At(i, j), got.W.At(i, j))
			}
			xys = append(xys, plotter.XY{X: hd.V.AtVec(i), Y: got.V.AtVec(i)})
			f.data().add(fmt.Sprintf("w_%d[%d]", h+1, i+1), "w", h+1, hd.V.AtVec(i), got.V.AtVec(i))
		}
		add(xys, fmt.Sprintf("head %d: *W*_{%d}, *w*_{%d}", h+1, h+1, h+1), Palette[h%len(Palette)], headGlyphs[h%len(headGlyphs)])
	}
	var units plotter.XYs
	for _, row := range sc.UnitRows() {
		if row.Found < 0 {
			continue
		}
		for i := range row.C[0] {
			x, y := float64(row.Sign[0])*row.C[0][i], float64(row.Sign[1])*row.C[1][i]
			units = append(units, plotter.XY{X: x, Y: y})
			f.data().add(fmt.Sprintf("sign*c_%d[%d]", row.True+1, i+1), "unit", row.True+1, x, y)
		}
	}
	add(units, "units: sign · *c*, *c* = Σ_{*h*} η_{*h*}", black, draw.CircleGlyph{})
	pad := 0.08 * (hi - lo)
	if pad == 0 {
		pad = 1
	}
	diag := &diagonal{Line: draw.LineStyle{Color: grey, Width: vg.Points(guideWidth), Dashes: dashes[2]}}
	p.Add(diag)
	f.legend("recovered = true", diag)
	p.X.Min, p.X.Max = lo-pad, hi+pad
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	p.X.Tick.Marker = numTicks{}
	p.Y.Tick.Marker = numTicks{}
	f.Aspect, f.Square = 0.8, true
	return f, nil
}

// diagonal is the line y = x across the plot.
type diagonal struct{ Line draw.LineStyle }

func (g *diagonal) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	lo, hi := math.Max(p.X.Min, p.Y.Min), math.Min(p.X.Max, p.Y.Max)
	c.StrokeLine2(g.Line, tx(lo), ty(lo), tx(hi), ty(hi))
}

func (g *diagonal) Thumbnail(c *draw.Canvas) {
	mid := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(g.Line, c.Min.X, mid, c.Max.X, mid)
}

// headGlyphs are the markers of the heads' parameters in the result figure
// (the units' are circles), so heads differ in grey as well as in colour.
var headGlyphs = [...]draw.GlyphDrawer{draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}}
