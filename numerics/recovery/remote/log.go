package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"

	"headlab/numerics/recovery"
)

// logKind is the first line's "log" value, naming the format.
const logKind = "headlab recover"

// logVersion is the format's version.
const logVersion = 1

// A Log is a run log: a file of JSON lines, the first a header with the
// run's configuration,
//
//	{"log": "headlab recover", "version": 1, "config": {…}, "oracle": "…"}
//
// then one line an answer, appended as it arrives:
//
//	{"n": 12, "tokens": [[…], …], "y": -0.123}
//	{"n": 13, "tokens": [[…], …], "error": "…"}
//
// tokens as on the wire (the key of the answer, bit for bit) and y as the
// oracle sent it (a number, or a string of digits), so that a resumed run
// reads the same bits. Error answers are recorded but never served again.
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

type logHeader struct {
	Log     string         `json:"log"`
	Version int            `json:"version"`
	Config  map[string]any `json:"config"`
	Oracle  string         `json:"oracle,omitempty"`
}

type logLine struct {
	N      int             `json:"n"`
	Tokens json.RawMessage `json:"tokens"`
	Y      json.RawMessage `json:"y,omitempty"`
	Error  *string         `json:"error,omitempty"`
}

// OpenLog opens the run log at path, creating it with a header holding
// config (whatever changes the queries: sizes, mode, precision, seed, …)
// and oracle (for the reader; not compared). An existing log must have
// been written with the same config; its answers are loaded. A last line
// cut short by a crash is dropped (Warning says so) and the file
// truncated before it; a malformed line elsewhere is an error naming it.
func OpenLog(path string, config map[string]any, oracle string) (*Log, error) {
	want, err := normalize(config)
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
		h, _ := json.Marshal(logHeader{Log: logKind, Version: logVersion, Config: want, Oracle: oracle})
		if err := l.write(append(h, '\n')); err != nil {
			f.Close()
			return nil, err
		}
		return l, nil
	}
	if err := l.load(data, want); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// normalize passes a config through JSON, so that it compares with one
// read back from a file.
func normalize(c map[string]any) (map[string]any, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	err = json.Unmarshal(b, &out)
	return out, err
}

// load reads an existing log's lines.
func (l *Log) load(data []byte, want map[string]any) error {
	good := 0 // bytes of complete, valid lines
	for no := 1; good < len(data); no++ {
		end := bytes.IndexByte(data[good:], '\n')
		last := end < 0
		if last {
			end = len(data) - good
		}
		line := data[good : good+end]
		var err error
		if no == 1 {
			err = checkHeader(line, want)
			if err != nil {
				return fmt.Errorf("remote: log %s: %w", l.path, err)
			}
		} else {
			err = l.loadLine(line)
		}
		if err != nil && last {
			l.Warning = fmt.Sprintf("log %s: dropped its last line %d, cut short (%v)", l.path, no, err)
			break
		}
		if err != nil {
			return fmt.Errorf("remote: log %s line %d: %v", l.path, no, err)
		}
		good += end
		if !last {
			good++
		}
	}
	if good == 0 {
		return fmt.Errorf("remote: log %s: no complete header line", l.path)
	}
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

// checkHeader compares a log's header with the run's config.
func checkHeader(line []byte, want map[string]any) error {
	var h logHeader
	if err := json.Unmarshal(line, &h); err != nil || h.Log != logKind {
		return fmt.Errorf("not a run log of this command (its first line is %s)", clip(line))
	}
	if h.Version != logVersion {
		return fmt.Errorf("log format version %d, this command writes %d", h.Version, logVersion)
	}
	var diff []string
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range h.Config {
		keys[k] = true
	}
	for k := range keys {
		if !reflect.DeepEqual(want[k], h.Config[k]) {
			diff = append(diff, fmt.Sprintf("%s %v in the log, %v in this run", k, show(h.Config[k]), show(want[k])))
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		return fmt.Errorf("written by another configuration: %s", strings.Join(diff, "; "))
	}
	return nil
}

func show(v any) string {
	if v == nil {
		return "(none)"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// loadLine reads one answer line.
func (l *Log) loadLine(line []byte) error {
	var a logLine
	if err := json.Unmarshal(line, &a); err != nil {
		return fmt.Errorf("malformed (%v): %s", err, clip(line))
	}
	if len(a.Tokens) == 0 || a.Tokens[0] != '[' {
		return fmt.Errorf("no tokens: %s", clip(line))
	}
	l.n++
	if a.Error != nil {
		return nil
	}
	if len(a.Y) == 0 {
		return fmt.Errorf("neither y nor error: %s", clip(line))
	}
	if _, _, err := parseY(a.Y); err != nil {
		return err
	}
	var key bytes.Buffer
	if err := json.Compact(&key, a.Tokens); err != nil {
		return err
	}
	if _, ok := l.answers[key.String()]; !ok {
		l.answers[key.String()] = append(json.RawMessage(nil), a.Y...)
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
	key := string(appendTokens(nil, q))
	l.n++
	line := logLine{N: l.n, Tokens: json.RawMessage(key)}
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
	y, ok := l.answers[string(appendTokens(nil, q))]
	l.mu.Unlock()
	if !ok {
		return recovery.Answer{}, false, nil
	}
	_, a, err := parseY(y)
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
