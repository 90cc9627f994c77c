package scene

import (
	"math"
	"strconv"
	"testing"

	"headlab/numerics/experiment"
	"headlab/numerics/replay"
	"headlab/numerics/transformer"
	"headlab/web/link"
)

func transformerScene(t *testing.T, lab *Lab, frag string) *Transformer {
	t.Helper()
	s, notes := link.Parse(frag)
	if len(notes) > 0 {
		t.Fatalf("%s: %v", frag, notes)
	}
	sc, err := New(s, lab)
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := sc.(*Transformer)
	if !ok {
		t.Fatalf("scene %T", sc)
	}
	tr.Compute()
	return tr
}

// TestTransformerReplay steps through a whole run (seed 1, logged) and
// checks that the counters add up to the run's, that phase A's replay is
// recovery's run of the odd part, and that the result view's units match
// the true network's on the line.
func TestTransformerReplay(t *testing.T) {
	lab := NewLocalLab(experiment.Run)
	const frag = "#v=1&scene=transformer&H=2&d=3&m=3&K=5&seed=1"
	end := transformerScene(t, lab, frag+"&step=100000")
	if end.Run == nil || end.Run.Err != nil {
		t.Fatalf("run: %+v", end.Run)
	}
	res := end.Run.Result
	if n := len(end.Notices()); n != 1 || end.Step() != len(res.Steps) {
		t.Fatalf("step past the end: step %d of %d, %d notices", end.Step(), len(res.Steps), n)
	}
	f := end.Facts()
	if f["queries"] != res.Queries || f["headQueries"] != res.HeadQueries || f["unitQueries"] != res.UnitQueries {
		t.Fatalf("facts %v against the run's %d = %d + %d queries", f, res.Queries, res.HeadQueries, res.UnitQueries)
	}
	if f["units"] != len(res.Net.Units) || len(res.Net.Units) != 5 {
		t.Fatalf("units %v, recovered %d", f["units"], len(res.Net.Units))
	}
	if e, ok := f["error"].(float64); !ok || !(e < 1e-20) || f["equivalent"] != true {
		t.Fatalf("error %v, equivalent %v", f["error"], f["equivalent"])
	}
	if e, ok := f["headError"].(float64); !ok || !(e < 1e-9) {
		t.Fatalf("phase A against the odd part's layer: %v", f["headError"])
	}
	if rec, ok := end.PhaseA(); !ok || rec.Step() != len(res.Heads.Trace.Queries) {
		t.Fatalf("phase A replay at the end: %v", ok)
	}
	rows := end.UnitRows()
	for _, r := range rows {
		if r.Found < 0 || !(r.Err < 1e-9) || r.Sign[0] != r.Sign[1] {
			t.Fatalf("unit row %+v", r)
		}
	}
	coloured := 0
	for _, m := range end.Marks() {
		if m.Kind == transformer.KinkFound && m.Unit >= 0 {
			coloured++
		}
	}
	if coloured != len(res.Kinks) {
		t.Fatalf("%d of %d kinks coloured by their unit at the end", coloured, len(res.Kinks))
	}
	// Every step: counters only grow, the phases come in order, units are
	// found one by one.
	prev := replay.Counts{}
	phaseB := false
	for k := 0; k <= len(res.Steps); k += 1 + k/20 {
		sc := transformerScene(t, lab, frag+"&step="+strconv.Itoa(k))
		c := sc.Counts()
		if c.Queries < prev.Queries || c.Units < prev.Units || c.Head < prev.Head {
			t.Fatalf("step %d: counts %+v after %+v", k, c, prev)
		}
		if sc.Phase() == "units" {
			phaseB = true
		} else if phaseB && sc.Phase() == "heads" {
			t.Fatalf("step %d: phase A after phase B", k)
		}
		if _, ok := sc.Facts()["error"]; ok && k < len(res.Steps) {
			t.Fatalf("step %d: error before the end", k)
		}
		prev = c
	}
	// The pieces found agree with the true curve where they were solved.
	for _, p := range end.Pieces() {
		if math.IsInf(p.T, 0) {
			continue
		}
		if got, want := end.PieceF(p, p.T), end.TrueF(p.T); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("piece at t = %g: %g, the network %g", p.T, got, want)
		}
	}
}

func TestTransformerComputesInTheWorker(t *testing.T) {
	lab := NewLab()
	s, _ := link.Parse("#v=1&scene=transformer&H=1&d=2&m=2&K=2&seed=3")
	sc, err := NewTransformer(s, lab)
	if err != nil {
		t.Fatal(err)
	}
	job := sc.Job()
	if job == nil || job.Step() || job.Step() {
		t.Fatal("the job finished without its run")
	}
	want := lab.Wanted()
	if len(want) != 1 {
		t.Fatalf("wanted %v", want)
	}
	for key, j := range want {
		if j.Kind != experiment.KindTransformer || key != transformerKey(s) {
			t.Fatalf("wanted %s: %+v", key, j)
		}
		res, err := experiment.Run(experiment.Pacer{}, j)
		if err != nil {
			t.Fatal(err)
		}
		lab.Deliver(key, res)
	}
	if !job.Step() || sc.Computing() {
		t.Fatal("the delivered run was not taken")
	}
}

func TestLineAxesAndHits(t *testing.T) {
	a := LineAxes{Plot: Rect{X: 10, Y: 20, W: 400, H: 200}, Y0: -1, Y1: 1}
	for _, tt := range []float64{-50, -1, 0, 0.25, 3, 1e3} {
		if got := a.T(a.X(tt)); math.Abs(got-tt) > 1e-9*(1+math.Abs(tt)) {
			t.Fatalf("t %g → %g", tt, got)
		}
	}
	if a.X(math.Inf(-1)) != 10 || a.X(math.Inf(1)) != 410 || !math.IsInf(a.T(5), -1) {
		t.Fatal("the ends of the line")
	}
	marks := []replay.Mark{{Kind: transformer.Probe, T: 0}, {Kind: transformer.KinkFound, T: 0.01}, {Kind: transformer.Side, T: 2}}
	if i := HitMark(a, marks, a.X(0), 100, 8); i != 1 {
		t.Fatalf("hit %d, want the kink", i)
	}
	if i := HitMark(a, marks, a.X(2)+3, 100, 8); i != 2 {
		t.Fatalf("hit %d, want the side query", i)
	}
	if i := HitMark(a, marks, a.X(2), 400, 8); i != -1 {
		t.Fatalf("hit %d outside the plot", i)
	}
}

func TestTransformerViewNotice(t *testing.T) {
	s, _ := link.Parse("#v=1&scene=transformer&view=sweep")
	sc, err := NewTransformer(s, NewLab())
	if err != nil {
		t.Fatal(err)
	}
	if sc.Link().View != "steps" || len(sc.Notices()) != 1 {
		t.Fatalf("view %s, notices %v", sc.Link().View, sc.Notices())
	}
}
