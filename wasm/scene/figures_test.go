package scene

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"headlab/numerics/experiment"
	"headlab/plots"
	"headlab/web/link"
)

// figureOf makes the figure of a link as the figures command and the
// figures worker do: the experiments plots.Needs names, run, then drawn.
func figureOf(t *testing.T, frag string) plots.Figure {
	t.Helper()
	s, notes := link.Parse(frag)
	if len(notes) > 0 {
		t.Fatalf("%s: %v", frag, notes)
	}
	runs, err := experiment.RunFigure(experiment.Pacer{}, plots.Needs(s))
	if err != nil {
		t.Fatalf("%s: %v", frag, err)
	}
	f, err := plots.ForLink(s, runs, plots.DefaultOptions())
	if err != nil {
		t.Fatalf("%s: %v", frag, err)
	}
	return f
}

// tableOf returns a figure's table whose name ends in -what, failing the
// test when it has none.
func tableOf(t *testing.T, f plots.Figure, what string) *plots.Table {
	t.Helper()
	for _, tb := range f.Data {
		if strings.HasSuffix(tb.Name, "-"+what) {
			return tb
		}
	}
	t.Fatalf("figure %s has no table %q", f.Name, what)
	return nil
}

// column returns the index of a figure's data column, failing the test
// when it has none.
func column(t *testing.T, tb *plots.Table, name string) int {
	t.Helper()
	for i, c := range tb.Columns {
		if c == name {
			return i
		}
	}
	t.Fatalf("no column %q in %v", name, tb.Columns)
	return -1
}

// cell parses a data cell as a number (+Inf, -Inf and NaN included; an
// empty cell, a value not made, as NaN).
func cell(t *testing.T, s string) float64 {
	t.Helper()
	if s == "" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("cell %q: %v", s, err)
	}
	return v
}

// factNum reads a fact as a float64 (nil: NaN).
func factNum(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case nil:
		return math.NaN()
	case float64:
		return x
	case int:
		return float64(x)
	}
	t.Fatalf("fact %v (%T) is not a number", v, v)
	return 0
}

// TestTransformerFigureMatchesFacts checks, at steps of phase B and at the
// end of a run, that the line figure's pieces are the canvas's (the
// scene's pieces fact), pieces at t = ±∞ included: the same count, the
// same places, each from replay's Spans.
func TestTransformerFigureMatchesFacts(t *testing.T) {
	lab := NewLocalLab(experiment.Run)
	const base = "#v=1&scene=transformer&H=2&d=3&m=3&K=5&seed=1"
	infinite := 0
	for _, step := range []string{"90", "116", "100000"} {
		frag := base + "&step=" + step
		sc := transformerScene(t, lab, frag)
		facts := sc.Facts()
		pieces, _ := facts["pieces"].([]map[string]any)
		f := figureOf(t, frag)
		if f.Name != "transformer-units" {
			t.Fatalf("%s: figure %s", frag, f.Name)
		}
		tb := tableOf(t, f, "pieces")
		tc := column(t, tb, "place t (on the line)")
		var rows []float64
		for _, r := range tb.Rows {
			rows = append(rows, cell(t, r[tc]))
		}
		if len(rows) != len(pieces) || len(rows) == 0 {
			t.Fatalf("%s: the figure has %d pieces, the canvas %d", frag, len(rows), len(pieces))
		}
		for i, p := range pieces {
			want := factNum(t, p["t"])
			switch {
			case math.IsInf(rows[i], -1):
				infinite++
				if p["t"] != nil || p["from"] != nil || p["to"] == nil {
					t.Errorf("%s: piece %d at −∞: the canvas's %v", frag, i, p)
				}
			case math.IsInf(rows[i], 1):
				infinite++
				if p["t"] != nil || p["to"] != nil || p["from"] == nil {
					t.Errorf("%s: piece %d at +∞: the canvas's %v", frag, i, p)
				}
			case rows[i] != want:
				t.Errorf("%s: piece %d at t = %v in the figure, %v on the canvas", frag, i, rows[i], want)
			}
		}
	}
	if infinite == 0 {
		t.Error("no piece at t = ±∞ was compared")
	}
}

// TestAtomsFigureMatchesFacts checks that the explosion figure's counts are
// the canvas's: 2d head-atom terms and 2^d atoms at H = d, and the merged
// count of the general-fusion panel at its H, for shared and random keys.
func TestAtomsFigureMatchesFacts(t *testing.T) {
	for _, keys := range []string{"shared", "random"} {
		extra := "&H=4&m=3&seed=5&keys=" + keys
		frag := "#v=1&scene=atoms&d=6" + extra
		facts := atomsAt(t, 6, extra).Facts()
		general, _ := facts["general"].(map[string]any)
		tb := figureOf(t, frag).Data[0]
		h := column(t, tb, "heads H (count)")
		var row []string
		for _, r := range tb.Rows {
			if r[h] == "6" {
				row = r
			}
		}
		if row == nil {
			t.Fatalf("%s: no row for H = d = 6", frag)
		}
		if got := cell(t, row[column(t, tb, "split W_d terms 2d (count)")]); got != factNum(t, facts["terms"]) {
			t.Errorf("%s: terms %v in the figure, %v on the canvas", frag, got, facts["terms"])
		}
		if got := cell(t, row[column(t, tb, "fused W_d atoms 2^d (count)")]); got != factNum(t, facts["atoms"]) {
			t.Errorf("%s: atoms %v in the figure, %v on the canvas", frag, got, facts["atoms"])
		}
		for _, r := range tb.Rows {
			if r[h] == "4" {
				if got := cell(t, r[column(t, tb, "measured atoms, "+keys+" keys (count)")]); got != factNum(t, general["merged"]) {
					t.Errorf("%s: merged count %v in the figure, %v on the canvas", frag, got, general["merged"])
				}
			}
		}
	}
}

// TestSweepFigureMatchesFacts runs the noise sweep as the canvas does
// (through the scene's job) and as the figure does, and checks that the
// figure's medians are the canvas's, ε by ε.
func TestSweepFigureMatchesFacts(t *testing.T) {
	const frag = "#v=1&scene=recovery&H=1&d=2&seed=21&view=sweep"
	s, _ := link.Parse(frag)
	// A lab of its own: the shared one would hand TestRecoverySweep this
	// sweep already made.
	sc, err := New(s, NewLocalLab(experiment.Run))
	if err != nil {
		t.Fatal(err)
	}
	r := sc.(*Recovery)
	r.Compute()
	j := r.Job()
	if j == nil {
		t.Fatal("no sweep job")
	}
	for n := 0; !j.Step(); n++ {
		if n > 1000 {
			t.Fatal("the sweep does not finish")
		}
	}
	sweep := r.Facts()["sweep"].(map[string]any)
	eps, med := sweep["eps"].([]any), sweep["median"].([]any)
	f := figureOf(t, frag)
	tb := tableOf(t, f, "median")
	x, e, sched := 0, column(t, tb, "median error (relative)"), column(t, tb, "schedule")
	var rows [][]string
	for _, row := range tb.Rows {
		if row[sched] == r.State.Mode.String() {
			rows = append(rows, row)
		}
	}
	if len(rows) != len(eps) {
		t.Fatalf("the figure has %d values of ε for %s, the canvas %d", len(rows), r.State.Mode, len(eps))
	}
	finite := 0
	for i, row := range rows {
		if !math.IsNaN(factNum(t, med[i])) {
			finite++
		}
		if got, want := cell(t, row[x]), factNum(t, eps[i]); got != want {
			t.Errorf("ε %v in the figure, %v on the canvas", got, want)
		}
		got, want := cell(t, row[e]), factNum(t, med[i])
		if got != want && !(math.IsNaN(want) && (math.IsNaN(got) || math.IsInf(got, 0))) {
			t.Errorf("ε = %v: median %v in the figure, %v on the canvas", eps[i], got, want)
		}
	}
	if finite == 0 {
		t.Error("no median was compared: the sweep resolved no run")
	}
}
