package remote

import (
	"context"
	"errors"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"headlab/numerics/recovery"
)

// sameResult fails unless two results hold the same heads bit for bit.
func sameResult(t *testing.T, what string, got, want recovery.Result) {
	t.Helper()
	if got.Queries != want.Queries || len(got.Layer) != len(want.Layer) {
		t.Fatalf("%s: %d queries, %d heads; want %d, %d", what, got.Queries, len(got.Layer), want.Queries, len(want.Layer))
	}
	for h := range want.Layer {
		d := want.Layer[h].V.Len()
		for i := 0; i < d; i++ {
			if math.Float64bits(got.Layer[h].V.AtVec(i)) != math.Float64bits(want.Layer[h].V.AtVec(i)) {
				t.Fatalf("%s: head %d v[%d] %v, want %v", what, h, i, got.Layer[h].V.AtVec(i), want.Layer[h].V.AtVec(i))
			}
			for j := 0; j < d; j++ {
				if math.Float64bits(got.Layer[h].W.At(i, j)) != math.Float64bits(want.Layer[h].W.At(i, j)) {
					t.Fatalf("%s: head %d W[%d,%d] differs", what, h, i, j)
				}
			}
		}
	}
	for h := range want.BigLayer {
		if got.BigLayer[h].V[0].Cmp(want.BigLayer[h].V[0]) != 0 {
			t.Fatalf("%s: head %d big v differs", what, h)
		}
	}
}

func fakeOptions(mode recovery.Mode, prec uint) recovery.Options {
	opt := recovery.DefaultOptions(fakeH, fakeD)
	opt.Mode, opt.Seed, opt.Precision = mode, 3, prec
	return opt
}

// TestProcSameBits: a layer behind the subprocess protocol, answering in
// any order, is recovered bit for bit as in process, in float64 and in
// extended precision (decimal strings both ways).
func TestProcSameBits(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		m      recovery.Mode
		prec   uint
		flight int
	}{{"ok", recovery.Paper, 0, 0}, {"reverse", recovery.Economy, 0, 7}, {"ok", recovery.Frugal, 0, 1}, {"reverse", recovery.Paper, 128, 0}} {
		opt := fakeOptions(tc.m, tc.prec)
		want, err := recovery.Recover(context.Background(), recovery.Layer(fakeLayer()), opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("HEADLAB_FAKE_PREC", "128")
		p := startFake(t, tc.mode, ProcOptions{InFlight: tc.flight})
		got, err := recovery.Recover(context.Background(), p, opt)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		sameResult(t, tc.mode+" "+tc.m.String(), got, want)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestProcBadInput: every way an oracle can misbehave ends the batch with
// an error naming the query's id and the cause, and nothing hangs (a
// silent oracle's timeout ends it).
func TestProcBadInput(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want []string
	}{
		{"malformed", []string{"query id 1", "malformed JSON"}},
		{"unknown", []string{"query id 999", "unknown id"}},
		{"repeat", []string{"query id 1", "answered twice"}},
		{"nan", []string{"query id 1", "NaN, not a finite number"}},
		{"inf", []string{"query id 1", "-Inf, not a finite number"}},
		{"word", []string{"query id 1", `"abc" is not a decimal number`}},
		{"huge", []string{"query id 1", "longer than 65536 bytes"}},
		{"long", []string{"query id 1", "5000 digits, more than the 4096"}},
		{"silent", []string{"query id 1", "no answer within 300ms"}},
		{"crash", []string{"query id 1", "stopped (exit status 3)", "boom"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Setenv("HEADLAB_FAKE_CRASH", "1")
			// Only the silent oracle needs its timeout to fire; the others
			// get one no busy machine reaches, so that their own error
			// comes first.
			timeout := time.Minute
			if tc.mode == "silent" {
				timeout = 300 * time.Millisecond
			}
			p := startFake(t, tc.mode, ProcOptions{Timeout: timeout})
			batch, _ := recovery.PlannedBatch(fakeOptions(recovery.Paper, 0))
			_, err := p.Answer(context.Background(), batch)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, err2 := p.Answer(context.Background(), batch[:1]); err2 == nil || !errors.Is(err2, errFailed) {
				t.Errorf("a failed Proc answered again: %v", err2)
			}
		})
	}
}

// TestProcRefusal: an oracle's error answer stops the run naming the
// query, through recovery.Recover.
func TestProcRefusal(t *testing.T) {
	p := startFake(t, "refuse", ProcOptions{})
	_, err := recovery.Recover(context.Background(), p, fakeOptions(recovery.Paper, 0))
	var oe *OracleError
	if !errors.As(err, &oe) || oe.ID != 1 || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("refusal: %v", err)
	}
}

// TestProcNeverStarts: a command that does not exist fails at once, and
// one that exits at once fails the first batch.
func TestProcNeverStarts(t *testing.T) {
	skipExec(t)
	_, err := StartProc([]string{filepath.Join(t.TempDir(), "no-such-oracle")}, ProcOptions{})
	if err == nil || !strings.Contains(err.Error(), "starting the oracle") {
		t.Fatalf("missing command: %v", err)
	}
	p, err := StartProc([]string{os.Args[0], "-test.run=^$", "-no-such-flag"}, ProcOptions{Stderr: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	batch, _ := recovery.PlannedBatch(fakeOptions(recovery.Paper, 0))
	_, err = p.Answer(context.Background(), batch)
	if err == nil || !strings.Contains(err.Error(), "query id 0") || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("oracle that exits: %v", err)
	}
}

// TestProcCancel: cancelling the context while the oracle keeps silent
// (on query 1) returns the context's error naming the oldest query
// unanswered (0 on a slow machine, else 1).
func TestProcCancel(t *testing.T) {
	p := startFake(t, "silent", ProcOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	batch, _ := recovery.PlannedBatch(fakeOptions(recovery.Paper, 0))
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err := p.Answer(ctx, batch)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "query id ") {
		t.Fatalf("cancel: %v", err)
	}
}

// TestDecimals: the exact decimal of a token parses back to the same
// number, and answers parse at a precision keeping their digits.
func TestDecimals(t *testing.T) {
	x := new(big.Float).SetPrec(160).Quo(big.NewFloat(1).SetPrec(160), big.NewFloat(3).SetPrec(160))
	s := exactDecimal(x)
	y, _, err := new(big.Float).SetPrec(160).Parse(s, 10)
	if err != nil || y.Cmp(x) != 0 {
		t.Fatalf("exact decimal %s of 1/3 at 160 bits reads back as %v (%v)", s, y, err)
	}
	a, err := parseDecimal("0." + strings.Repeat("3", 100))
	if err != nil || a.Big.Prec() < 332 || a.Y != 1.0/3 {
		t.Fatalf("100 digits: %v, %v", a, err)
	}
	for _, bad := range []string{"", "1.2.3", "0x10", "1e", "1_000", "--1", "1e9999999", " 1"} {
		if _, err := parseDecimal(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
