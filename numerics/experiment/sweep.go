package experiment

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"headlab/numerics/recovery"
)

// The noise sweep: recovery of the set-up's true layer at every ε of
// SweepNoise, SweepSeeds seeds each, in the set-up's mode; then the scan
// over H at ε = SweepHeadNoise with random layers of the set-up's width.
// The page and the figures run this one definition.

// SweepNoise lists the oracle accuracies ε of the noise sweep.
var SweepNoise = []float64{1e-14, 1e-12, 1e-10, 1e-8, 1e-6, 1e-4}

const (
	// SweepSeeds is the number of seeds run at each ε: the set-up's seed
	// and the ones after it.
	SweepSeeds = 6
	// SweepHeadNoise is the ε of the scan over H.
	SweepHeadNoise = 1e-6
	// SweepHeadSeeds is the number of seeds run at each H of the scan.
	SweepHeadSeeds = 3
	// SweepMaxHeads is the largest H the scan tries (the link's MaxHeads).
	SweepMaxHeads = 8
	// SweepCostLimit bounds SweepCost(H, d) for the runs of the sweep:
	// SweepSeeds·len(SweepNoise) runs at the set-up's size (H, or H0),
	// then SweepHeadSeeds runs at each H of the scan. It keeps a sweep to
	// about a minute in the page (measured in headless Chromium, software
	// rendering, two cores: H = 4, d = 4, cost 3984, took 68 s computed a
	// slice per frame on the canvas's thread, and takes far less in the
	// compute worker). A set-up beyond it is refused, naming the limit; the
	// scan over H stops at the first H beyond it.
	SweepCostLimit = 4000
	// RecoveredError is the largest relative error that counts as
	// recovered in the scan over H.
	RecoveredError = 1e-4
)

// seedSpan is the number of seeds, 0…2^53−1 (the link's range), within
// which the sweep's seeds wrap.
const seedSpan = 1 << 53

// SweepCost is the cost proxy of one run of H heads (or H0) at width d,
// H²·(4Hd²−2H+1), about proportional to its time.
func SweepCost(H, d int) int { return H * H * recovery.PaperQueries(H, d) }

// SweepPoint is the sweep at one ε (or, in the scan, one H): the error of
// every seed run so far, NaN for an unresolved run (Learn's error, or a
// different number of heads), the median of the resolved ones and the
// count of unresolved ones.
type SweepPoint struct {
	X          float64
	Errors     []float64
	Median     float64
	Unresolved int
}

// SweepState is a noise sweep, finished or as far as it has got.
type SweepState struct {
	// Points are the ε part, one per SweepNoise; Heads the scan over H,
	// one per H tried (X = H).
	Points, Heads []SweepPoint
	Done          bool
	Progress      float64
	// Refused says why the sweep was not run (the cost limit), "" if it was.
	Refused string
	// Doing says which run is being computed ("" once done or refused):
	// "run 7 of 36, ε = 1e−12", or where the scan over H has got.
	Doing string
	// Largest is the largest H recovered at SweepHeadNoise by most seeds
	// (0 for none yet); LimitH the H the scan stopped at for the cost limit
	// (0 when it did not); HeadsDone whether the scan is over.
	Largest, LimitH int
	HeadsDone       bool
	// Slowest is the longest single run (a measurement).
	Slowest time.Duration
}

// Tried returns the H the scan has run so far.
func (st SweepState) Tried() []int {
	var hs []int
	for _, p := range st.Heads {
		hs = append(hs, int(p.X))
	}
	return hs
}

// sweep plans the runs of a noise sweep one after the other (plan,
// record), so that the order, the seeds and the numbers do not depend on
// how each run is computed.
type sweep struct {
	r       Recovery
	errs    [][]float64 // [ε][seed], NaN for an unresolved run
	next    int         // runs done in the ε part
	hs      []int       // the H tried in the scan
	hErrs   [][]float64 // [H tried][seed]
	hDone   bool
	refused string
	largest int
	limitH  int
	slowest time.Duration
}

func newSweep(r Recovery) *sweep {
	sw := &sweep{r: r, errs: make([][]float64, len(SweepNoise))}
	H := r.Heads()
	if c := SweepCost(H, r.D); c > SweepCostLimit {
		sw.refused = fmt.Sprintf("The page runs the noise sweep for H²·(4Hd²−2H+1) ≤ %d (here %d, H = %d, d = %d), so that its %d runs and the scan over H take about a minute at most. Lower H or d.",
			SweepCostLimit, c, H, r.D, SweepSeeds*len(SweepNoise))
		sw.hDone = true
	}
	return sw
}

func (sw *sweep) done() bool {
	return sw.refused != "" || (sw.next >= len(SweepNoise)*SweepSeeds && sw.hDone)
}

func seedAt(base uint64, k int) uint64 { return (base + uint64(k)) % seedSpan }

func recovered(n []float64) int {
	ok := 0
	for _, e := range n {
		if e <= RecoveredError {
			ok++
		}
	}
	return ok
}

// plan returns the set-up of the sweep's next run, and false when none is
// left. It settles the scan over H as it goes. Until record is called it
// returns the same run again.
func (sw *sweep) plan() (Recovery, bool) {
	if sw.done() {
		return Recovery{}, false
	}
	if total := len(SweepNoise) * SweepSeeds; sw.next < total {
		i, k := sw.next/SweepSeeds, sw.next%SweepSeeds
		t := sw.r
		t.Seed, t.Noise = seedAt(sw.r.Seed, k), SweepNoise[i]
		return t, true
	}
	n := len(sw.hs)
	if n == 0 || len(sw.hErrs[n-1]) >= SweepHeadSeeds {
		H := 1
		if n > 0 {
			H = sw.hs[n-1] + 1
			if 2*recovered(sw.hErrs[n-1]) > SweepHeadSeeds {
				sw.largest = sw.hs[n-1]
			}
			// Stop after two H in a row that most seeds fail.
			if n >= 2 && 2*recovered(sw.hErrs[n-1]) <= SweepHeadSeeds && 2*recovered(sw.hErrs[n-2]) <= SweepHeadSeeds {
				sw.hDone = true
				return Recovery{}, false
			}
		}
		if H > SweepMaxHeads {
			sw.hDone = true
			return Recovery{}, false
		}
		if SweepCost(H, sw.r.D) > SweepCostLimit {
			sw.limitH, sw.hDone = H, true
			return Recovery{}, false
		}
		sw.hs, sw.hErrs = append(sw.hs, H), append(sw.hErrs, nil)
	}
	n = len(sw.hs)
	t := Recovery{H: sw.hs[n-1], D: sw.r.D, Mode: sw.r.Mode, Noise: SweepHeadNoise,
		Seed: seedAt(sw.r.Seed, len(sw.hErrs[n-1]))}
	return t, true
}

// record stores the error e (NaN: unresolved) of the run plan returned.
func (sw *sweep) record(e float64, dur time.Duration) {
	sw.slowest = max(sw.slowest, dur)
	if total := len(SweepNoise) * SweepSeeds; sw.next < total {
		i := sw.next / SweepSeeds
		sw.errs[i] = append(sw.errs[i], e)
		sw.next++
		return
	}
	n := len(sw.hs)
	sw.hErrs[n-1] = append(sw.hErrs[n-1], e)
}

// progress is the share of the sweep done, cur the share of the run under
// way: the ε part counts for 85%, then the scan over H for the rest, as
// H = 1…SweepMaxHeads (it may stop sooner).
func (sw *sweep) progress(cur float64) float64 {
	if sw.done() {
		return 1
	}
	total := len(SweepNoise) * SweepSeeds
	if sw.next < total {
		return 0.85 * (float64(sw.next) + cur) / float64(total)
	}
	n := len(sw.hs)
	if n == 0 {
		return 0.85
	}
	h := float64(n-1) + (float64(len(sw.hErrs[n-1]))+cur)/SweepHeadSeeds
	return 0.85 + float64(0.15*math.Min(1, h/SweepMaxHeads))
}

// doing says which run the sweep is computing ("" when none).
func (sw *sweep) doing() string {
	if sw.done() {
		return ""
	}
	if total := len(SweepNoise) * SweepSeeds; sw.next < total {
		return fmt.Sprintf("run %d of %d, ε = %s", sw.next+1, total, PowerText(SweepNoise[sw.next/SweepSeeds]))
	}
	n := len(sw.hs)
	if n == 0 || len(sw.hErrs[n-1]) >= SweepHeadSeeds {
		return "the scan over H at ε = " + PowerText(SweepHeadNoise)
	}
	return fmt.Sprintf("the scan over H at ε = %s: H = %d, run %d of %d", PowerText(SweepHeadNoise), sw.hs[n-1], len(sw.hErrs[n-1])+1, SweepHeadSeeds)
}

// PowerText writes a power of ten as the page does: 1e−8.
func PowerText(x float64) string {
	return strings.Replace(fmt.Sprintf("1e%d", int(math.Round(math.Log10(x)))), "-", "−", 1)
}

func point(x float64, errs []float64) SweepPoint {
	p := SweepPoint{X: x, Errors: slices.Clone(errs), Median: nan}
	var ok []float64
	for _, e := range p.Errors {
		if finite(e) {
			ok = append(ok, e)
		} else {
			p.Unresolved++
		}
	}
	if len(ok) > 0 {
		sort.Float64s(ok)
		p.Median = ok[len(ok)/2]
		if len(ok)%2 == 0 {
			p.Median = math.Sqrt(ok[len(ok)/2-1] * ok[len(ok)/2])
		}
	}
	return p
}

func (sw *sweep) snapshot(cur float64) SweepState {
	st := SweepState{Done: sw.done(), Progress: sw.progress(cur), Refused: sw.refused, Doing: sw.doing(),
		Largest: sw.largest, LimitH: sw.limitH, HeadsDone: sw.hDone, Slowest: sw.slowest}
	for i, eps := range SweepNoise {
		st.Points = append(st.Points, point(eps, sw.errs[i]))
	}
	for i, H := range sw.hs {
		st.Heads = append(st.Heads, point(float64(H), sw.hErrs[i]))
	}
	return st
}

// EmptySweep is the sweep of r before any run: its points without errors,
// or its refusal.
func EmptySweep(r Recovery) SweepState { return newSweep(r).snapshot(0) }

// Sweep runs the noise sweep of r, each run a slice of pace.Slice at a
// time; between slices pace.Pause receives the sweep so far. It returns the
// finished sweep (refused, without runs, beyond SweepCostLimit), or
// ErrCancelled.
func Sweep(pace Pacer, r Recovery) (SweepState, error) {
	sw := newSweep(r)
	for {
		t, ok := sw.plan()
		if !ok {
			return sw.snapshot(0), nil
		}
		layer, err := trueModel(t)
		if err != nil {
			sw.record(nan, 0)
			continue
		}
		canon := layer.Canonical(CanonicalTol).Layer
		run, err := learnLayer(pace, t, layer, func(p recovery.Progress) Progress {
			st := sw.snapshot(p.Fraction)
			return Progress{Fraction: st.Progress, Sweep: &st}
		})
		if err != nil {
			return SweepState{}, err
		}
		sw.record(RunError(run, canon), run.Dur)
		if st := sw.snapshot(0); !pace.pause(Progress{Fraction: st.Progress, Sweep: &st}) {
			return SweepState{}, ErrCancelled
		}
	}
}
