//go:build js && wasm

// Command floor is the floor of BenchmarkDragFPS (web/e2e): an ebiten page
// that draws, in every frame the query moved, what the canvas draws for the
// benchmark's largest Attention view (#v=1&scene=attention&H=8&d=2&N=64&
// seed=3&heat=1, light theme) and nothing else, in the same calls: a fill;
// the score field of head 1 as a 1/8-resolution image written with
// WritePixels and drawn scaled with linear filtering; the grid as one
// crisp DrawTriangles; every head's weight lines (dashed by head), the
// token discs, the hovered query's ring and the legend's lines as one
// DrawTriangles anti-aliased by one-pixel fringes; and the 73 labels as
// DrawImage calls of cached images set in the Go font. The shapes and the
// labels are made by the canvas's own code (wasm/shapes, wasm/labels), in
// the canvas's light theme (wasm/scene), from the view's fixed data below (its tokens and its heads' W, as link.Parse
// and the scene compute them), with the attention weights recomputed for
// each query position as numerics/attention does (a softmax of x_i·W z).
//
// While the left button is held the query follows the pointer, as a drag
// of the canvas's query does; the screen is kept between frames and drawn
// only when the query moved, as the canvas does. It sets
// window.floorReady = true after its first frame and counts the frames it
// drew in window.floorDrawn. Of headlab it imports only what draws and its
// colours: what the canvas computes (the scene's state, the link, the host
// page) is left out, so that the canvas's frame rate over this page's is
// what the canvas's own work costs beyond the drawing.
package main

import (
	"log"
	"math"
	"strconv"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"

	"headlab/wasm/labels"
	"headlab/wasm/scene"
	"headlab/wasm/shapes"
)

// The view's data: 64 tokens in 2 dimensions (x, y pairs; the last is the
// query) and the 8 heads' W (row by row), as the link of BenchmarkDragFPS
// gives them.
var (
	tokens = [...]float64{
		-1.42, -0.35, 1.35, -0.58, -0.74, 1.2, -1.23, -0.73, 0.16, 1.09, 1.07, 1.47, 0.82, 0.5, 0.21, -1.17,
		-1.55, 0.65, 1.55, -0.2, 1.1, 0.22, -0.02, 1.32, 0.81, 0.94, -1.85, 1.29, -0.47, -0.28, 0.84, 0.6,
		0.73, -2.86, 0.7, 0.94, 1.59, 1.92, 0.48, 1.1, -1.6, 2.08, -0.77, -0.23, 2.57, -1.08, -0.08, 0.44,
		-1.02, 1.8, 0.7, 0.38, 0.37, -0.96, -0.26, -0.24, -0.04, 0.53, 2.24, 1.63, 1.61, 1.75, -0.77, -0.18,
		-1.01, -0.49, 0.5, 0.86, 1.21, 0.41, 1.96, 0.85, -0.49, -0.77, -0.88, 0.88, 0.43, -1.77, -0.26, 1.04,
		0.81, 0.14, 0.16, -1.87, 2.76, 1.5, 1.15, 0.23, 1.71, -0.31, -0.9, 1.45, 1.03, -1.21, -0.6, -1.66,
		-1.29, -2.72, -1.4, -0.2, 0.59, 0.44, 1.26, -2.64, 1.07, 0.93, -0.27, -2.41, 0.69, -0.51, 0.34, 1.36,
		1.07, 0.42, -0.29, 1.79, -0.42, -1.65, -1.91, -0.31, -0.32, 2.2, 0.1, 0.85, -1.1, 2.72, 0.38, 1.12,
	}
	heads = [...][4]float64{
		{0.31, -0.5, -0.08, 0.65}, {-0.07, -1.78, 0.23, 0.01}, {-0.29, 2.13, 1.76, -0.94}, {0.91, -0.67, 1.32, 0.93},
		{0.24, 0.6, 1.04, -1.21}, {0.2, -0.82, -1.62, -1.22}, {-4.27, -1.47, 1.88, -1.67}, {-2.34, -1.94, 1.18, 2.57},
	}
)

// nTokens is the number of tokens; the last is the query.
const nTokens = len(tokens) / 2

// theme is the canvas's light theme, which the benchmark's view opens in.
var theme = scene.Light

// game is the page: the query's position (world units), whether it moved
// since the last frame drawn, and what is kept between frames.
type game struct {
	qx, qy   float64
	moved    bool
	pressed  bool
	w, h     float64 // the screen, device pixels
	dsf      float64 // device pixels per CSS pixel
	heat     *ebiten.Image
	heatCols int
	heatRows int
	grid     shapes.Batch
	shapes   shapes.Batch
	labels   labels.Cache
	drawn    int
}

// Update moves the query to the pointer while the left button is held.
func (g *game) Update() error {
	pressed := ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft)
	if pressed != g.pressed {
		g.pressed, g.moved = pressed, true // the ring on or off
	}
	if pressed && g.w > 0 {
		cx, cy := ebiten.CursorPosition()
		x, y := g.toWorld(float64(cx), float64(cy))
		e := g.extent()
		x, y = math.Round(math.Max(-e, math.Min(e, x))*100)/100, math.Round(math.Max(-e, math.Min(e, y))*100)/100
		if x != g.qx || y != g.qy {
			g.qx, g.qy, g.moved = x, y, true
		}
	}
	return nil
}

// extent is the half-width of the world square shown: the tokens' largest
// coordinate, enlarged by 15% and rounded up, at least 2 (as the canvas's
// view of the view's initial tokens).
func (g *game) extent() float64 {
	e := 2.0
	for _, t := range tokens {
		e = math.Max(e, math.Ceil(math.Abs(t)*1.15))
	}
	return e
}

// scale is device pixels per world unit.
func (g *game) scale() float64 {
	return math.Max(1, math.Min(g.w, g.h)-2*16*g.dsf) / (2 * g.extent())
}

func (g *game) toScreen(x, y float64) (float64, float64) {
	s := g.scale()
	return g.w/2 + x*s, g.h/2 - y*s
}

func (g *game) toWorld(px, py float64) (float64, float64) {
	s := g.scale()
	return (px - g.w/2) / s, (g.h/2 - py) / s
}

// point is token i, the query at its dragged place.
func (g *game) point(i int) (float64, float64) {
	if i == nTokens-1 {
		return g.qx, g.qy
	}
	return tokens[2*i], tokens[2*i+1]
}

// weights returns head h's attention weights: the softmax of x_i·(W z),
// z the query.
func (g *game) weights(h int, out []float64) []float64 {
	W := heads[h]
	wx, wy := W[0]*g.qx+W[1]*g.qy, W[2]*g.qx+W[3]*g.qy
	out = out[:0]
	m := math.Inf(-1)
	for i := range nTokens {
		x, y := g.point(i)
		s := x*wx + y*wy
		out = append(out, s)
		m = math.Max(m, s)
	}
	var sum float64
	for i, s := range out {
		out[i] = math.Exp(s - m)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// Draw draws the frame when the query moved; the screen is kept otherwise.
func (g *game) Draw(screen *ebiten.Image) {
	if !g.moved || g.w == 0 {
		return
	}
	g.moved = false
	dsf := g.dsf
	g.labels.SetSize(12 * math.Max(1, dsf))
	g.rebuildHeat()
	screen.Fill(theme.Background)
	op := &ebiten.DrawImageOptions{Filter: ebiten.FilterLinear}
	op.GeoM.Scale(g.w/float64(g.heatCols), g.h/float64(g.heatRows))
	screen.DrawImage(g.heat, op)
	// The grid, crisp, in one call.
	e := g.extent()
	for k := -int(e); k <= int(e); k++ {
		c, w := theme.Grid, math.Max(1, math.Round(dsf))
		if k == 0 {
			c, w = theme.Axis, math.Max(1, math.Round(1.5*dsf))
		}
		x0, y0 := g.toScreen(float64(k), -e)
		_, y1 := g.toScreen(float64(k), e)
		g.grid.Rect(math.Round(x0-w/2), y1, w, y0-y1, c)
		x0, y0 = g.toScreen(-e, float64(k))
		x1, _ := g.toScreen(e, float64(k))
		g.grid.Rect(x0, math.Round(y0-w/2), x1-x0, w, c)
	}
	g.grid.Flush(screen, false)
	// Every head's lines from the query, offset sideways by head, and the
	// query's weight on itself as a ring.
	q := nTokens - 1
	at := func(i int) (float64, float64) { return g.toScreen(g.point(i)) }
	var ws []float64
	for h := range heads {
		ws = g.weights(h, ws)
		g.shapes.WeightLines(h, len(heads), q, ws, at, dsf, theme.HeadColor(h))
	}
	// The tokens: a disc in the background's colour under each, the
	// query larger and red, ringed while dragged.
	for i := range nTokens {
		x, y := g.toScreen(g.point(i))
		rad, col := 6*dsf, theme.Token
		if i == q {
			rad, col = 8*dsf, theme.Query
			if g.pressed {
				g.shapes.Ring(x, y, rad+4*dsf, 2*dsf, col)
			}
		}
		g.shapes.Disc(x, y, rad+1.5*dsf, theme.Background)
		g.shapes.Disc(x, y, rad, col)
	}
	// The legend's lines.
	lx, ly := 12*dsf, 10*dsf
	for h := range heads {
		g.shapes.HeadLine(h, lx, ly+8*dsf, lx+30*dsf, ly+8*dsf, 2*dsf, dsf, theme.HeadColor(h))
		ly += 18 * dsf
	}
	g.shapes.Flush(screen, false)
	// The labels: each token's, then the legend's.
	for i := range nTokens {
		x, y := g.toScreen(g.point(i))
		rad, s := 6*dsf, strconv.Itoa(i+1)
		if i == q {
			rad, s = 8*dsf, "query"
		}
		g.label(screen, s, x+rad+3*dsf, y-rad-14*dsf)
	}
	ly = 10 * dsf
	for h := range heads {
		g.label(screen, "head "+strconv.Itoa(h+1), lx+36*dsf, ly)
		ly += 18 * dsf
	}
	g.label(screen, "shading: score x·W1·query (red +, blue −)", lx, ly+4*dsf)
	g.drawn++
	js.Global().Set("floorDrawn", g.drawn)
	if g.drawn == 1 {
		js.Global().Set("floorReady", true)
	}
}

// rebuildHeat writes head 1's score x·(W z) at the centre of each cell of
// the heat map's image, coloured as the canvas's theme does.
func (g *game) rebuildHeat() {
	cols := max(1, int(g.w/(scene.HeatCell*g.dsf)))
	rows := max(1, int(g.h/(scene.HeatCell*g.dsf)))
	W := heads[0]
	wx, wy := W[0]*g.qx+W[1]*g.qy, W[2]*g.qx+W[3]*g.qy
	field := make([]float64, cols*rows)
	var peak float64
	for j := range rows {
		for i := range cols {
			x, y := g.toWorld((float64(i)+0.5)*g.w/float64(cols), (float64(j)+0.5)*g.h/float64(rows))
			s := x*wx + y*wy
			field[j*cols+i] = s
			peak = math.Max(peak, math.Abs(s))
		}
	}
	pix := make([]byte, 4*cols*rows)
	for i, s := range field {
		c := theme.Heat(s, peak)
		pix[4*i], pix[4*i+1], pix[4*i+2], pix[4*i+3] = c.R, c.G, c.B, c.A
	}
	if g.heat == nil || g.heatCols != cols || g.heatRows != rows {
		if g.heat != nil {
			g.heat.Deallocate()
		}
		g.heat = ebiten.NewImage(cols, rows)
		g.heatCols, g.heatRows = cols, rows
	}
	g.heat.WritePixels(pix)
}

// label draws s with its top-left at (x, y), rounded to whole pixels.
func (g *game) label(screen *ebiten.Image, s string, x, y float64) {
	img := g.labels.Get(s, theme.Text)
	if img == nil {
		return
	}
	op := &ebiten.DrawImageOptions{}
	op.GeoM.Translate(math.Round(x), math.Round(y))
	screen.DrawImage(img, op)
}

// Layout implements ebiten.Game; LayoutF does the work.
func (g *game) Layout(w, h int) (int, int) {
	W, H := g.LayoutF(float64(w), float64(h))
	return int(W), int(H)
}

// LayoutF renders at device pixels, as the canvas does, and redraws on a
// change of size.
func (g *game) LayoutF(w, h float64) (float64, float64) {
	dsf := ebiten.Monitor().DeviceScaleFactor()
	if w*dsf != g.w || h*dsf != g.h || dsf != g.dsf {
		g.w, g.h, g.dsf, g.moved = w*dsf, h*dsf, dsf, true
	}
	return g.w, g.h
}

func main() {
	ebiten.SetScreenClearedEveryFrame(false)
	g := &game{shapes: shapes.Batch{Feather: true}}
	// The query where the view's link puts it.
	g.qx, g.qy = tokens[2*(nTokens-1)], tokens[2*(nTokens-1)+1]
	if err := ebiten.RunGameWithOptions(g, &ebiten.RunGameOptions{InitUnfocused: true}); err != nil {
		log.Print(err)
	}
}
