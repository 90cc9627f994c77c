package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"headlab/numerics/recovery"
)

const python = "/usr/bin/python3"

// needTorch skips the test unless python3 can import torch and numpy, and
// fails instead when HEADLAB_REQUIRE_TOOLS is set (./build.sh test).
func needTorch(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no processes under " + runtime.GOOS)
	}
	if err := exec.Command(python, "-c", "import torch, numpy").Run(); err != nil {
		if os.Getenv("HEADLAB_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s cannot import torch and numpy (%v): install python3-torch python3-numpy", python, err)
		}
		t.Skipf("%s cannot import torch and numpy: %v", python, err)
	}
}

// torchLayer is a torch layer the example oracle serves: its flags, and
// the -spread to give the learner ("": let it calibrate, as torch's
// weights are about five times smaller than the default assumes at d = 6;
// "bias": calibrate, and the layer has biases, learned with -biases).
type torchLayer struct {
	h, d, seed int
	spread     string
}

func (l torchLayer) args() string {
	a := fmt.Sprintf("--heads %d --width %d --seed %d", l.h, l.d, l.seed)
	if l.spread == "bias" {
		a += " --bias"
	}
	return a
}

// truth dumps the layer's canonical heads.
func (l torchLayer) truth(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "truth.json")
	cmd := exec.Command(python, append([]string{"torch_oracle.py", "--dump-truth", path}, strings.Fields(l.args())...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dump truth: %v\n%s", err, out)
	}
	return path
}

// recoverRun runs the command in process; it returns the exit code, the
// output layer (when -o was given and it succeeded) and stderr.
func recoverRun(t *testing.T, ctx context.Context, args ...string) (int, *layerJSON, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.json")
	var stdout, stderr bytes.Buffer
	code := run(ctx, append([]string{"-progress", "lines", "-o", out}, args...), &stdout, &stderr)
	var l *layerJSON
	if code == exitOK {
		var err error
		if l, err = readLayer(out); err != nil {
			t.Fatal(err)
		}
	}
	return code, l, stdout.String() + stderr.String()
}

// serveHTTP starts the example oracle on a free loopback port.
func serveHTTP(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command(python, append([]string{"torch_oracle.py", "--http", "0"}, args...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		url <- strings.TrimSpace(line)
	}()
	select {
	case u := <-url:
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Fatalf("the HTTP oracle said %q", u)
		}
		return u
	case <-time.After(2 * time.Minute):
		t.Fatal("the HTTP oracle did not start")
	}
	return ""
}

var torchLayers = []torchLayer{{2, 4, 1, ""}, {3, 6, 2, ""}, {3, 6, 3, "bias"}}

// TestTorch: a torch nn.MultiheadAttention behind the example oracle, over
// the subprocess protocol and over HTTP, is recovered within 1e-8 of its
// canonical heads in every mode.
func TestTorch(t *testing.T) {
	needTorch(t)
	for _, l := range torchLayers {
		truth := l.truth(t)
		url := serveHTTP(t, strings.Fields(l.args())...)
		for _, m := range recovery.Modes() {
			for _, via := range []string{"-oracle", "-url"} {
				target := url
				if via == "-oracle" {
					target = python + " torch_oracle.py " + l.args()
				}
				args := []string{via, target, "-H", fmt.Sprint(l.h), "-d", fmt.Sprint(l.d), "-mode", m.String(), "-truth", truth}
				switch l.spread {
				case "":
				case "bias":
					args = append(args, "-biases")
				default:
					args = append(args, "-spread", l.spread)
				}
				code, out, msg := recoverRun(t, context.Background(), args...)
				if code != exitOK {
					t.Errorf("%+v %v %s: exit %d\n%s", l, m, via, code, msg)
					continue
				}
				if out.Error == nil || *out.Error > 1e-8 || len(out.Heads) != l.h {
					t.Errorf("%+v %v %s: %d heads, error %v", l, m, via, len(out.Heads), out.Error)
				}
				t.Logf("%+v %v %s: %d queries, error %.3g", l, m, via, out.Queries, *out.Error)
			}
		}
	}
}

// countLines reads the oracle's count file: the number of answers and
// whether some tokens were asked twice.
func countLines(t *testing.T, path string) (n int, twice []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		n++
		if seen[f[1]] {
			twice = append(twice, f[1])
		}
		seen[f[1]] = true
	}
	return n, twice
}

// TestTorchResume: a run stopped by its budget, by Ctrl-C (a cancelled
// context) and by the oracle dying, resumed from its log each time, ends
// with the bits of a run never interrupted, and the oracle never sees the
// same query twice.
func TestTorchResume(t *testing.T) {
	needTorch(t)
	l := torchLayers[0]
	for _, m := range []string{"paper", "frugal"} {
		base := []string{"-H", "2", "-d", "4", "-mode", m}
		oracle := python + " torch_oracle.py " + l.args()
		code, want, msg := recoverRun(t, context.Background(), append([]string{"-oracle", oracle}, base...)...)
		if code != exitOK {
			t.Fatalf("uninterrupted: %d\n%s", code, msg)
		}
		dir := t.TempDir()
		logf, count := filepath.Join(dir, "run.log"), filepath.Join(dir, "count")
		counted := oracle + " --count " + count
		logged := append([]string{"-log", logf}, base...)

		// The budget: exit 3, what is learned, how to go on.
		code, _, msg = recoverRun(t, context.Background(), append([]string{"-oracle", counted, "-budget", "40"}, logged...)...)
		if code != exitBudget || !strings.Contains(msg, "stopped by the budget: 40 queries") || !strings.Contains(msg, "to continue, run again with the same flags") {
			t.Fatalf("budget: exit %d\n%s", code, msg)
		}
		// Ctrl-C: cancel once the oracle has answered 20 more.
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for n, _ := countLines(t, count); n < 60 && ctx.Err() == nil; n, _ = countLines(t, count) {
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
		}()
		code, _, msg = recoverRun(t, ctx, append([]string{"-oracle", counted + " --delay 0.01", "-inflight", "4"}, logged...)...)
		cancel()
		if code != exitInterrupted || !strings.Contains(msg, "interrupted") {
			t.Fatalf("interrupted: exit %d\n%s", code, msg)
		}
		// The oracle dies after 15 answers.
		code, _, msg = recoverRun(t, context.Background(), append([]string{"-oracle", counted + " --die-after 15"}, logged...)...)
		if code != exitFailed || !strings.Contains(msg, "dying as asked") {
			t.Fatalf("dead oracle: exit %d\n%s", code, msg)
		}
		// A run from another configuration is refused.
		code, _, msg = recoverRun(t, context.Background(), append([]string{"-oracle", counted, "-seed", "9"}, logged...)...)
		if code != exitFailed || !strings.Contains(msg, "seed 1 in the log, 9 in this run") {
			t.Fatalf("another configuration: exit %d\n%s", code, msg)
		}
		// Resume to the end.
		code, got, msg := recoverRun(t, context.Background(), append([]string{"-oracle", counted}, logged...)...)
		if code != exitOK {
			t.Fatalf("resumed: exit %d\n%s", code, msg)
		}
		a, _ := json.Marshal(got.Heads)
		b, _ := json.Marshal(want.Heads)
		if !bytes.Equal(a, b) || got.Queries != want.Queries {
			t.Fatalf("%s resumed: %d queries, heads %s; uninterrupted %d, %s", m, got.Queries, a, want.Queries, b)
		}
		n, twice := countLines(t, count)
		if n != want.Asked || len(twice) > 0 {
			t.Fatalf("%s: the oracle answered %d queries over the runs (one run asks %d, its calibration included), %d twice", m, n, want.Asked, len(twice))
		}
		t.Logf("%s: resumed to the same bits, %d queries in all, %d from the log in the last run", m, n, got.FromLog)
	}
}

// TestTorchBatch: the paper's queries go out as one batch: one POST of
// all of them, counted by the oracle (the spread given: a calibrated run
// sends its probes as one batch first).
func TestTorchBatch(t *testing.T) {
	needTorch(t)
	l := torchLayers[0]
	count := filepath.Join(t.TempDir(), "count")
	url := serveHTTP(t, append(strings.Fields(l.args()), "--count", count)...)
	code, out, msg := recoverRun(t, context.Background(), "-url", url, "-chunk", "100000", "-H", "2", "-d", "4", "-spread", "1.7")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, msg)
	}
	data, _ := os.ReadFile(count)
	var posts []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "# post ") {
			posts = append(posts, strings.TrimPrefix(line, "# post "))
		}
	}
	want := fmt.Sprint(recovery.PaperQueries(2, 4))
	if len(posts) != 1 || posts[0] != want || out.Queries != recovery.PaperQueries(2, 4) {
		t.Fatalf("posts of %v queries, want one of %s", posts, want)
	}
}

// TestTorchSameAsLayer: the torch layer behind the example oracle and its
// state dict saved as .npz and read by -layer give the same layer, to
// 1e-10 (each is within about 1e-12 of the truth): not the same bits,
// since torch's forward pass and layerfile.Model.Output round in
// different orders, so their answers differ in the last bits, and so do
// the heads learned from them.
func TestTorchSameAsLayer(t *testing.T) {
	needTorch(t)
	saved := filepath.Join(t.TempDir(), "layer.npz")
	l := torchLayer{3, 6, 3, "bias"}
	cmd := exec.Command(python, append([]string{"torch_oracle.py", "--save", saved, "--dump-truth", filepath.Join(t.TempDir(), "t.json")}, strings.Fields(l.args())...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("save: %v\n%s", err, out)
	}
	for _, m := range recovery.Modes() {
		code, viaProc, msg := recoverRun(t, context.Background(), "-oracle", python+" torch_oracle.py "+l.args(), "-H", "3", "-d", "6", "-biases", "-mode", m.String())
		if code != exitOK {
			t.Fatalf("%v -oracle: exit %d\n%s", m, code, msg)
		}
		code, viaFile, msg := recoverRun(t, context.Background(), "-layer", saved, "-H", "3", "-mode", m.String())
		if code != exitOK {
			t.Fatalf("%v -layer: exit %d\n%s", m, code, msg)
		}
		if viaFile.Queries != viaProc.Queries || !viaFile.Biases {
			t.Errorf("%v: %d queries through the file, %d through the oracle (biases %v)", m, viaFile.Queries, viaProc.Queries, viaFile.Biases)
		}
		if err := viaProc.compare(viaFile); err != nil || *viaProc.Error > 1e-10 {
			t.Errorf("%v: the two runs differ by %.3g (%v)", m, *viaProc.Error, err)
		}
	}
}
