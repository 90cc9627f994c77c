package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"headlab/numerics/recovery"
	"headlab/numerics/recovery/remote"
)

// benchLayers are torch layers the learner resolves in paper mode, with
// the -spread they need (see README.md).
var benchLayers = []struct {
	h, d, seed int
	spread     float64
}{{2, 4, 1, 0}, {3, 6, 2, 5}, {4, 8, 2, 6}}

// timedBox measures the time spent inside a BlackBox.
type timedBox struct {
	recovery.BlackBox
	in time.Duration
}

func (t *timedBox) Answer(ctx context.Context, b []recovery.Request) ([]recovery.Answer, error) {
	start := time.Now()
	a, err := t.BlackBox.Answer(ctx, b)
	t.in += time.Since(start)
	return a, err
}

// oneByOne sends a batch one query at a time: the run without batching.
type oneByOne struct{ recovery.BlackBox }

func (o oneByOne) Answer(ctx context.Context, b []recovery.Request) ([]recovery.Answer, error) {
	out := make([]recovery.Answer, 0, len(b))
	for i := range b {
		a, err := o.BlackBox.Answer(ctx, b[i:i+1])
		if err != nil {
			return nil, err
		}
		out = append(out, a...)
	}
	return out, nil
}

type oracleStats struct {
	Answers int     `json:"answers"`
	Seconds float64 `json:"seconds"`
}

// BenchmarkRecover recovers torch layers in paper mode through the
// in-process oracle (their canonical heads), the example oracle over a
// pipe and over HTTP on loopback, with the schedule's batch and one query
// at a time. It reports queries a second and where a run's time goes:
// maths (outside the oracle), oracle (torch answering, as the oracle
// measures itself) and transport (the rest of the time inside the
// BlackBox: encoding, the pipe or HTTP, parsing, Python's JSON). HTTP
// sends one POST at a time here, so that the oracle's own time is not
// summed over threads contending for Python's lock.
func BenchmarkRecover(b *testing.B) {
	needTorch(b)
	for _, l := range benchLayers {
		args := []string{"torch_oracle.py", "--heads", fmt.Sprint(l.h), "--width", fmt.Sprint(l.d), "--seed", fmt.Sprint(l.seed)}
		tl := torchLayer{h: l.h, d: l.d, seed: l.seed}
		truth, err := readLayer(tl.truth(b))
		if err != nil {
			b.Fatal(err)
		}
		layer, _ := truth.layer()
		opt := recovery.DefaultOptions(l.h, l.d)
		opt.Spread = l.spread
		size := fmt.Sprintf("H%dd%d", l.h, l.d)
		for _, batched := range []bool{true, false} {
			tag := "batch"
			if !batched {
				tag = "single"
			}
			wrap := func(box recovery.BlackBox) *timedBox {
				if !batched {
					box = oneByOne{box}
				}
				return &timedBox{BlackBox: box}
			}
			b.Run("inproc/"+size+"/"+tag, func(b *testing.B) {
				benchRuns(b, opt, wrap(recovery.Layer(layer)), func() oracleStats { return oracleStats{} })
			})
			b.Run("pipe/"+size+"/"+tag, func(b *testing.B) {
				stats := filepath.Join(b.TempDir(), "stats")
				p, err := remote.StartProc(append([]string{python}, append(args, "--stats", stats)...), remote.ProcOptions{Stderr: io.Discard})
				if err != nil {
					b.Fatal(err)
				}
				// Wait for torch to load: one query before the clock starts.
				warm, _ := recovery.PlannedBatch(opt)
				if _, err := p.Answer(context.Background(), warm[:1]); err != nil {
					b.Fatal(err)
				}
				var final oracleStats
				benchRuns(b, opt, wrap(p), func() oracleStats {
					if err := p.Close(); err != nil {
						b.Fatal(err)
					}
					data, err := os.ReadFile(stats)
					if err != nil {
						b.Fatal(err)
					}
					json.Unmarshal(data, &final)
					final.Seconds *= float64(final.Answers-1) / float64(final.Answers) // less the warm-up
					return final
				})
			})
			b.Run("http/"+size+"/"+tag, func(b *testing.B) {
				url := serveHTTP(b, args[1:]...)
				get := func() oracleStats {
					var s oracleStats
					resp, err := http.Get(url)
					if err != nil {
						b.Fatal(err)
					}
					defer resp.Body.Close()
					json.NewDecoder(resp.Body).Decode(&s)
					return s
				}
				before := get()
				benchRuns(b, opt, wrap(remote.NewHTTP(url, remote.HTTPOptions{InFlight: 1})), func() oracleStats {
					s := get()
					return oracleStats{Answers: s.Answers - before.Answers, Seconds: s.Seconds - before.Seconds}
				})
			})
		}
	}
}

// benchRuns makes b.N runs through box and reports the metrics; oracle
// returns what the oracle measured over them.
func benchRuns(b *testing.B, opt recovery.Options, box *timedBox, oracle func() oracleStats) {
	queries := 0
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		res, err := recovery.Recover(context.Background(), box, opt)
		if err != nil {
			b.Fatal(err)
		}
		queries += res.Queries
	}
	wall := time.Since(start)
	b.StopTimer()
	s := oracle()
	n := float64(b.N)
	b.ReportMetric(float64(queries)/wall.Seconds(), "queries/s")
	b.ReportMetric((wall-box.in).Seconds()*1e3/n, "maths-ms/run")
	b.ReportMetric(s.Seconds*1e3/n, "oracle-ms/run")
	b.ReportMetric((box.in.Seconds()-s.Seconds)*1e3/n, "transport-ms/run")
	b.ReportMetric(0, "ns/op")
}
