package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"headlab/numerics/recovery"
)

// liveBox answers in process as an oracle would over the wire (y as text,
// each answer to Received), counting every query it is asked by its
// tokens, and fails once stop says so.
type liveBox struct {
	inner recovery.BlackBox
	rec   Received
	asked map[string]int
	stop  func(n int) error // n answers given so far
	n     int
}

func (b *liveBox) Answer(ctx context.Context, batch []recovery.Request) ([]recovery.Answer, error) {
	out := make([]recovery.Answer, len(batch))
	for i, q := range batch {
		if b.stop != nil {
			if err := b.stop(b.n); err != nil {
				return nil, err
			}
		}
		a, err := b.inner.Answer(ctx, batch[i:i+1])
		if err != nil {
			return nil, err
		}
		raw := strconv.FormatFloat(a[0].Y, 'g', -1, 64)
		if a[0].Big != nil {
			raw = `"` + exactDecimal(a[0].Big) + `"`
		}
		_, out[i], _ = parseY([]byte(raw))
		b.asked[string(appendTokens(nil, q))]++
		b.n++
		b.rec(q, out[i], raw)
	}
	return out, nil
}

func logConfig(opt recovery.Options) map[string]any {
	return map[string]any{"H": opt.Heads, "d": opt.Width, "mode": opt.Mode.String(), "prec": opt.Precision, "seed": opt.Seed}
}

// runLogged runs opt against the fake layer through the log at path,
// stopping as stop says; it returns the run, its error and what it asked.
func runLogged(t *testing.T, path string, opt recovery.Options, asked map[string]int, stop func(n int) error, budget int) (recovery.Result, error) {
	t.Helper()
	lg, err := OpenLog(path, logConfig(opt), "in process")
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	if lg.Warning != "" {
		t.Log(lg.Warning)
	}
	var live recovery.BlackBox = &liveBox{inner: recovery.Layer(fakeLayer()), rec: lg.Record, asked: asked, stop: stop}
	if budget > 0 {
		live = &Budget{Box: live, Max: budget}
	}
	return recovery.Recover(context.Background(), &Cached{Log: lg, Live: live}, opt)
}

// TestResume: a run stopped at several points (a budget inside and after
// the planned batch, a dead oracle) and resumed from its log each time
// ends with the bits of a run never interrupted, no query asked twice.
func TestResume(t *testing.T) {
	for _, tc := range []struct {
		m    recovery.Mode
		prec uint
	}{{recovery.Paper, 0}, {recovery.Economy, 0}, {recovery.Frugal, 0}, {recovery.Economy, 128}} {
		opt := fakeOptions(tc.m, tc.prec)
		want, err := recovery.Recover(context.Background(), recovery.Layer(fakeLayer()), opt)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "run.log")
		asked := map[string]int{}
		errDead := errors.New("the oracle died")
		stops := []struct {
			budget int
			stop   func(int) error
		}{
			{budget: 10},
			{budget: 15},
			{stop: func(n int) error {
				if n == 7 {
					return errDead
				}
				return nil
			}},
			{budget: 5}, {budget: 5},
		}
		var got recovery.Result
		done := false
		for i, s := range stops {
			got, err = runLogged(t, path, opt, asked, s.stop, s.budget)
			if err == nil {
				done = true
				t.Logf("%v at %d bits: resolved at stop %d", tc.m, tc.prec, i)
				break
			}
			if !errors.Is(err, ErrBudget) && !errors.Is(err, errDead) {
				t.Fatalf("stop %d: %v", i, err)
			}
		}
		if !done {
			got, err = runLogged(t, path, opt, asked, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
		}
		sameResult(t, fmt.Sprintf("%v at %d bits resumed", tc.m, tc.prec), got, want)
		total := 0
		for k, n := range asked {
			if n != 1 {
				t.Fatalf("query %.60s asked %d times", k, n)
			}
			total += n
		}
		if total != want.Queries {
			t.Errorf("%d queries asked over the runs, %d in one", total, want.Queries)
		}
	}
}

// TestLogBad: a log of another configuration, a truncated last line, a
// malformed line in the middle.
func TestLogBad(t *testing.T) {
	opt := fakeOptions(recovery.Paper, 0)
	path := filepath.Join(t.TempDir(), "run.log")
	if _, err := runLogged(t, path, opt, map[string]int{}, nil, 40); !errors.Is(err, ErrBudget) {
		t.Fatal(err)
	}
	other := opt
	other.Mode = recovery.Economy
	if _, err := OpenLog(path, logConfig(other), ""); err == nil || !strings.Contains(err.Error(), `another configuration: mode "paper" in the log, "economy" in this run`) {
		t.Fatalf("another configuration: %v", err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) != 42 || lines[41] != "" { // the header, 40 answers
		t.Fatalf("%d lines", len(lines))
	}
	// A crash mid-write: the last line cut short is dropped with a warning.
	cut := strings.Join(lines[:40], "") + lines[40][:len(lines[40])/2]
	os.WriteFile(path, []byte(cut), 0o644)
	lg, err := OpenLog(path, logConfig(opt), "")
	if err != nil || !strings.Contains(lg.Warning, "dropped its last line 41") || lg.Len() != 39 {
		t.Fatalf("truncated: %v, warning %q, %d answers", err, lg.Warning, lg.Len())
	}
	lg.Close()
	asked := map[string]int{}
	got, err := runLogged(t, path, opt, asked, nil, 0)
	want, _ := recovery.Recover(context.Background(), recovery.Layer(fakeLayer()), opt)
	if err != nil || len(asked) != want.Queries-39 {
		t.Fatalf("resumed after the cut: %v, asked %d", err, len(asked))
	}
	sameResult(t, "resumed after a cut", got, want)
	// A malformed line in the middle is an error naming it.
	data, _ = os.ReadFile(path)
	lines = strings.SplitAfter(string(data), "\n")
	lines[5] = `{"n": 5, "tokens": [[1]], "y": "zz"}` + "\n"
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	if _, err := OpenLog(path, logConfig(opt), ""); err == nil || !strings.Contains(err.Error(), "line 6") || !strings.Contains(err.Error(), `"zz" is not a decimal number`) {
		t.Fatalf("malformed line: %v", err)
	}
	os.WriteFile(path, []byte("hello\n"), 0o644)
	if _, err := OpenLog(path, logConfig(opt), ""); err == nil || !strings.Contains(err.Error(), "not a run log") {
		t.Fatalf("not a log: %v", err)
	}
}
