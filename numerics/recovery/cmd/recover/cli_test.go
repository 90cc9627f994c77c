package main

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestUsage: bad command lines are refused with exit 2 and a clear
// message; flags of work not done yet say so.
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-oracle", "x", "-H", "2", "-d", "4", "-mode", "fast"}, `unknown mode "fast"`},
		{[]string{"-layer", "/nonexistent/l.npz"}, "-layer: open /nonexistent/l.npz"},
		{[]string{"-layer", "l.npz", "-oracle", "x"}, "exactly one of -oracle, -url and -layer"},
		{[]string{"-oracle", "x", "-H", "2", "-d", "4", "-o", "out.pt"}, "write .json, .npz or .safetensors"},
		{[]string{"-oracle", "x", "-url", "http://127.0.0.1:1/", "-H", "2", "-d", "4"}, "exactly one of -oracle, -url and -layer"},
		{[]string{"-oracle", "x", "-H", "2", "-H0", "3", "-d", "4"}, "exactly one of -H and -H0"},
		{[]string{"-oracle", "x", "-H", "2"}, "-d: give the token width"},
		{[]string{"-oracle", "x", "-H", "2", "-d", "4", "-prec", "7"}, "precision 7 bits outside"},
		{[]string{"-oracle", "'x", "-H", "2", "-d", "4"}, "unclosed '"},
		{[]string{"-oracle", "x", "-H", "2", "-d", "4", "-truth", "/nonexistent/truth.json"}, "-truth: open /nonexistent/truth.json"},
	} {
		var out bytes.Buffer
		code := run(context.Background(), tc.args, &out, &out)
		if code != exitUsage || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%q: exit %d, %q; want exit %d and %q", tc.args, code, out.String(), exitUsage, tc.want)
		}
	}
}

// TestNeverStarts: an oracle command that does not exist fails with exit
// 1 naming it.
func TestNeverStarts(t *testing.T) {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no processes")
	}
	bad := filepath.Join(t.TempDir(), "no-oracle")
	var out bytes.Buffer
	code := run(context.Background(), []string{"-oracle", bad + " --x", "-H", "2", "-d", "4", "-progress", "none"}, &out, &out)
	if code != exitFailed || !strings.Contains(out.String(), "starting the oracle") || !strings.Contains(out.String(), bad) {
		t.Fatalf("exit %d: %s", code, out.String())
	}
}

func TestSplitArgs(t *testing.T) {
	for in, want := range map[string][]string{
		`python3 torch_oracle.py --seed 1`: {"python3", "torch_oracle.py", "--seed", "1"},
		`a 'b c' "d \"e\"" f\ g  h`:        {"a", "b c", `d "e"`, "f g", "h"},
		`'/path with space/oracle' --x=''`: {"/path with space/oracle", "--x="},
		"  lead\ttabs  ":                   {"lead", "tabs"},
		`"a"'b'c`:                          {"abc"},
	} {
		got, err := splitArgs(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("splitArgs(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "   ", `"open`, `'open`} {
		if _, err := splitArgs(bad); err == nil {
			t.Errorf("splitArgs(%q) accepted", bad)
		}
	}
}
