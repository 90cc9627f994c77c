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
	live    []*sweep      // sweeps with a run under way, oldest first
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
	// SweepCostLimit bounds H²·(4Hd²−2H+1), a rough proxy for the time of
	// one run, for the runs of the sweep: SweepSeeds·len(sweepNoise) runs
	// at the state's size (H, or H0), then SweepHeadSeeds runs at each H
	// of the scan. Each run is made a slice at a time, like the scene's own
	// run, so no frame waits for a whole run and the page keeps drawing at
	// any size; the limit only keeps the sweep's total time to about a
	// minute in the browser. Measured in headless Chromium (software
	// rendering, two cores; BenchmarkRecoverySweep in web/e2e), a sweep
	// takes 4 s at H = 3, d = 2 (cost 387), 19 s at H = 3, d = 5 (2655),
	// 23 s at H = 2, d = 11 (3860) and 68 s at H = 4, d = 4 (3984); beyond
	// the limit, 61 s at H = 2, d = 15 (7188), 90 s at H = 4, d = 5 (6288)
	// and minutes at H = 4, d = 16 (29 s natively; the page is 8–12×
	// slower). Beyond it the page refuses the sweep (and the scan over H
	// stops) and names the limit; the figures command has no such limit.
	SweepCostLimit = 4000
	// RecoveredError is the largest relative error that counts as recovered
	// in the scan over H.
	RecoveredError = 1e-4
)

// SweepCost is the cost proxy of one run of H heads (or H0) at width d.
func SweepCost(H, d int) int { return H * H * recovery.PaperQueries(H, d) }

// sweep is one noise sweep: errors per ε and seed, then the scan over H at
// ε = 1e-6. Its runs are planned one after the other (plan, record), so
// that the order, the seeds and the numbers do not depend on how each run
// is computed; the job computes the run under way (cur) a slice at a time.
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
	slowest time.Duration // the longest single run, in all its slices (a measurement)
	limitH  int           // the scan stopped at this H for cost (0: it did not)
	cur     *sweepRun     // the run under way, nil between runs
}

// sweepRun is one run of the sweep under way: Learn's run a slice at a
// time and what its error is measured against.
type sweepRun struct {
	run   *recovery.Run   // nil when the true layer could not be made
	canon attention.Layer // the canonical form of the true layer
	dur   time.Duration   // time spent in its slices so far
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
		for _, sw := range l.live {
			sw.stop()
		}
		l.sweeps, l.live = map[string]*sweep{}, nil
	}
	sw := &sweep{s: s}
	sw.errs = make([][]float64, len(sweepNoise))
	H := max(s.H, s.H0)
	if c := SweepCost(H, s.D); c > SweepCostLimit {
		sw.refused = fmt.Sprintf("The page runs the noise sweep for H²·(4Hd²−2H+1) ≤ %d (here %d, H = %d, d = %d), so that its %d runs and the scan over H take about a minute at most. Lower H or d, or make the figure with the figures command.",
			SweepCostLimit, c, H, s.D, SweepSeeds*len(sweepNoise))
		sw.hDone = true
	}
	l.sweeps[key] = sw
	return sw
}

func (sw *sweep) done() bool {
	return sw.refused != "" || (sw.next >= len(sweepNoise)*SweepSeeds && sw.hDone)
}

// plan returns the state and the noise of the sweep's next run, and false
// when none is left. It settles the scan over H as it goes: the H scanned
// next, the largest H recovered, where the scan ends. Until record is
// called it returns the same run again.
func (sw *sweep) plan() (t link.State, eps float64, ok bool) {
	if sw.done() {
		return t, 0, false
	}
	if total := len(sweepNoise) * SweepSeeds; sw.next < total {
		i, k := sw.next/SweepSeeds, sw.next%SweepSeeds
		t = sw.s
		t.Seed = (sw.s.Seed + uint64(k)) % (link.MaxSeed + 1)
		return t, sweepNoise[i], true
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
				return t, 0, false
			}
		}
		if H > link.MaxHeads {
			sw.hDone = true
			return t, 0, false
		}
		if SweepCost(H, sw.s.D) > SweepCostLimit {
			sw.limitH, sw.hDone = H, true
			return t, 0, false
		}
		sw.hs, sw.hOK, sw.hNext = append(sw.hs, H), append(sw.hOK, 0), 0
	}
	t = sw.s
	t.H, t.H0, t.Src, t.Dup, t.Cancel, t.Mode = sw.hs[len(sw.hs)-1], 0, "random", 0, false, sw.s.Mode
	t.Seed = (sw.s.Seed + uint64(sw.hNext)) % (link.MaxSeed + 1)
	return t, 1e-6, true
}

// record stores the error e (NaN: the run failed) of the run plan returned.
func (sw *sweep) record(e float64) {
	if total := len(sweepNoise) * SweepSeeds; sw.next < total {
		i := sw.next / SweepSeeds
		sw.errs[i] = append(sw.errs[i], e)
		sw.next++
		return
	}
	if e <= RecoveredError {
		sw.hOK[len(sw.hOK)-1]++
	}
	sw.hNext++
}

// startSweepRun prepares the run of recovery of t's true layer with t's
// options at noise eps, the oracle's noise drawn from t's seed.
func startSweepRun(t link.State, eps float64) *sweepRun {
	t.Noise = eps
	r := &sweepRun{}
	layer, err := trueLayer(t)
	if err != nil {
		return r
	}
	r.canon = attention.Canonical(layer, CanonicalTol)
	r.run = recovery.Start(recovery.LayerOracle(layer, eps, t.Seed), t.LearnOptions(layer))
	return r
}

// step computes the run for about budget and reports whether it is done.
func (r *sweepRun) step(budget time.Duration) bool {
	return r.run == nil || r.run.Step(budget)
}

// error is the finished run's largest relative error against the
// canonical layer, NaN when the run failed.
func (r *sweepRun) error() float64 {
	if r.run == nil {
		return math.NaN()
	}
	res, err := r.run.Result()
	if err != nil {
		return math.NaN()
	}
	e, err := attention.RelativeError(res.Layer, r.canon)
	if err != nil || !finite(e) {
		return math.NaN()
	}
	return e
}

// fraction is the share of the run done.
func (r *sweepRun) fraction() float64 {
	if r == nil || r.run == nil {
		return 0
	}
	return r.run.Progress().Fraction
}

// stop abandons the sweep's run under way, if any; the sweep makes it
// again from its start when it carries on.
func (sw *sweep) stop() {
	if sw.cur != nil && sw.cur.run != nil {
		sw.cur.run.Stop()
	}
	sw.cur = nil
}

// stepSweep computes sw for about budget: it starts the sweep's next run
// when none is under way, computes a slice of it, and records it once it
// is done. At most maxPending sweeps hold a run under way (each holds a
// suspended learner); the oldest other one is stopped.
func (l *recoveryLab) stepSweep(sw *sweep, budget time.Duration) {
	start := time.Now()
	if sw.cur == nil {
		t, eps, ok := sw.plan()
		if !ok {
			return
		}
		sw.cur = startSweepRun(t, eps)
		l.live = append(l.live, sw)
		for len(l.live) > maxPending {
			l.live[0].stop()
			l.live = l.live[1:]
		}
	}
	done := sw.cur.step(budget)
	sw.cur.dur += time.Since(start)
	if !done {
		return
	}
	sw.slowest = max(sw.slowest, sw.cur.dur)
	sw.record(sw.cur.error())
	sw.cur = nil
	l.live = slices.DeleteFunc(l.live, func(o *sweep) bool { return o == sw })
}

// progress is the share of the sweep done: the ε part counts for 85%, a
// run for its share of work done, then the scan over H for the rest, as
// H = 1…MaxHeads (it may stop sooner).
func (sw *sweep) progress() float64 {
	if sw.done() {
		return 1
	}
	total := len(sweepNoise) * SweepSeeds
	if sw.next < total {
		return 0.85 * (float64(sw.next) + sw.cur.fraction()) / float64(total)
	}
	if len(sw.hs) == 0 {
		return 0.85
	}
	h := float64(len(sw.hs)-1) + (float64(sw.hNext)+sw.cur.fraction())/SweepHeadSeeds
	return 0.85 + 0.15*math.Min(1, h/float64(link.MaxHeads))
}

// doing says which run the sweep is computing ("" when none).
func (sw *sweep) doing() string {
	if sw.done() {
		return ""
	}
	if total := len(sweepNoise) * SweepSeeds; sw.next < total {
		return fmt.Sprintf("run %d of %d, ε = %s", sw.next+1, total, powerText(sweepNoise[sw.next/SweepSeeds]))
	}
	if len(sw.hs) == 0 || sw.hNext >= SweepHeadSeeds {
		return "the scan over H at ε = 1e−6"
	}
	return fmt.Sprintf("the scan over H at ε = 1e−6: H = %d, run %d of %d", sw.hs[len(sw.hs)-1], sw.hNext+1, SweepHeadSeeds)
}

// powerText writes a power of ten as the page does: 1e−8.
func powerText(x float64) string {
	return strings.Replace(fmt.Sprintf("1e%d", int(math.Round(math.Log10(x)))), "-", "−", 1)
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
	// Doing says which run is being computed ("" once done or refused):
	// "run 7 of 36, ε = 1e−12", or where the scan over H has got.
	Doing string
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
	st := SweepState{Done: sw.done(), Progress: sw.progress(), Refused: sw.refused, Doing: sw.doing(),
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
	if st.Doing != "" {
		f["doing"] = st.Doing
	}
	return f
}

// ---- the job ----

// recoveryJob computes the scene's run a slice of runSlice at a time (after
// a first slice that does nothing, so that a frame saying "computing" is
// drawn), then, in the sweep view, the noise sweep: each of its runs a
// slice of runSlice at a time too, so no frame waits for a whole run.
type recoveryJob struct {
	r       *Recovery
	started bool
	sweep   bool // the job computes the sweep once the run is done
}

// Job returns the scene's long computation, or nil when there is none
// left: the run of Learn when it is not cached, and in the sweep view the
// noise sweep.
func (r *Recovery) Job() Job {
	sweep := false
	if r.State.View == "sweep" {
		r.lab.mu.Lock()
		sweep = !r.lab.sweepFor(r.State).done()
		r.lab.mu.Unlock()
	}
	if r.Result != nil && !sweep {
		return nil
	}
	return &recoveryJob{r: r, sweep: sweep}
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
		return !j.sweep
	}
	if !j.sweep {
		return true
	}
	l := j.r.lab
	l.mu.Lock()
	defer l.mu.Unlock()
	sw := l.sweepFor(j.r.State) // the lab's, even if it was dropped and made again
	l.stepSweep(sw, l.slice)
	return sw.done()
}

// Progress is the fraction done: of the run while it is computed, then of
// the sweep (which reports 0 until the run is done, so that its progress
// only grows).
func (j *recoveryJob) Progress() float64 {
	if !j.sweep {
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
	return l.sweepFor(j.r.State).progress()
}
