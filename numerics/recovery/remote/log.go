package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"headlab/numerics/recovery"
	"headlab/numerics/recovery/runlog"
)

// A Log is a run log on disk, in package runlog's format: every answer
// appended as it arrives, tokens as on the wire (the key of the answer,
// bit for bit) and y as the oracle sent it, so that a resumed run reads
// the same bits. Error answers are recorded but never served again.
// A Log is safe for use by several goroutines.
type Log struct {
	path    string
	mu      sync.Mutex
	f       *os.File
	answers map[string]json.RawMessage // tokens → y
	n       int                        // answer lines in the file
	err     error                      // the first write error
	// Warning is set when opening dropped a truncated last line.
	Warning string
}

// OpenLog opens the run log at path, creating it with a header holding
// config (whatever changes the queries: sizes, mode, precision, seed, …)
// and oracle (for the reader; not compared). An existing log must have
// been written with the same config; its answers are loaded. A last line
// cut short by a crash is dropped (Warning says so) and the file
// truncated before it; a malformed line elsewhere is an error naming it.
func OpenLog(path string, config map[string]any, oracle string) (*Log, error) {
	want, err := json.Marshal(config)
	if err != nil {
		return nil, fmt.Errorf("remote: log config: %v", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("remote: %v", err)
	}
	l := &Log{path: path, f: f, answers: map[string]json.RawMessage{}}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("remote: reading the log: %v", err)
	}
	if len(data) == 0 {
		h, _ := json.Marshal(struct {
			Log     string          `json:"log"`
			Version int             `json:"version"`
			Config  json.RawMessage `json:"config"`
			Oracle  string          `json:"oracle,omitempty"`
		}{runlog.Kind, runlog.Version, want, oracle})
		if err := l.write(append(h, '\n')); err != nil {
			f.Close()
			return nil, err
		}
		return l, nil
	}
	if err := l.load(data, config); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// load reads an existing log's lines (runlog.Parse) and truncates the
// file after its last complete line.
func (l *Log) load(data []byte, want map[string]any) error {
	lg, err := runlog.Parse(data, want)
	if err != nil {
		return fmt.Errorf("remote: log %s: %w", l.path, err)
	}
	l.answers, l.n = lg.Answers, lg.Lines
	if lg.Warning != "" {
		l.Warning = fmt.Sprintf("log %s: %s", l.path, lg.Warning)
	}
	good := lg.Good
	if err := l.f.Truncate(int64(good)); err != nil {
		return fmt.Errorf("remote: log %s: %v", l.path, err)
	}
	if _, err := l.f.Seek(int64(good), io.SeekStart); err != nil {
		return fmt.Errorf("remote: log %s: %v", l.path, err)
	}
	if data[good-1] != '\n' {
		return l.write([]byte{'\n'})
	}
	return nil
}

// write appends b to the file in one write.
func (l *Log) write(b []byte) error {
	if _, err := l.f.Write(b); err != nil {
		return fmt.Errorf("remote: writing the log %s: %v", l.path, err)
	}
	return nil
}

// Len returns the number of answers the log can serve.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.answers)
}

// Record appends an answer to the log as it arrives (a Received).
func (l *Log) Record(q recovery.Request, a recovery.Answer, raw string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	key := runlog.Key(q)
	l.n++
	line := runlog.Line{N: l.n, Tokens: json.RawMessage(key)}
	if a.Err != nil {
		msg := a.Err.Error()
		var oe *OracleError
		if errors.As(a.Err, &oe) {
			msg = oe.Message
		}
		line.Error = &msg
	} else {
		line.Y = json.RawMessage(raw)
		if _, ok := l.answers[key]; !ok {
			l.answers[key] = json.RawMessage(raw)
		}
	}
	b, err := json.Marshal(line)
	if err == nil {
		err = l.write(append(b, '\n'))
	}
	l.err = err
}

// lookup returns the logged answer to q.
func (l *Log) lookup(q recovery.Request) (recovery.Answer, bool, error) {
	l.mu.Lock()
	y, ok := l.answers[runlog.Key(q)]
	l.mu.Unlock()
	if !ok {
		return recovery.Answer{}, false, nil
	}
	_, a, err := runlog.ParseY(y)
	return a, true, err
}

// Err returns the first error writing the log.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Close flushes the log to disk and closes it.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if l.err != nil {
		return l.err
	}
	return err
}

// Cached serves the answers of a Log and asks Live the rest, as one
// batch. Live's answers reach the log through its Received hook
// (Log.Record), which must be set: Cached does not record them itself.
type Cached struct {
	Log  *Log
	Live recovery.BlackBox
	// Served, when set, is called with the number of answers a batch took
	// from the log.
	Served func(n int)
	// Hits and Asked count the queries served from the log and asked of
	// Live.
	Hits, Asked int
}

// Answer implements recovery.BlackBox.
func (c *Cached) Answer(ctx context.Context, batch []recovery.Request) ([]recovery.Answer, error) {
	out := make([]recovery.Answer, len(batch))
	var miss []recovery.Request
	var where []int
	for i, q := range batch {
		a, ok, err := c.Log.lookup(q)
		if err != nil {
			return nil, fmt.Errorf("remote: log %s: %v", c.Log.path, err)
		}
		if ok {
			out[i] = a
			continue
		}
		miss = append(miss, q)
		where = append(where, i)
	}
	c.Hits += len(batch) - len(miss)
	if c.Served != nil && len(batch) > len(miss) {
		c.Served(len(batch) - len(miss))
	}
	if len(miss) > 0 {
		c.Asked += len(miss)
		ans, err := c.Live.Answer(ctx, miss)
		if err == nil {
			err = c.Log.Err()
		}
		if err != nil {
			return nil, err
		}
		if len(ans) != len(miss) {
			return nil, fmt.Errorf("remote: the oracle answered %d of %d queries", len(ans), len(miss))
		}
		for k, i := range where {
			out[i] = ans[k]
		}
	}
	return out, nil
}

// Logged records every answer of Box, an oracle in this process, in Log
// as a remote oracle's would be: y the shortest decimal of its float64,
// or the exact decimal string of its Big. The answers it returns are read
// back from that text (runlog.ParseY), so that a run and its replay from
// the log see the same bits.
type Logged struct {
	Box recovery.BlackBox
	Log *Log
}

// Answer implements recovery.BlackBox.
func (b Logged) Answer(ctx context.Context, batch []recovery.Request) ([]recovery.Answer, error) {
	out, err := b.Box.Answer(ctx, batch)
	if err != nil {
		return nil, err
	}
	for i, q := range batch {
		raw := strconv.FormatFloat(out[i].Y, 'g', -1, 64)
		if out[i].Big != nil {
			raw = `"` + runlog.ExactDecimal(out[i].Big) + `"`
		}
		if _, out[i], err = runlog.ParseY([]byte(raw)); err != nil {
			return nil, fmt.Errorf("remote: query %d: %v", i+1, err)
		}
		b.Log.Record(q, out[i], raw)
	}
	return out, b.Log.Err()
}

// Record runs the recovery c configures against b, an oracle in this
// process, logging every answer to a new log at path (Logged) that names
// oracle; it returns the run and the log's bytes.
func Record(ctx context.Context, path string, c runlog.Config, oracle string, b recovery.BlackBox) (recovery.Result, []byte, error) {
	opt, err := c.Options()
	if err != nil {
		return recovery.Result{}, nil, err
	}
	lg, err := OpenLog(path, c.Map(), oracle)
	if err != nil {
		return recovery.Result{}, nil, err
	}
	res, err := recovery.Recover(ctx, Logged{Box: b, Log: lg}, opt)
	if cerr := lg.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, nil, err
	}
	data, err := os.ReadFile(path)
	return res, data, err
}

// ErrBudget is the error of a run that used up its query budget.
var ErrBudget = errors.New("query budget used up")

// Budget passes at most Max queries to Box, then refuses: a batch that
// would go past it sends what the budget allows (so that their answers
// reach the log) and fails with ErrBudget.
type Budget struct {
	Box  recovery.BlackBox
	Max  int
	Used int
}

// Answer implements recovery.BlackBox.
func (b *Budget) Answer(ctx context.Context, batch []recovery.Request) ([]recovery.Answer, error) {
	left := b.Max - b.Used
	if len(batch) <= left {
		b.Used += len(batch)
		return b.Box.Answer(ctx, batch)
	}
	if left > 0 {
		b.Used += left
		if _, err := b.Box.Answer(ctx, batch[:left]); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w: %d queries asked, the budget; query %d refused", ErrBudget, b.Max, b.Max+1)
}
