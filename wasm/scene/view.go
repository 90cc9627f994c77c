package scene

import "math"

// View maps the token plane (world units) to the canvas (CSS pixels): the
// world square [-Extent, Extent]² is centred and fitted into the canvas with
// a margin, y pointing up.
type View struct {
	Width, Height float64 // canvas size in CSS pixels
	Extent        float64 // half-width of the world square shown
	Margin        float64 // pixels left free around the square
}

// NewView returns the view of a canvas of the given size that shows every
// token with some room to drag: the extent is the largest |coordinate| of the
// first two coordinates, rounded up, at least 2.
func NewView(width, height float64, tok []float64, d int) View {
	ext := 2.0
	for i := 0; d > 0 && i < len(tok); i += d {
		for j := 0; j < min(d, 2) && i+j < len(tok); j++ {
			ext = math.Max(ext, math.Ceil(math.Abs(tok[i+j])*1.15))
		}
	}
	return View{Width: width, Height: height, Extent: ext, Margin: 16}
}

// scale returns pixels per world unit.
func (v View) scale() float64 {
	side := math.Min(v.Width, v.Height) - 2*v.Margin
	if side < 1 {
		side = 1
	}
	return side / (2 * v.Extent)
}

// ToScreen maps a world point to canvas pixels.
func (v View) ToScreen(x, y float64) (float64, float64) {
	s := v.scale()
	return v.Width/2 + x*s, v.Height/2 - y*s
}

// ToWorld maps canvas pixels to a world point.
func (v View) ToWorld(px, py float64) (float64, float64) {
	s := v.scale()
	return (px - v.Width/2) / s, (v.Height/2 - py) / s
}

// PixelsPerUnit is the view's scale, for sizes drawn in world units.
func (v View) PixelsPerUnit() float64 { return v.scale() }

// Clamp keeps a world point inside the shown square.
func (v View) Clamp(x, y float64) (float64, float64) {
	e := v.Extent
	return math.Max(-e, math.Min(e, x)), math.Max(-e, math.Min(e, y))
}
