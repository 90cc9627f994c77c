package scene

import (
	"image"
	"math"
)

// Rect is an axis-aligned rectangle in canvas pixels, (X, Y) its top-left.
type Rect struct{ X, Y, W, H float64 }

// Contains reports whether (x, y) lies in r.
func (r Rect) Contains(x, y float64) bool {
	return x >= r.X && x <= r.X+r.W && y >= r.Y && y <= r.Y+r.H
}

// Pixels returns the whole pixels r covers, grown by margin pixels to the
// right and bottom: the sub-image a panel draws into, which cuts what
// does not fit.
func (r Rect) Pixels(margin int) image.Rectangle {
	return image.Rect(int(r.X), int(r.Y), int(math.Ceil(r.X+r.W))+margin, int(math.Ceil(r.Y+r.H))+margin)
}

// Inset returns r shrunk by m on every side (never below zero size).
func (r Rect) Inset(m float64) Rect {
	w, h := math.Max(0, r.W-2*m), math.Max(0, r.H-2*m)
	return Rect{r.X + m, r.Y + m, w, h}
}

// AtomsLayout splits the canvas among the scene's panels: a header line
// with both outputs, the d split heads (left), the fused head (right), and
// along the bottom the explosion curve with the costs beside it. Pad is the
// square where q is dragged (d ≤ 2 only), inside the heads' panel.
type AtomsLayout struct {
	Header, Heads, Fused, Curve, Costs, Pad Rect
	// Unit is one CSS pixel in canvas pixels (the device scale factor).
	Unit float64
	// Narrow reports the stacked phone layout.
	Narrow bool
}

// NewAtomsLayout returns the layout of a w×h canvas (canvas pixels; unit
// canvas pixels per CSS pixel) for width d.
func NewAtomsLayout(w, h, unit float64, d int) AtomsLayout {
	if unit <= 0 {
		unit = 1
	}
	l := AtomsLayout{Unit: unit}
	m := 8 * unit
	// The header holds the title and both outputs: one line of outputs
	// when the canvas is wide, two otherwise.
	head := 48 * unit
	if w < 720*unit {
		head = 62 * unit
	}
	l.Header = Rect{m, m, w - 2*m, head - m}
	if w < 480*unit {
		// Phones: the panels stacked; the costs are in the page's panel.
		l.Narrow = true
		rest := math.Max(0, h-head-m)
		y := head
		l.Heads = Rect{m, y, w - 2*m, 0.36 * rest}
		y += l.Heads.H
		l.Fused = Rect{m, y, w - 2*m, 0.38 * rest}
		y += l.Fused.H
		l.Curve = Rect{m, y, w - 2*m, 0.26 * rest}
		y += l.Curve.H
		l.Costs = Rect{m, y, w - 2*m, 0}
	} else {
		top := math.Max(0, h-head) * 0.58
		left := math.Round(0.38 * w)
		l.Heads = Rect{m, head, left - 2*m, top}
		l.Fused = Rect{left, head, w - left - m, top}
		y := head + top + m
		cw := math.Round(0.6 * w)
		l.Curve = Rect{m, y, cw - 2*m, math.Max(0, h-y-m)}
		l.Costs = Rect{cw, y, w - cw - m, math.Max(0, h-y-m)}
	}
	if d <= 2 && l.Narrow {
		// The pad beside the two heads' rows, its caption below it.
		in := l.Heads
		side := math.Min(0.42*in.W, in.H-26*unit-22*unit)
		if side > 60*unit {
			l.Pad = Rect{in.X + in.W - side - 8*unit, in.Y + 26*unit, side, side}
		}
	} else if d <= 2 {
		// Heads take two rows at the top; the pad fills the square below.
		rows := 2 * HeadRowHeight(unit)
		in := l.Heads
		top := 26*unit + rows + 26*unit // title, rows, the pad's caption
		side := math.Min(in.W-16*unit, in.H-top-8*unit)
		if side > 60*unit {
			l.Pad = Rect{in.X + (in.W-side)/2, in.Y + top, side, side}
		}
	}
	return l
}

// HeadRowHeight is the height of one split head's row in the heads panel.
func HeadRowHeight(unit float64) float64 { return 40 * unit }

// HeadRows returns how many heads the panel shows and whether the list is
// cut (then the last row is "…"): every head when they fit, else the first
// ones.
func (l AtomsLayout) HeadRows(d int) (shown int, cut bool) {
	avail := l.Heads.H - 26*l.Unit
	if l.Pad.W > 0 {
		return d, false
	}
	fit := int(avail / l.HeadRowHeightFor(d))
	if fit >= d {
		return d, false
	}
	return max(1, fit-1), true
}

// HeadRowHeightFor returns the row height used for d heads.
func (l AtomsLayout) HeadRowHeightFor(d int) float64 {
	if d > 8 || (l.Narrow && d > 2) {
		return 30 * l.Unit
	}
	return HeadRowHeight(l.Unit)
}

// ---- the hypercube ----

// cubeBasis returns the 2-D images of the unit vectors e_1…e_d (d ≤ 4),
// y up. d = 3 is the oblique cube; d = 4 the tesseract's symmetric
// projection with directions 45° apart (injective on {0,1}^4 because no
// combination with coefficients in {−1, 0, 1} of 1, cos 45° and sin 45°
// vanishes).
func cubeBasis(d int) [][2]float64 {
	switch d {
	case 1:
		return [][2]float64{{1, 0}}
	case 2:
		return [][2]float64{{1, 0}, {0, 1}}
	case 3:
		return [][2]float64{{1, 0}, {0, 1}, {0.45, 0.3}}
	default:
		c := math.Sqrt2 / 2
		return [][2]float64{{1, 0}, {c, c}, {0, 1}, {-c, c}}
	}
}

// CubePoints returns the screen positions of the atoms whose keys are given
// (row by row, d ≤ AtomsCubeLimit entries of 0 or 1 each) in the projected
// hypercube fitted into r with margin pad, y up; nil for d over the limit.
func CubePoints(keys []float64, d int, r Rect, pad float64) [][2]float64 {
	if d < 1 || d > AtomsCubeLimit || len(keys)%d != 0 {
		return nil
	}
	basis := cubeBasis(d)
	n := len(keys) / d
	pts := make([][2]float64, n)
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := range pts {
		var x, y float64
		for j, k := range keys[i*d : (i+1)*d] {
			x += k * basis[j][0]
			y += k * basis[j][1]
		}
		pts[i] = [2]float64{x, y}
		minX, maxX = math.Min(minX, x), math.Max(maxX, x)
		minY, maxY = math.Min(minY, y), math.Max(maxY, y)
	}
	in := r.Inset(pad)
	spanX, spanY := math.Max(maxX-minX, 1e-9), math.Max(maxY-minY, 1e-9)
	s := math.Min(in.W/spanX, in.H/spanY)
	if d == 1 {
		s = in.W / spanX
	}
	ox := in.X + (in.W-s*spanX)/2
	oy := in.Y + (in.H+s*spanY)/2
	for i, p := range pts {
		pts[i] = [2]float64{ox + (p[0]-minX)*s, oy - (p[1]-minY)*s}
	}
	return pts
}

// CubeEdges returns the hypercube's edges as pairs of atom indices with the
// coordinate j in which their keys differ (the head the edge belongs to).
func CubeEdges(keys []float64, d int) [][3]int {
	n := len(keys) / d
	var out [][3]int
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			diff, where := 0, -1
			for j := 0; j < d; j++ {
				if keys[a*d+j] != keys[b*d+j] {
					diff++
					where = j
				}
			}
			if diff == 1 {
				out = append(out, [3]int{a, b, where})
			}
		}
	}
	return out
}

// GridShape returns the rows and columns of the grid of 2^d cells: the
// first ⌊d/2⌋ coordinates choose the row, the others the column.
func GridShape(d int) (rows, cols, rowBits int) {
	rowBits = d / 2
	return 1 << rowBits, 1 << (d - rowBits), rowBits
}

// GridCell returns the row and column of the atom with the given key.
func GridCell(key []float64) (row, col int) {
	d := len(key)
	_, _, rb := GridShape(d)
	for j, k := range key {
		bit := 0
		if k == 1 {
			bit = 1
		}
		if j < rb {
			row = row<<1 | bit
		} else {
			col = col<<1 | bit
		}
	}
	return row, col
}

// GridRect returns the square cells' area for d in r (leaving room for row
// and column labels), and the cell size.
func GridRect(d int, r Rect, unit float64) (Rect, float64) {
	rows, cols, _ := GridShape(d)
	lab := 0.0
	if d <= 8 {
		lab = 14 * unit * float64((d+1)/2) * 0.6
	}
	top := math.Max(lab, 18*unit)                                    // the hover line
	in := Rect{r.X + lab, r.Y + top, r.W - lab, r.H - top - 18*unit} // and the caption below
	cell := math.Floor(math.Min(in.W/float64(cols), in.H/float64(rows)))
	if cell < 1 {
		cell = 1
	}
	w, h := cell*float64(cols), cell*float64(rows)
	return Rect{in.X + (in.W-w)/2, in.Y + (in.H-h)/2, w, h}, cell
}

// FusedArea returns where the fused head's atoms are drawn (cube or grid)
// and where the histogram of mass by |S| goes, inside the fused panel.
func (l AtomsLayout) FusedArea(d int) (atoms, hist Rect) {
	r := l.Fused
	title := 22 * l.Unit
	body := Rect{r.X, r.Y + title, r.W, math.Max(0, r.H-title)}
	if d > AtomsGridLimit {
		return Rect{}, body
	}
	if l.Narrow {
		return body, Rect{} // no room for both: the page's panel has the numbers
	}
	hh := math.Round(0.3 * body.H)
	return Rect{body.X, body.Y, body.W, body.H - hh}, Rect{body.X, body.Y + body.H - hh, body.W, hh}
}

// AtomPoints returns the centre of every fused atom on the canvas and the
// largest radius an atom is drawn with (cube), or the cell size (grid).
func (a *Atoms) AtomPoints(l AtomsLayout) (pts [][2]float64, size float64) {
	if a.Keys == nil {
		return nil, 0
	}
	area, _ := l.FusedArea(a.D)
	d := a.D
	if d <= AtomsCubeLimit {
		size = math.Min(area.W, area.H) * []float64{0, 0.1, 0.09, 0.075, 0.055}[d]
		pad := size + 16*l.Unit
		if d <= 2 {
			pad += 14 * l.Unit // the weights are written under the labels
		}
		return CubePoints(a.Keys, d, area, pad), size
	}
	g, cell := GridRect(d, area, l.Unit)
	n := len(a.Keys) / d
	pts = make([][2]float64, n)
	for i := range pts {
		r, c := GridCell(a.Keys[i*d : (i+1)*d])
		pts[i] = [2]float64{g.X + (float64(c)+0.5)*cell, g.Y + (float64(r)+0.5)*cell}
	}
	return pts, cell
}

// HitAtom returns the fused atom under the canvas point (px, py), or −1: in
// the cube the nearest atom within radius pixels, in the grid the cell
// containing the point.
func (a *Atoms) HitAtom(l AtomsLayout, px, py, radius float64) int {
	pts, size := a.AtomPoints(l)
	if pts == nil {
		return -1
	}
	if a.D > AtomsCubeLimit {
		for i, p := range pts {
			if math.Abs(px-p[0]) <= size/2 && math.Abs(py-p[1]) <= size/2 {
				return i
			}
		}
		return -1
	}
	best, bestD := -1, radius*radius
	for i, p := range pts {
		d2 := (px-p[0])*(px-p[0]) + (py-p[1])*(py-p[1])
		if d2 <= bestD {
			best, bestD = i, d2
		}
	}
	return best
}

// MassBySize sums atom weights by |S| (the number of ones in each key):
// what the histogram shows, computed from the atoms themselves.
func MassBySize(weights, keys []float64, d int) []float64 {
	out := make([]float64, d+1)
	for i, w := range weights {
		s := 0
		for _, k := range keys[i*d : (i+1)*d] {
			if k == 1 {
				s++
			}
		}
		out[s] += w
	}
	return out
}

// ---- the query pad (d ≤ 2) ----

// QRange is the half-width of the square of queries the pad shows.
const QRange = 6

// PadToScreen maps a query (q_1, q_2) to the pad, q_2 up (q_2 = 0 for d = 1).
func (l AtomsLayout) PadToScreen(q1, q2 float64) (float64, float64) {
	p := l.Pad
	return p.X + (q1+QRange)/(2*QRange)*p.W, p.Y + (QRange-q2)/(2*QRange)*p.H
}

// PadToQuery maps a pad point to a query, clamped to ±QRange and rounded
// to 1/100 so that links stay short.
func (l AtomsLayout) PadToQuery(px, py float64) (q1, q2 float64) {
	p := l.Pad
	q1 = (px-p.X)/p.W*2*QRange - QRange
	q2 = QRange - (py-p.Y)/p.H*2*QRange
	clamp := func(x float64) float64 { return math.Round(math.Max(-QRange, math.Min(QRange, x))*100) / 100 }
	return clamp(q1), clamp(q2)
}

// DragQuery returns the scene with q moved to the pad point (px, py) (the
// first coordinate only when d = 1), or nil when the pad is absent or q
// does not change.
func (a *Atoms) DragQuery(l AtomsLayout, px, py float64) *Atoms {
	if l.Pad.W <= 0 || a.D > 2 {
		return nil
	}
	q1, q2 := l.PadToQuery(px, py)
	q := append([]float64(nil), a.Q...)
	q[0] = q1
	if a.D == 2 {
		q[1] = q2
	}
	same := true
	for j := range q {
		same = same && q[j] == a.Q[j]
	}
	if same {
		return nil
	}
	b, err := a.WithQuery(q)
	if err != nil {
		return nil
	}
	return b
}

// ---- the explosion curve ----

// CurveAxes maps (d, log10 count) to the curve panel: d from 1 to
// AtomsMaxWidth, counts from 1 to 10^CurveDecades.
type CurveAxes struct {
	Plot Rect // the plotting area inside the panel's labels
}

// CurveDecades is the top of the curve's log axis: 2^60 ≈ 1.15e18 < 10^19.
const CurveDecades = 19

// NewCurveAxes returns the axes of the curve panel r, leaving room for
// tick labels (left, bottom) and a title (top).
func NewCurveAxes(r Rect, unit float64) CurveAxes {
	return CurveAxes{Plot: Rect{r.X + 44*unit, r.Y + 24*unit, math.Max(1, r.W-56*unit), math.Max(1, r.H-48*unit)}}
}

// Point returns the canvas point of width d and count 10^lg.
func (c CurveAxes) Point(d, lg float64) (float64, float64) {
	p := c.Plot
	x := p.X + (d-1)/float64(AtomsMaxWidth-1)*p.W
	y := p.Y + p.H - lg/CurveDecades*p.H
	return x, y
}
