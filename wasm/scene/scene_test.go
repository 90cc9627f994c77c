package scene

import (
	"math"
	"testing"

	"headlab/numerics/experiment"
	"headlab/web/link"
)

// testLab is the lab the tests share, as the canvas shares one across the
// states of a page.
var testLab = NewLocalLab(experiment.Run)

func TestViewRoundTrip(t *testing.T) {
	v := View{Width: 640, Height: 480, Extent: 3, Margin: 16}
	for _, p := range [][2]float64{{0, 0}, {1.5, -2}, {-3, 3}} {
		sx, sy := v.ToScreen(p[0], p[1])
		x, y := v.ToWorld(sx, sy)
		if math.Abs(x-p[0]) > 1e-12 || math.Abs(y-p[1]) > 1e-12 {
			t.Fatalf("%v → (%v, %v) → (%v, %v)", p, sx, sy, x, y)
		}
	}
	// The world square fits inside the canvas, y up.
	x0, y0 := v.ToScreen(-3, 3)
	x1, y1 := v.ToScreen(3, -3)
	if x0 < 0 || y0 < 0 || x1 > 640 || y1 > 480 || y0 >= y1 {
		t.Fatalf("square maps to (%v,%v)-(%v,%v)", x0, y0, x1, y1)
	}
}

func TestHitTokenAndDrag(t *testing.T) {
	a, err := NewAttention(link.Default())
	if err != nil {
		t.Fatal(err)
	}
	v := NewView(800, 600, a.State.Tok, a.State.D)
	for i := 0; i < a.State.N; i++ {
		px, py := v.ToScreen(a.Point(i))
		if got := a.HitToken(v, px+2, py-2, 10); got != i {
			t.Fatalf("token %d at (%v,%v): hit %d", i, px, py, got)
		}
	}
	if got := a.HitToken(v, -100, -100, 10); got != -1 {
		t.Fatalf("hit %d far outside", got)
	}
	// Moving the query changes every head's weights and the output.
	q := a.Query()
	s := a.Moved(q, 1.234, -0.5)
	if s.Tok[q*2] != 1.23 || s.Tok[q*2+1] != -0.5 {
		t.Fatalf("moved query to %v", s.Tok[q*2:])
	}
	if a.State.Tok[q*2] == 1.23 {
		t.Fatal("Moved changed the scene's own state")
	}
	b, err := NewAttention(s)
	if err != nil {
		t.Fatal(err)
	}
	if b.Output == a.Output || b.Details[0].Weights[0] == a.Details[0].Weights[0] {
		t.Fatal("moving the query changed nothing")
	}
}

func TestFieldIsTheScore(t *testing.T) {
	a, _ := NewAttention(link.Default())
	v := NewView(100, 100, a.State.Tok, a.State.D)
	f, peak := a.Field(v, 1, 10, 10)
	// Cell (3, 7): its world point's score equals xᵀ W_1 z.
	x, y := v.ToWorld(3.5*10, 7.5*10)
	z := a.X.RawRowView(a.Query())
	W := a.Layer[1].W
	want := x*(W.At(0, 0)*z[0]+W.At(0, 1)*z[1]) + y*(W.At(1, 0)*z[0]+W.At(1, 1)*z[1])
	if got := f[7*10+3]; math.Abs(got-want) > 1e-12 {
		t.Fatalf("field %v, score %v", got, want)
	}
	if peak <= 0 {
		t.Fatal("no peak")
	}
}

func TestCanonicalShownWhenHeadsShareW(t *testing.T) {
	s := link.Default()
	copy(s.W[4:8], s.W[0:4]) // head 2 gets head 1's W
	a, err := NewAttention(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Canonical) != 2 || a.Facts()["canonical"] != 2 {
		t.Fatalf("canonical form has %d heads, want 2", len(a.Canonical))
	}
	if y := a.Canonical.Output(a.X); math.Abs(y-a.Output) > 1e-12 {
		t.Fatalf("canonical output %v, layer %v", y, a.Output)
	}
}

func TestHeatColours(t *testing.T) {
	if c := Light.Heat(0, 1); c.A != 0 {
		t.Fatalf("zero score drawn with alpha %d", c.A)
	}
	hot, cold := Light.Heat(1, 1), Light.Heat(-1, 1)
	if hot == cold || hot.A == 0 || cold.A == 0 {
		t.Fatal("signs not told apart")
	}
	if c := Light.Heat(math.NaN(), 1); c.A != 0 {
		t.Fatal("NaN drawn")
	}
}

func TestDragMovesOnlyTheHeldToken(t *testing.T) {
	a, _ := NewAttention(link.Default())
	v := NewView(800, 600, a.State.Tok, a.State.D)
	var g Drag
	px, py := v.ToScreen(a.Point(2))
	if !g.Press(a, v, px, py, 12) || g.Token != 2 {
		t.Fatalf("press on token 2 held %d", g.Token)
	}
	changed, next := g.Move(a, v, px+40, py)
	if !changed {
		t.Fatal("moving 40 px changed nothing")
	}
	for i := 0; i < a.State.N; i++ {
		x0, y0 := a.Point(i)
		x1, y1 := next.Point(i)
		if moved := x0 != x1 || y0 != y1; moved != (i == 2) {
			t.Fatalf("token %d moved=%v", i, moved)
		}
	}
	// Far outside the view the token stops at the edge.
	_, edge := g.Move(&next, v, 1e6, py)
	if x, _ := edge.Point(2); x != v.Extent {
		t.Fatalf("dragged past the edge to x=%v", x)
	}
	g.Release()
	if changed, _ := g.Move(a, v, 0, 0); changed || g.Active {
		t.Fatal("moved after release")
	}
	if g.Press(a, v, -50, -50, 12) {
		t.Fatal("press on empty canvas held a token")
	}
}
