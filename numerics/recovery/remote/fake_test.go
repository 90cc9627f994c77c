package remote

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
)

// The test binary doubles as an oracle: with HEADLAB_FAKE_ORACLE set it
// serves a layer over the subprocess protocol (fakeOracle) instead of
// running the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("HEADLAB_FAKE_ORACLE"); mode != "" {
		os.Exit(fakeOracle(mode))
	}
	os.Exit(m.Run())
}

// fakeH, fakeD and fakeSeed are the fake oracle's layer.
const fakeH, fakeD, fakeSeed = 2, 3, 5

func fakeLayer() attention.Layer { return attention.Random(fakeH, fakeD, fakeSeed) }

// skipExec skips tests that start processes where there are none.
func skipExec(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no processes under " + runtime.GOOS)
	}
}

// skipNet skips tests that listen on loopback where they cannot.
func skipNet(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no listening sockets under " + runtime.GOOS)
	}
}

// fakeArgv is the command that runs this binary as a fake oracle in mode
// (the environment carries the mode: see startFake).
func startFake(t *testing.T, mode string, opt ProcOptions) *Proc {
	t.Helper()
	skipExec(t)
	t.Setenv("HEADLAB_FAKE_ORACLE", mode)
	if opt.Stderr == nil {
		opt.Stderr = testWriter{t}
	}
	p, err := StartProc([]string{os.Args[0], "-test.run=^$"}, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Logf("oracle stderr: %s", strings.TrimSpace(string(b)))
	return len(b), nil
}

// fakeRequest is a request as the fake oracle reads it.
type fakeRequest struct {
	ID     int64               `json:"id"`
	Tokens [][]json.RawMessage `json:"tokens"`
}

// answerFake answers one request exactly: float64 tokens with the layer's
// float64 output, decimal strings at HEADLAB_FAKE_PREC bits with the exact
// decimal of the answer at that precision.
func answerFake(l attention.Layer, prec uint, req fakeRequest) string {
	n := len(req.Tokens)
	if n > 0 && len(req.Tokens[0]) > 0 && req.Tokens[0][0][0] == '"' {
		toks := make([][]*big.Float, n)
		for i, row := range req.Tokens {
			toks[i] = make([]*big.Float, len(row))
			for j, x := range row {
				var s string
				json.Unmarshal(x, &s)
				f, _, err := new(big.Float).SetPrec(prec).Parse(s, 10)
				if err != nil {
					return fmt.Sprintf(`{"id": %d, "error": %q}`, req.ID, err.Error())
				}
				toks[i][j] = f
			}
		}
		y := recovery.BigLayerOracle(l, prec)(toks)
		return fmt.Sprintf(`{"id": %d, "y": "%s"}`, req.ID, exactDecimal(y))
	}
	x := mat.NewDense(n, len(req.Tokens[0]), nil)
	for i, row := range req.Tokens {
		for j, v := range row {
			f, _ := strconv.ParseFloat(string(v), 64)
			x.Set(i, j, f)
		}
	}
	return fmt.Sprintf(`{"id": %d, "y": %s}`, req.ID, strconv.FormatFloat(l.Output(x), 'g', -1, 64))
}

// fakeOracle serves fakeLayer on stdin/stdout, misbehaving as mode says:
// ok, reverse (answers the queries with ids 0…39 in pairs, the second
// first: the planned batches are longer), malformed,
// unknown, repeat, nan, inf, word, huge, long, silent, crash, refuse.
// Queries with id 1 are the ones it misbehaves on; crash dies there.
// HEADLAB_FAKE_COUNT names a file each answered id is appended to.
func fakeOracle(mode string) int {
	l := fakeLayer()
	prec, _ := strconv.Atoi(os.Getenv("HEADLAB_FAKE_PREC"))
	if prec == 0 {
		prec = 128
	}
	var count *os.File
	if name := os.Getenv("HEADLAB_FAKE_COUNT"); name != "" {
		count, _ = os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	}
	crashAt, _ := strconv.ParseInt(os.Getenv("HEADLAB_FAKE_CRASH"), 10, 64)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	var held string
	for in.Scan() {
		var req fakeRequest
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "fake oracle: bad request:", err)
			return 2
		}
		if mode == "crash" && req.ID == crashAt {
			out.Flush()
			fmt.Fprintln(os.Stderr, "fake oracle: boom")
			return 3
		}
		line := answerFake(l, uint(prec), req)
		if req.ID == 1 {
			switch mode {
			case "malformed":
				line = `{"id": 1, "y": }`
			case "unknown":
				line = `{"id": 999, "y": 0.5}`
			case "repeat":
				line += "\n" + line
			case "nan":
				line = `{"id": 1, "y": NaN}`
			case "inf":
				line = `{"id": 1, "y": "-Inf"}`
			case "word":
				line = `{"id": 1, "y": "abc"}`
			case "huge":
				line = `{"id": 1, "y": "0.` + strings.Repeat("1", 1000000) + `"}`
			case "long":
				line = `{"id": 1, "y": "0.` + strings.Repeat("7", 5000) + `"}`
			case "silent":
				line = ""
			case "refuse":
				line = `{"id": 1, "error": "out of memory"}`
			}
		}
		if count != nil {
			fmt.Fprintln(count, req.ID)
		}
		if mode == "reverse" && req.ID%2 == 0 && req.ID < 40 {
			held = line
			continue
		}
		if line != "" {
			fmt.Fprintln(out, line)
		}
		if held != "" {
			fmt.Fprintln(out, held)
			held = ""
		}
		out.Flush()
	}
	if held != "" {
		fmt.Fprintln(out, held)
	}
	return 0
}
