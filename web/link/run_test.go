package link

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
	"headlab/numerics/recovery"
	"headlab/numerics/recovery/remote"
	"headlab/numerics/recovery/runlog"
)

// recordedRun records a run of c and opens its log as the page does.
func recordedRun(t *testing.T, c runlog.Config) *RunLog {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run <i>1.jsonl")
	_, data, err := remote.Record(context.Background(), path, c, "python3 oracle.py", recovery.Layer(attention.Random(c.H, c.D, 5)))
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := experiment.OpenRunLog(filepath.Base(path), data)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestRunLink: a replay's link carries its run when the log is small
// enough; the link opens the replay with the run's set-up whatever the
// link's other keys say, round-trips, and leaves the replay when a key of
// the set-up changes. A run too large for a link leaves it out.
func TestRunLink(t *testing.T) {
	run := recordedRun(t, runlog.Config{H: 2, D: 3, Mode: "economy", Seed: 7, Spread: 1})
	if run.Link == "" {
		t.Fatal("a (2, 3) run has no link text")
	}
	s, notes, err := Default().Replay(run)
	if err != nil || len(notes) > 0 {
		t.Fatal(err, notes)
	}
	s, _ = s.With("view", "result")
	l := s.Link()
	if !strings.Contains(l, "&run="+run.Link) || !strings.Contains(l, "scene=recovery") {
		t.Fatalf("link %.200s", l)
	}
	// The link's set-up keys edited by hand: the run's win.
	edited := strings.Replace(strings.Replace(l, "H=2", "H=5", 1), "mode=economy", "mode=frugal", 1)
	for _, frag := range []string{l, edited} {
		got, notes := Parse(frag)
		if len(notes) > 0 || got.Run == nil || got.Run.Link != run.Link || got.Run.Hash != run.Hash || got.Run.Name != run.Name {
			t.Fatalf("parsed %.80s: notes %v, run %+v", frag, notes, got.Run)
		}
		if got.H != 2 || got.D != 3 || got.Mode != recovery.Economy || got.Seed != 7 || got.View != Result || got.Scene != Recovery {
			t.Fatalf("parsed: H %d d %d mode %s seed %d view %s scene %s", got.H, got.D, got.Mode, got.Seed, got.View, got.Scene)
		}
		if got.Link() != l {
			t.Fatalf("round trip:\n%.200s\n%.200s", got.Link(), l)
		}
		if err := got.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	left, _ := s.With("H", "3")
	if left.Run != nil || strings.Contains(left.Link(), "run=") {
		t.Fatal("setting H kept the replay")
	}
	// With("run", text) opens the replay as a link does.
	again, notes := Default().With("run", run.Link)
	if len(notes) > 0 || again.Run == nil || again.H != 2 || again.Scene != Recovery {
		t.Fatalf("With(run): %v, %+v", notes, again.Run)
	}
	// A run beyond the page's limits: d = 17 in the recovery scene.
	wide := recordedRun(t, runlog.Config{H: 1, D: 17, Mode: "economy", Seed: 1, Spread: 1})
	got, notes := Parse("#v=1&run=" + wide.Link)
	if got.Run != nil || len(notes) != 1 || !strings.Contains(notes[0].Message, "outside what the page shows") {
		t.Fatalf("a run of d = 17: run %v, notices %v", got.Run != nil, notes)
	}
	// A file run too large for a link: the link carries the view only.
	big := *run
	big.Link = ""
	s.Run = &big
	if strings.Contains(s.Link(), "run=") {
		t.Fatal("a run without link text wrote a run key")
	}
}

// TestRunLinkHostile: a run key that is not a run gets one notice, text
// never markup, and the page's default state.
func TestRunLinkHostile(t *testing.T) {
	for _, v := range []string{"", "<img src=x onerror=alert(1)>", "AAAA", strings.Repeat("A", MaxRun+10), "AQIAAwVwYXBlcg"} {
		got, notes := Parse("#v=1&scene=recovery&run=" + v)
		if got.Run != nil {
			t.Fatalf("run=%.40q opened a run", v)
		}
		if v == "" {
			continue
		}
		if len(notes) != 1 || notes[0].Key != "run" || !strings.Contains(notes[0].Message, "not a run the page can replay") || len([]rune(notes[0].Value)) > 41 {
			t.Fatalf("run=%.40q: notices %v", v, notes)
		}
	}
}
