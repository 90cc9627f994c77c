package scene

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
	"headlab/web/link"
)

// recoveryLab keeps the Recovery scene's runs and noise sweeps. A new scene
// is computed from the link on every step, so a run (seconds in the
// browser at H = 3, d = 8) must outlive the scene, and so must a run still
// being computed a slice per frame: a scene for another step of the same
// run (the user stepping while it computes) carries on with it. Each entry
// is a pure function of its key, so the cache changes no number the page
// shows.
type recoveryLab struct {
	mu      sync.Mutex
	runs    map[string]learnRun
	order   []string // keys of runs, oldest first
	pending map[string]*pendingRun
	porder  []string // keys of pending runs, oldest first
	sweeps  map[string]*sweep
	slice   time.Duration // how long the Job computes a run per slice
}

// learnRun is one finished run of recovery.Learn.
type learnRun struct {
	res recovery.Result
	err error
	dur time.Duration // how long Learn took here, in all its slices (a measurement)
}

// pendingRun is a run of Learn being computed a slice at a time.
type pendingRun struct {
	run *recovery.Run
	dur time.Duration // time spent in its slices so far
}

// maxRuns bounds the runs kept; the oldest go first. maxPending bounds the
// unfinished runs kept (left behind when the state changed while they were
// computed); the oldest is stopped.
const (
	maxRuns    = 12
	maxPending = 2
)

// runSlice is how long one slice of a run computes: the canvas steps a job
// for a few milliseconds per frame, so a slice must be shorter.
const runSlice = 2 * time.Millisecond

func newRecoveryLab() *recoveryLab {
	return &recoveryLab{runs: map[string]learnRun{}, pending: map[string]*pendingRun{}, sweeps: map[string]*sweep{}, slice: runSlice}
}

// learnKey is what a run depends on: the true layer's inputs and the
// learner's options.
func learnKey(s link.State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "H=%d d=%d seed=%d src=%s dup=%d cancel=%v H0=%d mode=%s noise=%s",
		s.H, s.D, s.Seed, s.Src, s.Dup, s.Cancel, s.H0, s.Mode, strconv.FormatFloat(s.Noise, 'g', -1, 64))
	if s.Src == "attention" {
		for _, x := range s.W {
			b.WriteString(",")
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
		for _, x := range s.Val {
			b.WriteString(";")
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	}
	return b.String()
}

func (l *recoveryLab) run(key string) (learnRun, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.runs[key]
	return r, ok
}

// learn returns the run of the key, computing it now (or what is left of
// it) when it is not cached.
func (l *recoveryLab) learn(key string, layer attention.Layer, opt recovery.Options, s link.State) learnRun {
	for {
		if r, done := l.step(key, layer, opt, s, time.Hour); done {
			return r
		}
	}
}

// step computes one slice of about budget of the run of the key, starting
// it when it is neither cached nor pending, and returns the run once it is
// finished (at once when it is cached). The oracle's noise is drawn from
// the state's seed, as plots does.
func (l *recoveryLab) step(key string, layer attention.Layer, opt recovery.Options, s link.State, budget time.Duration) (learnRun, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.runs[key]; ok {
		return r, true
	}
	p, ok := l.pending[key]
	if !ok {
		p = &pendingRun{run: recovery.Start(recovery.LayerOracle(layer, s.Noise, s.Seed), opt)}
		l.pending[key] = p
		l.porder = append(l.porder, key)
		for len(l.porder) > maxPending {
			l.pending[l.porder[0]].run.Stop()
			delete(l.pending, l.porder[0])
			l.porder = l.porder[1:]
		}
	}
	start := time.Now()
	done := p.run.Step(budget)
	p.dur += time.Since(start)
	if !done {
		return learnRun{}, false
	}
	delete(l.pending, key)
	l.porder = slices.DeleteFunc(l.porder, func(k string) bool { return k == key })
	res, err := p.run.Result()
	r := learnRun{res: res, err: err, dur: p.dur}
	l.order = append(l.order, key)
	l.runs[key] = r
	for len(l.order) > maxRuns {
		delete(l.runs, l.order[0])
		l.order = l.order[1:]
	}
	return r, true
}

// progress reports how far the pending run of the key has got, and false
// when none is pending.
func (l *recoveryLab) progress(key string) (recovery.Progress, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p, ok := l.pending[key]; ok {
		return p.run.Progress(), true
	}
	return recovery.Progress{}, false
}

// ---- the noise sweep ----

// SweepNoise lists the oracle accuracies ε of the noise sweep.
var sweepNoise = []float64{1e-14, 1e-12, 1e-10, 1e-8, 1e-6, 1e-4}

// Sizes of the noise sweep.
const (
	// SweepSeeds is the number of seeds run at each ε.
	SweepSeeds = 6
	// SweepHeadSeeds is the number of seeds run at each H of the scan for
	// the largest H float64 recovers at ε = 1e-6.
	SweepHeadSeeds = 3
	// SweepCostLimit bounds H²·(4Hd²−2H+1), a proxy for the time of one
	// run: the sweep makes each of its runs whole in one frame slice
	// (unlike the scene's own run, which recovery.Run splits across
	// frames), so a sweep of larger runs would freeze frames. Beyond it the
	// page refuses the sweep and names the limit; the figures command has
	// no such limit.
	SweepCostLimit = 300
	// RecoveredError is the largest relative error that counts as recovered
	// in the scan over H.
	RecoveredError = 1e-4
)

// SweepCost is the cost proxy of one run of H heads (or H0) at width d.
func SweepCost(H, d int) int { return H * H * recovery.PaperQueries(H, d) }

// sweep is one noise sweep: errors per ε and seed, then the scan over H at
// ε = 1e-6.
type sweep struct {
	s       link.State
	errs    [][]float64 // [ε][seed], NaN for a failed run
	next    int         // runs done in the ε part
	hs      []int       // the H tried in the scan
	hOK     []int       // recovered seeds per H tried
	hNext   int         // runs done at the current H
	hDone   bool
	refused string
	largest int           // the largest H recovered at 1e-6 (0: none)
	slowest time.Duration // the longest single run (a measurement)
	limitH  int           // the scan stopped at this H for cost (0: it did not)
}

func sweepKey(s link.State) string {
	return learnKey(s) + " view=sweep"
}

// sweepFor returns the sweep of s, creating it.
func (l *recoveryLab) sweepFor(s link.State) *sweep {
	key := sweepKey(s)
	if sw, ok := l.sweeps[key]; ok {
		return sw
	}
	if len(l.sweeps) >= maxRuns {
		l.sweeps = map[string]*sweep{}
	}
	sw := &sweep{s: s}
	sw.errs = make([][]float64, len(sweepNoise))
	H := max(s.H, s.H0)
	if c := SweepCost(H, s.D); c > SweepCostLimit {
		sw.refused = fmt.Sprintf("The page runs the noise sweep for H²·(4Hd²−2H+1) ≤ %d (here %d, H = %d, d = %d): each of its runs is made whole between two frames. Lower H or d, or make the figure with the figures command.",
			SweepCostLimit, c, H, s.D)
		sw.hDone = true
	}
	l.sweeps[key] = sw
	return sw
}

func (sw *sweep) done() bool {
	return sw.refused != "" || (sw.next >= len(sweepNoise)*SweepSeeds && sw.hDone)
}

// runError runs recovery of t's true layer with t's options at noise eps
// and returns the largest relative error against the canonical layer, NaN
// when the run fails.
func runError(t link.State, eps float64) float64 {
	t.Noise = eps
	layer, err := trueLayer(t)
	if err != nil {
		return math.NaN()
	}
	opt := t.LearnOptions(layer)
	res, err := recovery.Learn(recovery.LayerOracle(layer, eps, t.Seed), opt)
	if err != nil {
		return math.NaN()
	}
	e, err := attention.RelativeError(res.Layer, attention.Canonical(layer, CanonicalTol))
	if err != nil || !finite(e) {
		return math.NaN()
	}
	return e
}

// step does one run of the sweep.
func (sw *sweep) step() {
	if sw.done() {
		return
	}
	start := time.Now()
	defer func() { sw.slowest = max(sw.slowest, time.Since(start)) }()
	if total := len(sweepNoise) * SweepSeeds; sw.next < total {
		i, k := sw.next/SweepSeeds, sw.next%SweepSeeds
		t := sw.s
		t.Seed = (sw.s.Seed + uint64(k)) % (link.MaxSeed + 1)
		sw.errs[i] = append(sw.errs[i], runError(t, sweepNoise[i]))
		sw.next++
		return
	}
	// The scan over H at ε = 1e-6 with random layers of the current d.
	if len(sw.hs) == 0 || sw.hNext >= SweepHeadSeeds {
		H := 1
		if len(sw.hs) > 0 {
			H = sw.hs[len(sw.hs)-1] + 1
			last := sw.hOK[len(sw.hOK)-1]
			if 2*last > SweepHeadSeeds {
				sw.largest = sw.hs[len(sw.hs)-1]
			}
			// Stop after two H in a row that most seeds fail.
			if n := len(sw.hs); n >= 2 && 2*sw.hOK[n-1] <= SweepHeadSeeds && 2*sw.hOK[n-2] <= SweepHeadSeeds {
				sw.hDone = true
				return
			}
		}
		if H > link.MaxHeads {
			sw.hDone = true
			return
		}
		if SweepCost(H, sw.s.D) > SweepCostLimit {
			sw.limitH, sw.hDone = H, true
			return
		}
		sw.hs, sw.hOK, sw.hNext = append(sw.hs, H), append(sw.hOK, 0), 0
	}
	H := sw.hs[len(sw.hs)-1]
	t := sw.s
	t.H, t.H0, t.Src, t.Dup, t.Cancel, t.Mode = H, 0, "random", 0, false, sw.s.Mode
	t.Seed = (sw.s.Seed + uint64(sw.hNext)) % (link.MaxSeed + 1)
	if e := runError(t, 1e-6); e <= RecoveredError {
		sw.hOK[len(sw.hOK)-1]++
	}
	sw.hNext++
}

func (sw *sweep) progress() float64 {
	if sw.done() {
		return 1
	}
	total := float64(len(sweepNoise) * SweepSeeds)
	p := float64(sw.next) / total
	if sw.next < int(total) {
		return 0.85 * p
	}
	return 0.85 + 0.15*math.Min(1, float64(len(sw.hs))/float64(link.MaxHeads))
}

// SweepPoint is the sweep at one ε: the error of every seed run so far
// (NaN: the run failed) and their median over the runs that succeeded.
type SweepPoint struct {
	Eps    float64
	Errors []float64
	Median float64
	Failed int
}

// SweepState is a snapshot of the scene's noise sweep.
type SweepState struct {
	Points   []SweepPoint
	Done     bool
	Progress float64
	Refused  string
	// Largest is the largest H recovered at ε = 1e-6 by most seeds (0 for
	// none yet); Tried the H run so far; LimitH the H the scan stopped at
	// for the cost limit (0 when it did not).
	Largest, LimitH int
	Tried           []int
	HeadsDone       bool
}

// Sweep returns a snapshot of the scene's noise sweep (started by the
// scene's Job in the sweep view).
func (r *Recovery) Sweep() SweepState {
	l := r.lab
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sweepFor(r.State).snapshot()
}

func (sw *sweep) snapshot() SweepState {
	st := SweepState{Done: sw.done(), Progress: sw.progress(), Refused: sw.refused,
		Largest: sw.largest, LimitH: sw.limitH, Tried: slices.Clone(sw.hs), HeadsDone: sw.hDone}
	for i, eps := range sweepNoise {
		p := SweepPoint{Eps: eps, Errors: slices.Clone(sw.errs[i]), Median: math.NaN()}
		var ok []float64
		for _, e := range p.Errors {
			if finite(e) {
				ok = append(ok, e)
			} else {
				p.Failed++
			}
		}
		if len(ok) > 0 {
			sort.Float64s(ok)
			p.Median = ok[len(ok)/2]
			if len(ok)%2 == 0 {
				p.Median = math.Sqrt(ok[len(ok)/2-1] * ok[len(ok)/2])
			}
		}
		st.Points = append(st.Points, p)
	}
	return st
}

func (l *recoveryLab) sweepFacts(s link.State) map[string]any {
	l.mu.Lock()
	sw := l.sweepFor(s)
	st, slowest := sw.snapshot(), sw.slowest
	l.mu.Unlock()
	var eps, med []any
	var errs [][]any
	for _, p := range st.Points {
		eps = append(eps, p.Eps)
		med = append(med, finiteOrNil1(p.Median))
		errs = append(errs, finiteOrNil(p.Errors))
	}
	f := map[string]any{"eps": eps, "median": med, "errors": errs, "done": st.Done, "progress": st.Progress,
		"slowestMs": float64(slowest.Microseconds()) / 1000, "largestH": st.Largest, "triedH": st.Tried, "headsDone": st.HeadsDone, "limitH": st.LimitH}
	if st.Refused != "" {
		f["refused"] = st.Refused
	}
	return f
}

// ---- the job ----

// recoveryJob computes the scene's run a slice of runSlice at a time (after
// a first slice that does nothing, so that a frame saying "computing" is
// drawn), then, in the sweep view, the noise sweep one run per slice.
type recoveryJob struct {
	r       *Recovery
	started bool
	sw      *sweep
}

// Job returns the scene's long computation, or nil when there is none
// left: the run of Learn when it is not cached, and in the sweep view the
// noise sweep.
func (r *Recovery) Job() Job {
	var sw *sweep
	if r.State.View == "sweep" {
		r.lab.mu.Lock()
		sw = r.lab.sweepFor(r.State)
		if sw.done() {
			sw = nil
		}
		r.lab.mu.Unlock()
	}
	if r.Result != nil && sw == nil {
		return nil
	}
	return &recoveryJob{r: r, sw: sw}
}

// Step does one slice of the job.
func (j *recoveryJob) Step() bool {
	if j.r.Result == nil {
		if !j.started {
			j.started = true
			return false
		}
		run, done := j.r.lab.step(j.r.key, j.r.True, j.r.Options, j.r.State, j.r.lab.slice)
		if !done {
			return false
		}
		j.r.finish(run)
		return j.sw == nil
	}
	if j.sw == nil {
		return true
	}
	l := j.r.lab
	l.mu.Lock()
	defer l.mu.Unlock()
	j.sw.step()
	return j.sw.done()
}

// Progress is the fraction done: of the run while it is computed, then of
// the sweep (which reports 0 until the run is done, so that its progress
// only grows).
func (j *recoveryJob) Progress() float64 {
	if j.sw == nil {
		if j.r.Result == nil {
			return j.r.RunProgress().Fraction
		}
		return 1
	}
	if j.r.Result == nil {
		return 0
	}
	l := j.r.lab
	l.mu.Lock()
	defer l.mu.Unlock()
	return j.sw.progress()
}
