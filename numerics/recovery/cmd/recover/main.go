// Command recover learns the canonical heads of an attention layer that
// answers value queries from another process or behind an HTTP API (the
// wire format is package headlab/numerics/recovery/remote's), or of a
// layer saved as .npz or .safetensors (package headlab/numerics/layerfile),
// asked as a black box in process:
//
//	recover -oracle 'python3 torch_oracle.py --seed 1 --heads 2 --width 4' -H 2 -d 4 -o out.json
//	recover -url http://localhost:8000/ -H 2 -d 4 -log run.log -budget 500
//	recover -layer layer.npz [-H 4] [-mode frugal] [-prec 256] -o out.json
//
// Unless -spread is given, the learner first reads the layer's scale from
// a few of its own queries (recovery.Calibrate). -biases learns a query
// bias c_h per head and a constant C too (torch's bias=True); with
// -layer it is on when the file's biases are not all zero. With -layer
// the truth is known: the output carries the error of the recovered
// layer against the file's.
//
// With -log FILE every query and answer is appended to FILE as it arrives;
// run again with the same flags and the same log and it resumes: the
// logged answers are served from the log, no query is asked twice, and
// the result has the same bits as a run never interrupted. -budget N asks
// the oracle at most N queries in this run, then stops, saying what is
// learned so far and how to go on. Ctrl-C stops the run cleanly, the log
// kept. See README.md beside this file.
//
// Exit status: 0 when the layer was recovered, 1 when the run failed (the
// library's or the oracle's error), 2 for a usage error, 3 when the
// budget ran out, 4 when interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"headlab/numerics/layerfile"
	"headlab/numerics/recovery"
	"headlab/numerics/recovery/remote"
	"headlab/numerics/recovery/runlog"
)

// Exit codes: one table.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitBudget      = 3
	exitInterrupted = 4
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// config is the command line.
type config struct {
	oracle, url         string
	heads, bound, width int
	mode                recovery.Mode
	prec                uint
	seed                uint64
	spread              float64
	budget              int
	logFile, out, truth string
	layer               string
	biases              bool
	maxError            float64
	timeout             time.Duration
	inFlight, chunk     int
	progress            string
}

// usageError is a bad command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("recover", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.oracle, "oracle", "", "the oracle's command line `CMD ARGS` (split as a shell splits simple quoting), speaking JSON lines on stdin/stdout")
	fs.StringVar(&c.url, "url", "", "the oracle's `URL`, answering a POSTed JSON array of queries")
	fs.StringVar(&c.layer, "layer", "", "the layer saved in `FILE` (.npz or .safetensors: a torch nn.MultiheadAttention state dict with readout.weight), asked in process")
	fs.BoolVar(&c.biases, "biases", false, "learn a query bias c_h per head and a constant C too (with -layer: on when the file's are not zero)")
	fs.Float64Var(&c.maxError, "maxerror", 0, "the largest estimated relative error of a layer returned as recovered (0: the library's 1e-4)")
	fs.IntVar(&c.heads, "H", 0, "the number of heads H")
	fs.IntVar(&c.bound, "H0", 0, "an upper bound H0 on the number of heads (instead of -H)")
	fs.IntVar(&c.width, "d", 0, "the token width d")
	mode := fs.String("mode", "paper", "the query schedule: "+strings.Join(recovery.ModeNames(), ", "))
	fs.UintVar(&c.prec, "prec", 0, fmt.Sprintf("working precision in bits, %d…%d (0: float64)", recovery.MinPrecision, recovery.MaxPrecision))
	fs.Uint64Var(&c.seed, "seed", 1, "the learner's seed (its random bases)")
	fs.Float64Var(&c.spread, "spread", 0, "the query scale κ (0: read from the layer's answers, recovery.Calibrate)")
	fs.IntVar(&c.budget, "budget", 0, "ask the oracle at most `N` queries in this run (0: no limit; answers from the log are free)")
	fs.StringVar(&c.logFile, "log", "", "append every query and answer to `FILE`; with the same flags, resume from it")
	fs.StringVar(&c.out, "o", "", "write the recovered layer to `FILE` (.json, or .npz/.safetensors in canonical keys W, v, c, C)")
	fs.StringVar(&c.truth, "truth", "", "compare with the layer in `FILE` (.json as -o writes, .npz or .safetensors) and report the error")
	fs.DurationVar(&c.timeout, "timeout", 60*time.Second, "how long one query (or one HTTP POST) may take")
	fs.IntVar(&c.inFlight, "inflight", 0, "the most queries (oracle) or POSTs (url) in flight (0: remote's default)")
	fs.IntVar(&c.chunk, "chunk", 0, "the most queries in one POST (0: remote's default)")
	fs.StringVar(&c.progress, "progress", "auto", "progress display: auto (a bar on a terminal, lines otherwise), bar, lines, none")
	if err := fs.Parse(args); err != nil {
		return c, &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return c, &usageError{fmt.Sprintf("unexpected arguments %q", fs.Args())}
	}
	var err error
	if c.mode, err = recovery.ParseMode(*mode); err != nil {
		return c, &usageError{err.Error()}
	}
	sources := 0
	for _, s := range []string{c.oracle, c.url, c.layer} {
		if s != "" {
			sources++
		}
	}
	switch {
	case sources != 1:
		return c, &usageError{"give exactly one of -oracle, -url and -layer"}
	case c.layer == "" && (c.heads > 0) == (c.bound > 0):
		return c, &usageError{"give exactly one of -H and -H0, a positive number of heads"}
	case c.layer == "" && c.width <= 0:
		return c, &usageError{"-d: give the token width, a positive number"}
	case c.heads < 0 || c.bound < 0 || c.width < 0:
		return c, &usageError{"-H, -H0 and -d must not be negative"}
	case c.budget < 0:
		return c, &usageError{"-budget must not be negative"}
	case c.maxError < 0 || c.maxError != c.maxError:
		return c, &usageError{"-maxerror must be a non-negative number"}
	}
	if c.out != "" {
		if ext := strings.ToLower(filepath.Ext(c.out)); ext != ".json" {
			if _, err := layerfile.FormatOf(c.out); err != nil {
				return c, &usageError{fmt.Sprintf("-o %s: write .json, .npz or .safetensors", c.out)}
			}
		}
	}
	switch c.progress {
	case "auto", "bar", "lines", "none":
	default:
		return c, &usageError{fmt.Sprintf("-progress %q: want auto, bar, lines or none", c.progress)}
	}
	return c, nil
}

// options are the library's options for the command line: those of its
// log's config (runlog.Config.Options, which a replay uses too) and the
// acceptance threshold.
func (c config) options() recovery.Options {
	opt, err := c.logConfig().Options()
	if err != nil { // sizes parse rejects; PlannedBatch names them
		opt = recovery.DefaultOptions(max(c.heads, c.bound), c.width)
		opt.Mode, opt.Seed, opt.Precision, opt.Spread = c.mode, c.seed, c.prec, c.spread
	}
	opt.MaxError = c.maxError
	return opt
}

// logConfig is what the run log's header records and a resumed run must
// repeat: everything that changes the queries.
func (c config) logConfig() runlog.Config {
	return runlog.Config{H: c.heads, H0: c.bound, D: c.width, Mode: c.mode.String(), Prec: c.prec, Seed: c.seed, Spread: c.spread, Biases: c.biases}
}

// lockedWriter serialises writes: the oracle's standard error is copied
// to the command's by a goroutine of its own, beside the progress lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if _, isFile := stderr.(*os.File); !isFile {
		stderr = &lockedWriter{w: stderr}
	}
	c, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "recover:", err)
		}
		return exitUsage
	}
	var truth *layerJSON
	var model *layerfile.Model
	if c.layer != "" {
		m, err := readModel(c.layer, c.heads)
		if err != nil {
			fmt.Fprintln(stderr, "recover: -layer:", err)
			return exitUsage
		}
		if c.width > 0 && c.width != m.Width() {
			fmt.Fprintf(stderr, "recover: -d %d, but the layer in %s has width %d\n", c.width, c.layer, m.Width())
			return exitUsage
		}
		c.heads, c.bound, c.width = m.Heads(), 0, m.Width()
		c.biases = c.biases || m.Biased()
		model, truth = &m, modelJSON(m)
	}
	opt := c.options()
	if _, err := recovery.PlannedBatch(opt); err != nil { // validates opt
		fmt.Fprintln(stderr, "recover:", err)
		return exitUsage
	}
	if c.truth != "" {
		if truth, err = readTruth(c.truth); err != nil {
			fmt.Fprintln(stderr, "recover: -truth:", err)
			return exitUsage
		}
	}
	planned := opt.Mode.Queries(opt.Heads, opt.Width)
	if opt.Biases {
		planned += recovery.BiasQueries(opt.Mode, opt.Heads, opt.Width)
	}
	prog := newProgress(c.progress, stderr, planned)
	var lg *remote.Log
	received := func(recovery.Request, recovery.Answer, string) { prog.add(1, false) }
	if c.logFile != "" {
		oracle := c.oracle
		if oracle == "" {
			oracle = c.url
		}
		if oracle == "" {
			oracle = c.layer
		}
		if lg, err = remote.OpenLog(c.logFile, c.logConfig().Map(), oracle); err != nil {
			fmt.Fprintln(stderr, "recover:", err)
			return exitFailed
		}
		if lg.Warning != "" {
			fmt.Fprintln(stderr, "recover: warning:", lg.Warning)
		}
		received = func(q recovery.Request, a recovery.Answer, raw string) {
			lg.Record(q, a, raw)
			prog.add(1, false)
		}
	}
	closeLog := func() {
		if lg != nil {
			if err := lg.Close(); err != nil {
				fmt.Fprintln(stderr, "recover:", err)
			}
		}
	}
	defer closeLog()

	var live recovery.BlackBox
	var closeOracle func() error
	if model != nil {
		live, closeOracle = counted{layerfile.Oracle(*model), received}, func() error { return nil }
	} else if c.oracle != "" {
		argv, err := splitArgs(c.oracle)
		if err != nil {
			fmt.Fprintln(stderr, "recover: -oracle:", err)
			return exitUsage
		}
		p, err := remote.StartProc(argv, remote.ProcOptions{InFlight: c.inFlight, Timeout: c.timeout, Received: received, Stderr: stderr})
		if err != nil {
			fmt.Fprintln(stderr, "recover:", err)
			return exitFailed
		}
		live, closeOracle = p, p.Close
	} else {
		live = remote.NewHTTP(c.url, remote.HTTPOptions{Chunk: c.chunk, InFlight: c.inFlight, Timeout: c.timeout, Received: received})
		closeOracle = func() error { return nil }
	}
	var budget *remote.Budget
	if c.budget > 0 {
		budget = &remote.Budget{Box: live, Max: c.budget}
		live = budget
	}
	box := live
	var cached *remote.Cached
	if lg != nil {
		cached = &remote.Cached{Log: lg, Live: live, Served: func(n int) { prog.add(n, true) }}
		box = cached
	} else {
		// The calibration's probes at the default spread are the run's
		// first queries: asked once.
		box = &memo{box: live, seen: map[string]recovery.Answer{}}
	}
	start := time.Now()
	res, err := recovery.Recover(ctx, box, opt)
	prog.finish()
	if cerr := closeOracle(); cerr != nil && err == nil {
		fmt.Fprintln(stderr, "recover:", cerr)
	}
	fromLog := 0
	if cached != nil {
		fromLog = cached.Hits
	}
	answered := prog.count()
	if err != nil {
		code := exitFailed
		switch {
		case errors.Is(err, remote.ErrBudget):
			code = exitBudget
			fmt.Fprintf(stderr, "recover: stopped by the budget: %d queries asked of the oracle in this run, %d answered from the log.\n", budget.Used, fromLog)
		case ctx.Err() != nil:
			code = exitInterrupted
			fmt.Fprintf(stderr, "recover: interrupted: %v.\n", ctx.Err())
		default:
			fmt.Fprintln(stderr, "recover:", err)
		}
		fmt.Fprintf(stderr, "recover: learned so far: %d of the %d planned queries answered; %d rational functions complete and fitted of the %d begun.\n", answered, planned, fitted(res), len(res.Trace.RFs))
		if code != exitFailed {
			if lg != nil {
				fmt.Fprintf(stderr, "recover: to continue, run again with the same flags (-log %s keeps every answer; raise or drop -budget).\n", c.logFile)
			} else {
				fmt.Fprintln(stderr, "recover: to continue without asking again, add -log FILE to the command line next time; these answers are lost.")
			}
		}
		return code
	}
	out := makeOutput(res, opt, fromLog, time.Since(start))
	out.Asked = answered + fromLog
	if truth != nil {
		if err := out.compare(truth); err != nil {
			fmt.Fprintln(stderr, "recover:", err)
			return exitFailed
		}
	}
	fmt.Fprintln(stdout, out.summary())
	if c.out != "" {
		if err := out.write(c.out); err != nil {
			fmt.Fprintln(stderr, "recover:", err)
			return exitFailed
		}
	}
	return exitOK
}

// counted reports every answer of an in-process black box as the remote
// ones do, for the progress and the log.
type counted struct {
	box      recovery.BlackBox
	received func(recovery.Request, recovery.Answer, string)
}

func (c counted) Answer(ctx context.Context, batch []recovery.Request) ([]recovery.Answer, error) {
	a, err := c.box.Answer(ctx, batch)
	if err == nil {
		for i, q := range batch {
			raw := strconv.FormatFloat(a[i].Y, 'g', -1, 64)
			if a[i].Big != nil {
				raw = strconv.Quote(a[i].Big.Text('g', int(float64(a[i].Big.Prec())*math.Log10(2))+3))
			}
			c.received(q, a[i], raw)
		}
	}
	return a, err
}

// memo answers a query it has answered before from memory: a run without
// a log asks the oracle each query once.
type memo struct {
	box  recovery.BlackBox
	seen map[string]recovery.Answer
}

func (m *memo) Answer(ctx context.Context, batch []recovery.Request) ([]recovery.Answer, error) {
	out := make([]recovery.Answer, len(batch))
	var ask []recovery.Request
	var at []int
	for i, q := range batch {
		if a, ok := m.seen[runlog.Key(q)]; ok {
			out[i] = a
			continue
		}
		ask, at = append(ask, q), append(at, i)
	}
	if len(ask) == 0 {
		return out, nil
	}
	a, err := m.box.Answer(ctx, ask)
	if err != nil {
		return nil, err
	}
	for k, i := range at {
		out[i] = a[k]
		if a[k].Err == nil {
			m.seen[runlog.Key(ask[k])] = a[k]
		}
	}
	return out, nil
}

// readModel reads a saved layer.
func readModel(path string, heads int) (layerfile.Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return layerfile.Model{}, err
	}
	defer f.Close()
	m, err := layerfile.Read(f, path, heads)
	if err != nil {
		return layerfile.Model{}, err
	}
	if m.Network != nil {
		return layerfile.Model{}, fmt.Errorf("%s holds a Transformer (attention and a ReLU network): recover learns attention layers", path)
	}
	return m, nil
}

// fitted counts the rational functions of a run that were fitted.
func fitted(res recovery.Result) int {
	n := 0
	for _, rf := range res.Trace.RFs {
		if len(rf.P) > 0 || len(rf.HeadP) > 0 {
			n++
		}
	}
	return n
}
