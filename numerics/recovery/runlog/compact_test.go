package runlog_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
	"headlab/numerics/recovery/runlog"
)

// compactOf returns the Compact text of a log's bytes.
func compactOf(t *testing.T, data []byte) (string, *runlog.Log) {
	t.Helper()
	lg, err := runlog.Parse(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	c, err := runlog.NewCompact(lg, "run.jsonl", hex.EncodeToString(sum[:]))
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return text, lg
}

// TestCompactSameBits: a run replayed from its log's Compact text ends
// with the recorded run's bits, in float64 and extended precision, and
// the text is one per log (decoding and encoding again gives it back).
func TestCompactSameBits(t *testing.T) {
	for _, c := range []runlog.Config{
		{H: 2, D: 4, Mode: "paper", Seed: 1},                                   // calibrated
		{H0: 3, D: 3, Mode: "frugal", Seed: 2, Spread: 1},                      // a bound
		{H: 2, D: 3, Mode: "economy", Seed: 3, Prec: 160, Spread: 1},           // extended
		{H: 2, D: 3, Mode: "paper", Seed: 4, Spread: 1, Biases: true, Prec: 0}, // biases
	} {
		data, want := record(t, c, attention.Random(2, c.D, 4))
		text, lg := compactOf(t, data)
		if strings.ContainsAny(text, "=+/&#%") {
			t.Fatalf("%+v: the text %q needs escaping in a link", c, text[:40])
		}
		cp, err := runlog.DecodeCompact(text)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if cp.Config != c || cp.Oracle != "in process" || cp.Name != "run.jsonl" || cp.Answers() != len(lg.Answers) {
			t.Fatalf("decoded %+v %q %q %d answers; want %+v, %d answers", cp.Config, cp.Oracle, cp.Name, cp.Answers(), c, len(lg.Answers))
		}
		again, err := cp.Encode()
		if err != nil || again != text {
			t.Fatalf("%+v: encoded again: %v, same text %v", c, err, again == text)
		}
		opt, _ := cp.Config.Options()
		box := &runlog.Box{Log: cp}
		got, err := recovery.RecoverPaused(context.Background(), box, opt, func(recovery.Progress) bool { return true })
		if err != nil {
			t.Fatalf("%+v: replay: %v", c, err)
		}
		sameLayer(t, c.Mode+" from its compact text", got, want)
		t.Logf("%+v: %d answers, %d bytes of text", c, cp.Answers(), len(text))
	}
}

// TestCompactSize: the paper's (4, 8) in float64, the largest run a link
// carries, fits in MaxCompact; a log with more answers is ErrTooLarge.
func TestCompactSize(t *testing.T) {
	c := runlog.Config{H: 4, D: 8, Mode: "paper", Seed: 1, Spread: 1}
	data, _ := record(t, c, attention.Random(4, 8, 4))
	text, lg := compactOf(t, data)
	if len(text) > runlog.MaxCompact || len(lg.Answers) < recovery.PaperQueries(4, 8) {
		t.Fatalf("(4, 8): %d answers in %d bytes", len(lg.Answers), len(text))
	}
	t.Logf("(4, 8), paper, float64: %d answers in %d bytes of text", len(lg.Answers), len(text))
	// The same answers twice over, under other keys: too large.
	for k, y := range lg.Answers {
		lg.Answers[k+" "] = y
	}
	sum := sha256.Sum256(data)
	cp, err := runlog.NewCompact(lg, "big.jsonl", hex.EncodeToString(sum[:]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Encode(); !errors.Is(err, runlog.ErrTooLarge) {
		t.Fatalf("twice the answers: %v, want ErrTooLarge", err)
	}
}

// TestCompactBad: hostile texts get an error saying what is wrong, and a
// replay from a Compact of another configuration names the missing query.
func TestCompactBad(t *testing.T) {
	c := runlog.Config{H: 2, D: 3, Mode: "paper", Seed: 1, Spread: 1}
	data, _ := record(t, c, attention.Random(2, 3, 4))
	text, _ := compactOf(t, data)
	raw, _ := base64.RawURLEncoding.DecodeString(text)
	enc := base64.RawURLEncoding.EncodeToString
	edit := func(f func(b []byte) []byte) string { return enc(f(append([]byte(nil), raw...))) }
	for name, tc := range map[string]struct{ text, want string }{
		"empty":      {"", "cut short"},
		"not base64": {"<script>", "not base64url"},
		"too long":   {strings.Repeat("A", runlog.MaxCompact+1), "more than"},
		"version":    {edit(func(b []byte) []byte { b[0] = 9; return b }), "version 9"},
		"cut":        {enc(raw[:len(raw)-3]), "cut short"},
		"trailing":   {enc(append(append([]byte(nil), raw...), 0, 0)), "bytes after the last answer"},
		"mode":       {edit(func(b []byte) []byte { b[5] = 'x'; return b }), "unknown mode"},
		"bad varint": {enc([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}), "too long"},
		"huge H":     {enc([]byte{1, 0x80, 0x80, 0x80, 0x01}), "a count of"},
	} {
		_, err := runlog.DecodeCompact(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	// A NaN answer, written as float64 bits.
	nan := edit(func(b []byte) []byte {
		i := len(b) - 8 // the last answer is a float64's 8 bytes
		copy(b[i:], []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f})
		return b
	})
	if _, err := runlog.DecodeCompact(nan); err == nil || !strings.Contains(err.Error(), "not a finite number") {
		t.Errorf("NaN answer: %v", err)
	}
	// Another seed's queries are not in this run's answers.
	cp, err := runlog.DecodeCompact(text)
	if err != nil {
		t.Fatal(err)
	}
	other := c
	other.Seed = 2
	opt, _ := other.Options()
	_, err = recovery.Recover(context.Background(), &runlog.Box{Log: cp}, opt)
	if err == nil || !strings.Contains(err.Error(), "query 1 ") || !strings.Contains(err.Error(), "not in the log") {
		t.Fatalf("replay with another seed: %v", err)
	}
}
