package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"headlab/numerics/recovery"
)

// HTTPOptions configures an HTTP oracle. The zero value takes the
// defaults.
type HTTPOptions struct {
	// Chunk is the most requests in one POST (256).
	Chunk int
	// InFlight is the most POSTs awaiting their answer at once (4).
	InFlight int
	// Timeout bounds one POST, answer included (60 s).
	Timeout time.Duration
	// Attempts is how often a POST is tried on 429, 5xx or a transport
	// error before the batch fails (6).
	Attempts int
	// Backoff is the first wait before a retry, doubled each time (100 ms);
	// MaxBackoff bounds it and any Retry-After the server asks for (30 s).
	Backoff, MaxBackoff time.Duration
	// Received, when set, sees every answer as it arrives.
	Received Received
	// Client makes the requests (http.DefaultClient when nil).
	Client *http.Client
}

func (o HTTPOptions) chunk() int    { return orInt(o.Chunk, 256) }
func (o HTTPOptions) inFlight() int { return orInt(o.InFlight, 4) }
func (o HTTPOptions) attempts() int { return orInt(o.Attempts, 6) }
func (o HTTPOptions) timeout() time.Duration {
	return orDur(o.Timeout, 60*time.Second)
}
func (o HTTPOptions) backoff() time.Duration    { return orDur(o.Backoff, 100*time.Millisecond) }
func (o HTTPOptions) maxBackoff() time.Duration { return orDur(o.MaxBackoff, 30*time.Second) }

func orInt(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

func orDur(v, d time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return d
}

// HTTP is an oracle behind a URL speaking the wire format: a POST of a
// JSON array of requests answered by a JSON array of answers. It
// implements recovery.BlackBox.
type HTTP struct {
	url    string
	opt    HTTPOptions
	nextID int64
}

// NewHTTP returns the oracle at url.
func NewHTTP(url string, opt HTTPOptions) *HTTP { return &HTTP{url: url, opt: opt} }

type chunkResult struct {
	start int
	ans   []wireAnswer
	err   error
}

// Answer posts the batch in chunks, at most InFlight at once, and returns
// the answers in the batch's order.
func (h *HTTP) Answer(ctx context.Context, batch []recovery.Request) ([]recovery.Answer, error) {
	n := len(batch)
	first := h.nextID
	h.nextID += int64(n)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	size := h.opt.chunk()
	chunks := (n + size - 1) / size
	results := make(chan chunkResult, chunks)
	slots := make(chan struct{}, h.opt.inFlight())
	go func() {
		for c := 0; c < chunks; c++ {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			lo, hi := c*size, min((c+1)*size, n)
			go func() {
				defer func() { <-slots }()
				ans, err := h.post(ctx, first+int64(lo), batch[lo:hi])
				results <- chunkResult{start: lo, ans: ans, err: err}
			}()
		}
	}()
	out := make([]recovery.Answer, n)
	for c := 0; c < chunks; c++ {
		var r chunkResult
		select {
		case r = <-results:
		case <-ctx.Done():
			return nil, fmt.Errorf("remote: query id %d: %w", first, ctx.Err())
		}
		if r.err != nil {
			return nil, fmt.Errorf("remote: %w", r.err)
		}
		m := min(size, n-r.start)
		got := make([]bool, m)
		for _, w := range r.ans {
			k := w.id - first - int64(r.start)
			if k < 0 || k >= int64(m) {
				return nil, fmt.Errorf("remote: query id %d: an answer to an id not in its request (ids %d…%d)", w.id, first+int64(r.start), first+int64(r.start+m-1))
			}
			if got[k] {
				return nil, fmt.Errorf("remote: query id %d: answered twice", w.id)
			}
			got[k] = true
			out[r.start+int(k)] = w.a
		}
		for k := range got { // the array's length was checked: every id is there
			if !got[k] {
				return nil, fmt.Errorf("remote: query id %d: no answer", first+int64(r.start+k))
			}
		}
		if h.opt.Received != nil {
			for _, w := range r.ans {
				k := int(w.id - first)
				h.opt.Received(batch[k], w.a, w.raw)
			}
		}
	}
	return out, nil
}

// errRetry marks a failure worth another attempt.
type errRetry struct {
	err   error
	after time.Duration // the server's Retry-After, 0 if none
}

func (e *errRetry) Error() string { return e.err.Error() }

// post sends one chunk, retrying with backoff.
func (h *HTTP) post(ctx context.Context, first int64, chunk []recovery.Request) ([]wireAnswer, error) {
	var body []byte
	body = append(body, '[')
	for i, q := range chunk {
		if i > 0 {
			body = append(body, ',')
		}
		body = appendRequest(body, first+int64(i), q)
	}
	body = append(body, ']')
	wait := h.opt.backoff()
	last := first + int64(len(chunk)) - 1
	for attempt := 1; ; attempt++ {
		ans, err := h.once(ctx, body, len(chunk))
		if err == nil {
			return ans, nil
		}
		var r *errRetry
		if !errors.As(err, &r) {
			return nil, fmt.Errorf("queries id %d…%d: %w", first, last, err)
		}
		if attempt >= h.opt.attempts() {
			return nil, fmt.Errorf("queries id %d…%d: %v; gave up after %d attempts", first, last, err, attempt)
		}
		d := wait
		if r.after > 0 {
			d = r.after
		}
		d = min(d, h.opt.maxBackoff())
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, fmt.Errorf("queries id %d…%d: %w (after %v)", first, last, ctx.Err(), err)
		}
		wait *= 2
	}
}

// once makes one POST and reads its answers.
func (h *HTTP) once(ctx context.Context, body []byte, n int) ([]wireAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, h.opt.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	client := h.opt.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, &errRetry{err: fmt.Errorf("no answer within %v", h.opt.timeout())}
		}
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, &errRetry{err: err}
	}
	defer resp.Body.Close()
	limit := int64(n)*MaxLine + 2
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, &errRetry{err: fmt.Errorf("reading the answer: %v", err)}
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		return nil, &errRetry{err: fmt.Errorf("HTTP %s: %s", resp.Status, clip(data)), after: retryAfter(resp.Header.Get("Retry-After"))}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s: %s", resp.Status, clip(data))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("an answer longer than %d bytes for %d queries", limit, n)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, fmt.Errorf("the answer is not a JSON array: %v: %s", err, clip(data))
	}
	if len(items) != n {
		return nil, fmt.Errorf("an array of %d answers to %d requests", len(items), n)
	}
	out := make([]wireAnswer, n)
	for i, it := range items {
		if len(it) > MaxLine {
			msg := fmt.Sprintf("an answer longer than %d bytes", MaxLine)
			if id, ok := sniffID(it); ok {
				msg = fmt.Sprintf("query id %d: %s", id, msg)
			}
			return nil, errors.New(msg)
		}
		if out[i], err = parseAnswer(it); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
