package scene

// Drag follows one pointer (a mouse button or a finger) that presses on a
// token, moves it and lets go. It knows nothing of input devices: the canvas
// feeds it canvas coordinates, so mouse and touch share one code path.
type Drag struct {
	Token  int  // the token being dragged, valid while Active
	Active bool // a token is held
	Moved  bool // the held token moved since the press
}

// Press starts a drag if (px, py) lies on a token; it reports whether it did.
func (g *Drag) Press(a *Attention, v View, px, py, radius float64) bool {
	i := a.HitToken(v, px, py, radius)
	if i < 0 {
		return false
	}
	*g = Drag{Token: i, Active: true}
	return true
}

// Move returns the scene's state with the held token at (px, py), kept
// inside the view, and whether anything changed.
func (g *Drag) Move(a *Attention, v View, px, py float64) (changed bool, next Attention) {
	if !g.Active || g.Token >= a.State.N {
		return false, Attention{}
	}
	x, y := v.Clamp(v.ToWorld(px, py))
	s := a.Moved(g.Token, x, y)
	ox, oy := a.Point(g.Token)
	d := s.D
	nx := s.Tok[g.Token*d]
	ny := 0.0
	if d > 1 {
		ny = s.Tok[g.Token*d+1]
	}
	if nx == ox && ny == oy {
		return false, Attention{}
	}
	n, err := NewAttention(s)
	if err != nil {
		return false, Attention{}
	}
	g.Moved = true
	return true, *n
}

// Release ends the drag.
func (g *Drag) Release() { *g = Drag{} }
