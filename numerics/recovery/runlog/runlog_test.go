package runlog_test

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
	"headlab/numerics/recovery/remote"
	"headlab/numerics/recovery/runlog"
)

// record runs c against layer l through a remote.Log and returns the
// log's bytes and the run.
func record(t *testing.T, c runlog.Config, l attention.Layer) ([]byte, recovery.Result) {
	t.Helper()
	res, data, err := remote.Record(context.Background(), filepath.Join(t.TempDir(), "run.jsonl"), c, "in process", recovery.Layer(l))
	if err != nil {
		t.Fatal(err)
	}
	return data, res
}

func sameLayer(t *testing.T, what string, got, want recovery.Result) {
	t.Helper()
	if got.Queries != want.Queries || len(got.Layer) != len(want.Layer) {
		t.Fatalf("%s: %d queries, %d heads; want %d, %d", what, got.Queries, len(got.Layer), want.Queries, len(want.Layer))
	}
	for h := range want.Layer {
		d := want.Layer[h].V.Len()
		for i := 0; i < d; i++ {
			if math.Float64bits(got.Layer[h].V.AtVec(i)) != math.Float64bits(want.Layer[h].V.AtVec(i)) {
				t.Fatalf("%s: head %d v[%d] differs", what, h, i)
			}
			for j := 0; j < d; j++ {
				if math.Float64bits(got.Layer[h].W.At(i, j)) != math.Float64bits(want.Layer[h].W.At(i, j)) {
					t.Fatalf("%s: head %d W[%d,%d] differs", what, h, i, j)
				}
			}
		}
	}
}

// TestReplaySameBits: a run replayed from its log through Box, with the
// options its header names, paused at every checkpoint, ends with the
// recorded run's bits and asks only logged queries.
func TestReplaySameBits(t *testing.T) {
	for _, c := range []runlog.Config{
		{H: 2, D: 4, Mode: "paper", Seed: 1},                         // calibrated
		{H0: 3, D: 3, Mode: "frugal", Seed: 2, Spread: 1},            // a bound
		{H: 2, D: 3, Mode: "economy", Seed: 3, Prec: 160, Spread: 1}, // extended
	} {
		data, want := record(t, c, attention.Random(2, c.D, 4))
		lg, err := runlog.Parse(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if lg.Config != c || lg.Header.Oracle != "in process" {
			t.Fatalf("header %+v, oracle %q; want %+v", lg.Config, lg.Header.Oracle, c)
		}
		opt, err := lg.Config.Options()
		if err != nil {
			t.Fatal(err)
		}
		box := &runlog.Box{Log: lg}
		got, err := recovery.RecoverPaused(context.Background(), box, opt, func(recovery.Progress) bool { return true })
		if err != nil {
			t.Fatalf("%+v: replay: %v", c, err)
		}
		sameLayer(t, c.Mode+" replayed", got, want)
		if box.Served < want.Queries {
			t.Errorf("%+v: %d answers served for %d queries", c, box.Served, want.Queries)
		}
	}
}

// TestParseBad: hostile logs get a clear error; a replay with a log cut
// short fails naming the missing query.
func TestParseBad(t *testing.T) {
	c := runlog.Config{H: 2, D: 3, Mode: "paper", Seed: 1, Spread: 1}
	data, _ := record(t, c, attention.Random(2, 3, 4))
	lines := strings.SplitAfter(string(data), "\n")
	for name, tc := range map[string]struct {
		data string
		want string
	}{
		"empty":          {"", "no complete header line"},
		"another format": {"{\"hello\": 1}\n", "not a run log"},
		"binary":         {"\x89PNG\r\n\x1a\n", "not a run log"},
		"version":        {strings.Replace(lines[0], `"version":1`, `"version":7`, 1), "version 7"},
		"bad config":     {strings.Replace(lines[0], `"mode":"paper"`, `"mode":"fast"`, 1), `unknown mode "fast"`},
		"NaN":            {lines[0] + strings.Replace(lines[3], `"y":`, `"y":"NaN","x":`, 1) + lines[4], "line 2: y is NaN"},
		"malformed":      {lines[0] + "{\"n\": 1, \"tokens\": [[1]]\n" + lines[2], "line 2: malformed"},
	} {
		_, err := runlog.Parse([]byte(tc.data), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	// A last line cut short is dropped with a warning.
	cut := strings.Join(lines[:10], "") + lines[10][:len(lines[10])/2]
	lg, err := runlog.Parse([]byte(cut), nil)
	if err != nil || !strings.Contains(lg.Warning, "dropped its last line 11") || lg.Lines != 9 {
		t.Fatalf("cut: %v, warning %q, %d lines", err, lg.Warning, lg.Lines)
	}
	opt, _ := lg.Config.Options()
	_, err = recovery.Recover(context.Background(), &runlog.Box{Log: lg}, opt)
	if err == nil || !strings.Contains(err.Error(), "query 10") || !strings.Contains(err.Error(), "not in the log") {
		t.Fatalf("replay of a cut log: %v", err)
	}
	// Another configuration's log, when one is wanted.
	other := c
	other.Seed = 9
	if _, err := runlog.Parse(data, other.Map()); err == nil || !strings.Contains(err.Error(), "seed 1 in the log, 9 in this run") {
		t.Fatalf("another configuration: %v", err)
	}
	if !bytes.HasPrefix(data, []byte(`{"log":"headlab recover"`)) {
		t.Fatalf("header %s", lines[0])
	}
}
