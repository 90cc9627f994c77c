package scene

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"headlab/numerics/fusion"
	"headlab/web/link"
)

// atomsAt returns the atoms scene opened from a link at width d (query from
// the seed unless q is given).
func atomsAt(t *testing.T, d int, extra string) *Atoms {
	t.Helper()
	s, notes := link.Parse(fmt.Sprintf("#v=1&scene=atoms&d=%d%s", d, extra))
	if len(notes) > 0 {
		t.Fatalf("d = %d: link notices %v", d, notes)
	}
	sc, err := New(s, testLab)
	if err != nil {
		t.Fatalf("d = %d: %v", d, err)
	}
	a, ok := sc.(*Atoms)
	if !ok {
		t.Fatalf("d = %d: scene is %T", d, sc)
	}
	return a
}

func randomQuery(d int, rng *rand.Rand) string {
	s := "&q="
	for j := 0; j < d; j++ {
		if j > 0 {
			s += ","
		}
		s += fmt.Sprint(math.Round(300*rng.NormFloat64()) / 100)
	}
	return s
}

// Split and fused agree to rounding for every built d up to 12, at the
// seed's query and at held-out random queries, and both equal Σσ(q_j).
func TestSplitEqualsFused(t *testing.T) {
	rng := rand.New(rand.NewPCG(401, 1))
	for d := 1; d <= 12; d++ {
		for trial := 0; trial < 3; trial++ {
			extra := ""
			if trial > 0 {
				extra = randomQuery(d, rng)
			}
			a := atomsAt(t, d, extra)
			if !a.Built {
				t.Fatalf("d = %d: fused head not built", d)
			}
			want := fusion.SigmoidSumValue(a.Q)
			if math.Abs(a.Fused-a.Split) > 1e-12 || math.Abs(a.Split-want) > 1e-12 {
				t.Fatalf("d = %d q = %v: split %v fused %v Σσ %v", d, a.Q, a.Split, a.Fused, want)
			}
			f := a.Facts()
			if f["split"] != a.Split || f["fused"] != a.Fused || f["terms"] != float64(2*d) || f["atoms"] != math.Ldexp(1, d) {
				t.Fatalf("d = %d: facts %v", d, f)
			}
		}
	}
}

// The histogram is the Poisson-binomial distribution of |S|: it sums to
// one and equals the fused atoms' weights grouped by |S|, computed directly
// from the 2^d weights, for d ≤ 10; and the weights are the products of
// independent Bernoulli(σ(q_j)).
func TestHistogramIsPoissonBinomial(t *testing.T) {
	rng := rand.New(rand.NewPCG(402, 1))
	for d := 1; d <= AtomsGridLimit; d++ {
		a := atomsAt(t, d, randomQuery(d, rng))
		if len(a.Weights) != 1<<d {
			t.Fatalf("d = %d: %d weights", d, len(a.Weights))
		}
		var sum float64
		for _, p := range a.Mass {
			sum += p
		}
		if math.Abs(sum-1) > 1e-13 {
			t.Fatalf("d = %d: mass sums to %v", d, sum)
		}
		direct := MassBySize(a.Weights, a.Keys, d)
		for s := range direct {
			if math.Abs(direct[s]-a.Mass[s]) > 1e-13 {
				t.Fatalf("d = %d: P(|S| = %d) = %v from the atoms, %v from the recursion", d, s, direct[s], a.Mass[s])
			}
		}
		// Each weight is Π_{j∈S} σ_j Π_{j∉S} (1 − σ_j).
		for i, w := range a.Weights {
			p := 1.0
			for j := 0; j < d; j++ {
				if a.Keys[i*d+j] == 1 {
					p *= a.Sigma[j]
				} else {
					p *= 1 - a.Sigma[j]
				}
			}
			if math.Abs(w-p) > 1e-14 {
				t.Fatalf("d = %d atom %s: weight %v, product %v", d, a.AtomBits(i), w, p)
			}
		}
	}
	// The recursion against the exact distribution in big rationals, d = 60.
	p := make([]float64, 60)
	for j := range p {
		p[j] = float64(rng.IntN(1000)+1) / 1024
	}
	got := fusion.PoissonBinomial(p)
	exact := make([]*big.Rat, len(p)+1)
	for s := range exact {
		exact[s] = new(big.Rat)
	}
	exact[0].SetInt64(1)
	for j, pj := range p {
		r := new(big.Rat).SetFloat64(pj)
		q := new(big.Rat).Sub(big.NewRat(1, 1), r)
		for s := j + 1; s >= 1; s-- {
			a := new(big.Rat).Mul(exact[s], q)
			exact[s].Add(a, new(big.Rat).Mul(exact[s-1], r))
		}
		exact[0].Mul(exact[0], q)
	}
	for s := range got {
		want, _ := exact[s].Float64()
		if math.Abs(got[s]-want) > 1e-15*math.Max(want, 1e-300)*60 && math.Abs(got[s]-want) > 1e-300 {
			t.Fatalf("P(|S| = %d) = %v, exact %v", s, got[s], want)
		}
	}
}

// The hypercube projection is injective on {0,1}^d for d ≤ 4, keeps the
// atoms (and their drawn disks) inside the panel, and hit-testing finds
// every atom at its centre and none far away.
func TestCubeProjection(t *testing.T) {
	for _, size := range [][3]float64{{800, 700, 1}, {558, 543, 1}, {360, 640, 1}, {1600, 1400, 2}} {
		for d := 1; d <= AtomsCubeLimit; d++ {
			a := atomsAt(t, d, "")
			l := NewAtomsLayout(size[0], size[1], size[2], d)
			pts, r := a.AtomPoints(l)
			if len(pts) != 1<<d {
				t.Fatalf("d = %d: %d points", d, len(pts))
			}
			area, _ := l.FusedArea(d)
			minDist := math.Inf(1)
			for i, p := range pts {
				if p[0]-r < area.X-1e-9 || p[0]+r > area.X+area.W+1e-9 || p[1]-r < area.Y-1e-9 || p[1]+r > area.Y+area.H+1e-9 {
					t.Fatalf("%v d = %d: atom %s at %v (radius %v) outside %v", size, d, a.AtomBits(i), p, r, area)
				}
				for k := 0; k < i; k++ {
					minDist = math.Min(minDist, math.Hypot(p[0]-pts[k][0], p[1]-pts[k][1]))
				}
			}
			if minDist < 8*size[2] {
				t.Fatalf("%v d = %d: two atoms %v px apart", size, d, minDist)
			}
			radius := math.Min(minDist/2, 14*size[2])
			for i, p := range pts {
				if got := a.HitAtom(l, p[0]+radius/3, p[1]-radius/3, radius); got != i {
					t.Fatalf("%v d = %d: hit at atom %d found %d", size, d, i, got)
				}
			}
			if got := a.HitAtom(l, area.X-50, area.Y-50, radius); got != -1 {
				t.Fatalf("d = %d: hit %d outside the panel", d, got)
			}
			if n := len(CubeEdges(a.Keys, d)); n != d<<(d-1) {
				t.Fatalf("d = %d: %d edges, want d·2^(d−1)", d, n)
			}
		}
	}
}

// The grid puts the 2^d atoms (5 ≤ d ≤ 10) in distinct cells inside the
// panel, and hit-testing finds the cell's atom.
func TestGrid(t *testing.T) {
	for d := AtomsCubeLimit + 1; d <= AtomsGridLimit; d++ {
		a := atomsAt(t, d, "")
		l := NewAtomsLayout(800, 700, 1, d)
		pts, cell := a.AtomPoints(l)
		area, _ := l.FusedArea(d)
		seen := map[[2]float64]bool{}
		for i, p := range pts {
			if seen[p] {
				t.Fatalf("d = %d: two atoms at %v", d, p)
			}
			seen[p] = true
			if !area.Contains(p[0]-cell/2, p[1]-cell/2) || !area.Contains(p[0]+cell/2, p[1]+cell/2) {
				t.Fatalf("d = %d: cell of atom %d outside %v", d, i, area)
			}
			if got := a.HitAtom(l, p[0]+cell/4, p[1]-cell/4, 0); got != i {
				t.Fatalf("d = %d: hit in atom %d's cell found %d", d, i, got)
			}
		}
	}
}

// Beyond the build limit nothing is built: the facts come from the counts
// (2^40 exactly), fused is absent, and the refusal names the limit.
func TestFactsFromCounts(t *testing.T) {
	for _, d := range []int{AtomsBuildLimit + 1, 40, AtomsMaxWidth} {
		a := atomsAt(t, d, "")
		if a.Built || a.Flat().Len() != 0 || a.Weights != nil {
			t.Fatalf("d = %d: fused head built", d)
		}
		f := a.Facts()
		if f["atoms"] != math.Ldexp(1, d) || f["terms"] != float64(2*d) || f["fused"] != nil {
			t.Fatalf("d = %d: facts atoms %v terms %v fused %v", d, f["atoms"], f["terms"], f["fused"])
		}
		if want := fusion.SigmoidSumValue(a.Q); math.Abs(a.Split-want) > 1e-12 {
			t.Fatalf("d = %d: split %v, Σσ %v", d, a.Split, want)
		}
		if msg, _ := f["refused"].(string); msg == "" || !contains(msg, fmt.Sprintf("d ≤ %d", AtomsBuildLimit)) {
			t.Fatalf("d = %d: refusal %q does not name the limit", d, msg)
		}
		var sum float64
		for _, p := range a.Mass {
			sum += p
		}
		if len(a.Mass) != d+1 || math.Abs(sum-1) > 1e-12 {
			t.Fatalf("d = %d: histogram of %d bars sums to %v", d, len(a.Mass), sum)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// Dragging on the pad (d = 2) moves q to the point under the pointer and
// changes both outputs equally; the pad maps back and forth.
func TestPadDrag(t *testing.T) {
	a := atomsAt(t, 2, "")
	for _, size := range [][3]float64{{800, 700, 1}, {558, 543, 1}, {344, 440, 1}, {360, 640, 1}, {1600, 1400, 2}} {
		l := NewAtomsLayout(size[0], size[1], size[2], 2)
		if l.Pad.W < 60*size[2] || l.Pad.W != l.Pad.H {
			t.Fatalf("%v: pad %v", size, l.Pad)
		}
		// The pad lies inside the heads' panel, below the two heads' rows
		// (beside them on phones).
		if l.Pad.X < l.Heads.X || l.Pad.X+l.Pad.W > l.Heads.X+l.Heads.W || l.Pad.Y+l.Pad.H > l.Heads.Y+l.Heads.H ||
			(!l.Narrow && l.Pad.Y < l.Heads.Y+2*HeadRowHeight(size[2])) || (l.Narrow && l.Pad.X < l.Heads.X+0.5*l.Heads.W) {
			t.Fatalf("%v: pad %v outside the heads' panel %v", size, l.Pad, l.Heads)
		}
		for _, q := range [][2]float64{{0, 0}, {-6, 6}, {1.25, -3.5}} {
			x, y := l.PadToScreen(q[0], q[1])
			if q1, q2 := l.PadToQuery(x, y); q1 != q[0] || q2 != q[1] {
				t.Fatalf("%v: %v → (%v, %v) → (%v, %v)", size, q, x, y, q1, q2)
			}
		}
	}
	l := NewAtomsLayout(800, 700, 1, 2)
	px, py := l.PadToScreen(1.5, -2.25)
	b := a.DragQuery(l, px, py)
	if b == nil || b.Q[0] != 1.5 || b.Q[1] != -2.25 {
		t.Fatalf("dragged to %v", b)
	}
	if a.Q[0] == 1.5 {
		t.Fatal("the drag changed the old scene")
	}
	if b.Split == a.Split || math.Abs((b.Fused-b.Split)-(a.Fused-a.Split)) > 1e-12 {
		t.Fatalf("outputs %v/%v → %v/%v", a.Split, a.Fused, b.Split, b.Fused)
	}
	if c := b.DragQuery(l, px, py); c != nil {
		t.Fatal("a drag to the same point changed the scene")
	}
	if q := b.State.Link(); !contains(q, "q=1.5,-2.25") {
		t.Fatalf("link %s does not carry q", q)
	}
	if c := atomsAt(t, 3, "").DragQuery(NewAtomsLayout(800, 700, 1, 3), px, py); c != nil {
		t.Fatal("pad drag at d = 3")
	}
}

// The general-fusion panel: random keys give the product bound m^H, shared
// keys the multiset count C(m+H−1, H); the fused head equals the sum of
// the heads on random queries; over the limit nothing is fused.
func TestGeneralFusion(t *testing.T) {
	for _, c := range []struct {
		H, m int
		keys string
		want int64
	}{{3, 3, "random", 27}, {4, 3, "shared", 15}, {6, 4, "shared", 84}, {2, 5, "random", 25}} {
		a := atomsAt(t, 3, fmt.Sprintf("&H=%d&m=%d&keys=%s", c.H, c.m, c.keys))
		g := a.General
		if !g.Built || int64(g.Merged) != c.want || g.Error > 1e-12 {
			t.Fatalf("%+v: %+v", c, g)
		}
		if c.keys == "shared" && g.Shared.Int64() != c.want {
			t.Fatalf("%+v: shared count %v", c, g.Shared)
		}
	}
	a := atomsAt(t, 3, "&H=8&m=8&keys=random")
	if a.General.Built || a.General.Refused == "" || a.General.Product.Int64() != 1<<24 {
		t.Fatalf("8^8 random: %+v", a.General)
	}
}

// The fewer-atoms experiment runs as a job in short steps, reports
// increasing progress and, when done, an error for every k that is no
// worse than the constant head's and is labelled as an experiment.
func TestFewerAtomsJob(t *testing.T) {
	a := atomsAt(t, 2, "&k=3&seed=9001")
	j := a.Job()
	if j == nil {
		t.Fatal("no job at d = 2")
	}
	last := -1.0
	for steps := 0; !j.Step(); steps++ {
		if p := j.Progress(); p < last || p > 1 {
			t.Fatalf("progress went from %v to %v", last, p)
		} else {
			last = p
		}
		if steps > 1e6 {
			t.Fatal("the job does not end")
		}
	}
	f := a.Facts()
	fit := f["fit"].(map[string]any)
	if fit["complete"] != true || f["fitProgress"] != 1.0 {
		t.Fatalf("fit facts %v", fit)
	}
	rms := fit["testRMS"].([]any)
	constant := fit["constantRMS"].(float64)
	if len(rms) != 3 {
		t.Fatalf("errors for %d ks", len(rms))
	}
	for k, e := range rms {
		if e.(float64) > constant*1.01 {
			t.Fatalf("k = %d: error %v above the constant head's %v", k+1, e, constant)
		}
	}
	if f["splitNs"] == nil || f["fusedNs"] == nil {
		t.Fatalf("no measured costs: %v %v", f["splitNs"], f["fusedNs"])
	}
	// Done once: a new scene of the same state has nothing left to run.
	if b := atomsAt(t, 2, "&k=3&seed=9001&q=1,1"); b.Job() != nil {
		t.Fatal("the finished job runs again")
	}
}

func TestFormatBytes(t *testing.T) {
	for _, c := range []struct {
		b    int64
		want string
	}{{999, "999 B"}, {1000, "1 kB"}, {176160768, "176 MB"}} {
		if got := FormatBytes(big.NewInt(c.b)); got != c.want {
			t.Fatalf("%d: %q, want %q", c.b, got, c.want)
		}
	}
	if KVBytes(20, big.NewInt(1<<20)).Int64() != 8*21<<20 {
		t.Fatal("KV bytes")
	}
}

// The panels lie inside the canvas and do not overlap, wide or narrow.
func TestAtomsLayout(t *testing.T) {
	for _, size := range [][3]float64{{800, 700, 1}, {558, 543, 1}, {360, 640, 1}, {1600, 1400, 2}} {
		for _, d := range []int{1, 2, 3, 10, 40} {
			l := NewAtomsLayout(size[0], size[1], size[2], d)
			rects := []Rect{l.Header, l.Heads, l.Fused, l.Curve, l.Costs}
			for i, r := range rects {
				empty := i == 4 && l.Narrow // phones show the costs in the page only
				if r.X < 0 || r.Y < 0 || r.X+r.W > size[0]+1e-9 || r.Y+r.H > size[1]+1e-9 || r.W <= 0 || (r.H <= 0) != empty {
					t.Fatalf("%v d = %d: panel %d at %v", size, d, i, r)
				}
				for k := 0; k < i; k++ {
					o := rects[k]
					if r.X < o.X+o.W-1e-9 && o.X < r.X+r.W-1e-9 && r.Y < o.Y+o.H-1e-9 && o.Y < r.Y+r.H-1e-9 {
						t.Fatalf("%v d = %d: panels %d %v and %d %v overlap", size, d, k, o, i, r)
					}
				}
			}
			if l.Narrow != (size[0] < 480*size[2]) {
				t.Fatalf("%v: narrow = %v", size, l.Narrow)
			}
		}
	}
}

// ExampleNewAtoms opens the Atom explosion scene from a share link and
// reads both sides of W_3 at the query of the link.
func ExampleNewAtoms() {
	s, _ := link.Parse("#v=1&scene=atoms&d=3&q=0.5,-1,2")
	a, err := NewAtoms(s, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v head-atom terms, %v fused atoms\n", a.Terms, a.Count)
	fmt.Printf("split %.12f\nfused %.12f\n", a.Split, a.Fused)
	fmt.Printf("P(|S| = s): %.4f\n", a.Mass)
	// Output:
	// 6 head-atom terms, 8 fused atoms
	// split 1.772197830550
	// fused 1.772197830550
	// P(|S| = s): [0.0329 0.3095 0.5102 0.1474]
}
