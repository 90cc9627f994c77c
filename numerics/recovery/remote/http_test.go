package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"headlab/numerics/recovery"
)

// fakeServer serves fakeLayer over HTTP; fail, when set, may replace a
// response (status and body) for the n-th POST (0-based).
type fakeServer struct {
	posts, inFlight, maxInFlight, maxChunk atomic.Int64
	fail                                   func(n int64, w http.ResponseWriter) bool
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.posts.Add(1) - 1
	cur := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxInFlight.Load()
		if cur <= m || f.maxInFlight.CompareAndSwap(m, cur) {
			break
		}
	}
	if f.fail != nil && f.fail(n, w) {
		return
	}
	var reqs []fakeRequest
	if err := json.NewDecoder(bufio.NewReader(r.Body)).Decode(&reqs); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for {
		m := f.maxChunk.Load()
		if int64(len(reqs)) <= m || f.maxChunk.CompareAndSwap(m, int64(len(reqs))) {
			break
		}
	}
	time.Sleep(5 * time.Millisecond) // let the posts overlap
	l := fakeLayer()
	var out []string
	for i := len(reqs) - 1; i >= 0; i-- { // in any order
		out = append(out, answerFake(l, 128, reqs[i]))
	}
	fmt.Fprintf(w, "[%s]", strings.Join(out, ","))
}

// TestHTTPSameBits: a layer behind HTTP, in chunks with a limit in
// flight, is recovered bit for bit as in process.
func TestHTTPSameBits(t *testing.T) {
	skipNet(t)
	for _, prec := range []uint{0, 128} {
		f := &fakeServer{}
		srv := httptest.NewServer(f)
		defer srv.Close()
		opt := fakeOptions(recovery.Paper, prec)
		want, err := recovery.Recover(context.Background(), recovery.Layer(fakeLayer()), opt)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		seen := 0
		h := NewHTTP(srv.URL, HTTPOptions{Chunk: 10, InFlight: 3, Received: func(recovery.Request, recovery.Answer, string) {
			mu.Lock()
			seen++
			mu.Unlock()
		}})
		got, err := recovery.Recover(context.Background(), h, opt)
		if err != nil {
			t.Fatal(err)
		}
		sameResult(t, fmt.Sprintf("HTTP at %d bits", prec), got, want)
		if f.maxChunk.Load() > 10 || f.maxInFlight.Load() > 3 || f.maxInFlight.Load() < 2 {
			t.Errorf("largest chunk %d (limit 10), most in flight %d (limit 3, more than one expected)", f.maxChunk.Load(), f.maxInFlight.Load())
		}
		if seen != got.Queries {
			t.Errorf("Received saw %d answers of %d", seen, got.Queries)
		}
	}
}

// TestHTTPBad: a 500 storm exhausts the retries, 429 with Retry-After is
// waited out, a wrong array length and a client error fail at once.
func TestHTTPBad(t *testing.T) {
	skipNet(t)
	batch, _ := recovery.PlannedBatch(fakeOptions(recovery.Paper, 0))
	opt := HTTPOptions{Chunk: 1000, Attempts: 3, Backoff: time.Millisecond}
	for _, tc := range []struct {
		name  string
		fail  func(n int64, w http.ResponseWriter) bool
		want  []string // empty: success
		posts int64
	}{
		{"storm", func(n int64, w http.ResponseWriter) bool {
			http.Error(w, "overloaded", http.StatusInternalServerError)
			return true
		}, []string{"queries id 0…68", "500 Internal Server Error", "overloaded", "gave up after 3 attempts"}, 3},
		{"429", func(n int64, w http.ResponseWriter) bool {
			if n == 0 {
				w.Header().Set("Retry-After", "1")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return true
			}
			return false
		}, nil, 2},
		{"length", func(n int64, w http.ResponseWriter) bool {
			fmt.Fprint(w, `[{"id": 0, "y": 1}]`)
			return true
		}, []string{"queries id 0…68", "an array of 1 answers to 69 requests"}, 1},
		{"client", func(n int64, w http.ResponseWriter) bool {
			http.Error(w, "no such model", http.StatusNotFound)
			return true
		}, []string{"404 Not Found", "no such model"}, 1},
		{"nan", func(n int64, w http.ResponseWriter) bool {
			fmt.Fprint(w, `[{"id": 0, "y": NaN}]`)
			return true
		}, []string{"NaN"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeServer{fail: tc.fail}
			srv := httptest.NewServer(f)
			defer srv.Close()
			start := time.Now()
			_, err := NewHTTP(srv.URL, opt).Answer(context.Background(), batch)
			if tc.want == nil && err != nil {
				t.Fatal(err)
			}
			if tc.want == nil && time.Since(start) < time.Second {
				t.Errorf("Retry-After: 1 not waited for (%v)", time.Since(start))
			}
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v lacks %q", err, w)
				}
			}
			if f.posts.Load() != tc.posts {
				t.Errorf("%d posts, want %d", f.posts.Load(), tc.posts)
			}
		})
	}
}

// TestHTTPTimeout: a server that never answers is retried after each
// timeout, then given up on; a cancelled context stops at once.
func TestHTTPTimeout(t *testing.T) {
	skipNet(t)
	block := make(chan struct{})
	f := &fakeServer{fail: func(n int64, w http.ResponseWriter) bool { <-block; return true }}
	srv := httptest.NewServer(f)
	defer srv.Close()
	defer close(block)
	batch, _ := recovery.PlannedBatch(fakeOptions(recovery.Paper, 0))
	_, err := NewHTTP(srv.URL, HTTPOptions{Timeout: 100 * time.Millisecond, Attempts: 2, Backoff: time.Millisecond}).Answer(context.Background(), batch)
	if err == nil || !strings.Contains(err.Error(), "no answer within 100ms") || !strings.Contains(err.Error(), "gave up after 2") {
		t.Fatalf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err = NewHTTP(srv.URL, HTTPOptions{}).Answer(ctx, batch)
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("cancel: %v", err)
	}
}
