package scene

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sync"
	"time"

	"headlab/numerics/fusion"
	"headlab/web/link"
)

// atomsLab keeps what the Atom explosion scene computes once and reuses
// across queries: the fused W_d head of the last d (168 MB at d = 20, far
// too much to rebuild on every move of q), the general-fusion panel of the
// last configuration, the measured costs per d, and the finished fits. A
// new scene is computed from a link on every change of a control, so these
// results must outlive the scene; each is a pure function of its key (the
// timings excepted, which are measurements), so the cache changes no number
// the page shows. Everything is guarded by mu.
type atomsLab struct {
	mu sync.Mutex

	flatD int
	flat  fusion.Flat

	generalKey string
	gen        General

	timing  *timing           // the measurement in progress, or nil
	timings map[int]costs     // finished measurements by d
	fitting *fitRun           // the fit in progress, or nil
	fits    map[fitKey]fitOne // finished fits
}

func newAtomsLab() *atomsLab {
	return &atomsLab{timings: map[int]costs{}, fits: map[fitKey]fitOne{}}
}

// maxFits bounds the finished fits kept; past it the cache starts afresh.
const maxFits = 512

// fused returns the fused W_d head, built once per d.
func (l *atomsLab) fused(d int) (fusion.Flat, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.flatD == d && l.flat.Len() > 0 {
		return l.flat, nil
	}
	l.flat, l.flatD = fusion.Flat{}, 0 // let the old head go before building
	f, err := fusion.SigmoidSumFlat(d)
	if err != nil {
		return fusion.Flat{}, err
	}
	l.flat, l.flatD = f, d
	return f, nil
}

// ---- general fusion ----

// Limits of the general-fusion panel.
const (
	// GeneralBuildLimit is the largest product bound m^H the panel fuses
	// explicitly; beyond it the counts come from the formulas.
	GeneralBuildLimit = 1 << 16
	// GeneralQueries is the number of random queries on which the fused
	// head is checked against the sum of the heads.
	GeneralQueries = 32
)

// General is the general-fusion panel: H heads of m atoms each, with keys
// drawn from the seed ("random") or the same m keys in every head
// ("shared", the one-hot vectors of R^m, whose sums are exact), fused by
// the product construction with exact merging.
type General struct {
	H, M int
	Keys string
	// Product is the product bound m^H; Shared the multiset count
	// C(m+H−1, H) that shared keys merge down to.
	Product, Shared *big.Int
	// Built reports whether the heads were fused; Merged is then the
	// fused head's number of atoms and Error the largest |fused − Σ heads|
	// over GeneralQueries random queries.
	Built  bool
	Merged int
	Error  float64
	// Refused says why the heads were not fused, naming the limit.
	Refused string
}

func (g General) facts() map[string]any {
	p, _ := new(big.Float).SetInt(g.Product).Float64()
	s, _ := new(big.Float).SetInt(g.Shared).Float64()
	f := map[string]any{"H": g.H, "m": g.M, "keys": g.Keys, "product": p, "shared": s, "built": g.Built}
	if g.Built {
		f["merged"] = g.Merged
		f["error"] = g.Error
	} else {
		f["refused"] = g.Refused
	}
	return f
}

// GeneralHeads returns the general-fusion panel's heads for a state: H
// heads of m atoms with keys in R^m, biases and values drawn from the seed.
func GeneralHeads(s link.State) []fusion.Head {
	rng := rand.New(rand.NewPCG(s.Seed, 0x67656e6572616c)) // "general"
	heads := make([]fusion.Head, s.H)
	for h := range heads {
		heads[h] = make(fusion.Head, s.M)
		for i := range heads[h] {
			k := make([]float64, s.M)
			if s.Keys == "shared" {
				k[i] = 1
			} else {
				for j := range k {
					k[j] = rng.NormFloat64()
				}
			}
			heads[h][i] = fusion.Atom{Key: k, Bias: 0.5 * rng.NormFloat64(), Value: rng.NormFloat64()}
		}
	}
	return heads
}

func (l *atomsLab) general(s link.State) General {
	key := fmt.Sprint(s.Seed, s.H, s.M, s.Keys)
	l.mu.Lock()
	if l.generalKey == key {
		g := l.gen
		l.mu.Unlock()
		return g
	}
	l.mu.Unlock()
	g := computeGeneral(s)
	l.mu.Lock()
	l.generalKey, l.gen = key, g
	l.mu.Unlock()
	return g
}

func computeGeneral(s link.State) General {
	g := General{H: s.H, M: s.M, Keys: s.Keys}
	sizes := make([]int, s.H)
	for h := range sizes {
		sizes[h] = s.M
	}
	g.Product, _ = fusion.ProductCount(sizes...)
	g.Shared, _ = fusion.SharedKeyCount(s.M, s.H)
	limit := big.NewInt(GeneralBuildLimit)
	if s.Keys == "shared" {
		limit = big.NewInt(fusion.MaxAtoms) // merging after every head keeps it small
	}
	if g.Product.Cmp(limit) > 0 {
		g.Refused = fmt.Sprintf("not fused: the product bound %d^%d = %s is over the panel's limit %s; the counts come from the formulas",
			s.M, s.H, formatCount(g.Product), formatCount(limit))
		return g
	}
	heads := GeneralHeads(s)
	fused, err := fusion.Fuse(heads...)
	if err != nil {
		g.Refused = err.Error()
		return g
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x636865636b)) // "check"
	q := make([]float64, s.M)
	for n := 0; n < GeneralQueries; n++ {
		for j := range q {
			q[j] = 1.5 * rng.NormFloat64()
		}
		e := math.Abs(fused.Output(q) - fusion.SplitOutput(heads, q))
		if !(e <= g.Error) {
			g.Error = e
		}
	}
	g.Built, g.Merged = true, len(fused)
	return g
}

// ---- the measured cost per query ----

// costs is a finished measurement: nanoseconds per query of the split heads
// and of the explicit fused head (NaN when not built).
type costs struct{ split, fused float64 }

// Targets of the measurement. Browsers round performance.now() to 0.1 ms
// (without cross-origin isolation), so every timed unit of work is grown
// until it lasts at least unitFloor: the rounding then costs under 5%.
const (
	timingTarget = 40 * time.Millisecond // total time spent on each side
	timingSlice  = 2 * time.Millisecond  // one Step's share
	unitFloor    = 2 * time.Millisecond
)

// timing measures the cost per query of the split heads and of the fused
// head, a slice of a few milliseconds at a time. The fused head is timed in
// pieces of consecutive atoms (sub-heads), so that even 2^20 atoms never
// hold a frame for a whole query; the pieces' times add up to the cost of
// whole queries (the final division aside). Pieces, and repetitions of a
// whole small head, grow until a timed unit lasts unitFloor.
type timing struct {
	d     int
	heads []fusion.Head
	flat  fusion.Flat
	q     []float64

	splitRep  int
	splitN    float64
	splitT    time.Duration
	chunk     int // first atom of the next fused piece
	piece     int // atoms per fused piece
	fusedRep  int
	fusedN    float64 // fused queries evaluated (fractions for pieces)
	fusedT    time.Duration
	passes    int // whole passes over the fused head
	splitDone bool
	fusedDone bool
	sink      float64
}

func newTiming(a *Atoms) *timing {
	return &timing{d: a.D, heads: a.heads, flat: a.flat, q: append([]float64(nil), a.Q...), splitRep: 1, fusedRep: 1,
		piece: min(a.flat.Len(), 1024)}
}

func (t *timing) done() bool { return t.splitDone && t.fusedDone }

func (t *timing) progress() float64 {
	p := math.Min(1, float64(t.splitT)/float64(timingTarget))
	f := 1.0
	if !t.fusedDone {
		f = math.Min(1, float64(t.fusedT)/float64(timingTarget))
	}
	return 0.5*p + 0.5*f
}

// step spends about timingSlice measuring.
func (t *timing) step() {
	start := time.Now()
	for !t.done() && time.Since(start) < timingSlice {
		if !t.splitDone {
			t0 := time.Now()
			for r := 0; r < t.splitRep; r++ {
				t.sink += fusion.SplitOutput(t.heads, t.q)
			}
			dt := time.Since(t0)
			if dt < unitFloor && t.splitRep < 1<<24 {
				t.splitRep *= 2 // too short to time: discard, grow
				continue
			}
			t.splitT += dt
			t.splitN += float64(t.splitRep)
			t.splitDone = t.splitT >= timingTarget
			continue
		}
		n := t.flat.Len()
		if n == 0 {
			t.fusedDone = true
			break
		}
		lo, hi := t.chunk, min(n, t.chunk+t.piece)
		d := t.d
		sub := fusion.Flat{Dim: d, Keys: t.flat.Keys[lo*d : hi*d], Bias: t.flat.Bias[lo:hi], Value: t.flat.Value[lo:hi]}
		t0 := time.Now()
		for r := 0; r < t.fusedRep; r++ {
			t.sink += sub.Output(t.q)
		}
		dt := time.Since(t0)
		if dt < unitFloor {
			// Too short to time: discard it and grow the piece, then the
			// repetitions of the whole head.
			if t.piece < n {
				t.piece = min(n, 2*t.piece)
				t.chunk = 0
			} else if t.fusedRep < 1<<24 {
				t.fusedRep *= 2
			}
			continue
		}
		t.fusedT += dt
		t.fusedN += float64(t.fusedRep) * float64(hi-lo) / float64(n)
		t.chunk = hi % n
		if t.chunk == 0 {
			t.passes++
		}
		t.fusedDone = t.fusedT >= timingTarget && t.chunk == 0
	}
}

func (t *timing) result() costs {
	c := costs{split: float64(t.splitT.Nanoseconds()) / t.splitN, fused: math.NaN()}
	if t.flat.Len() > 0 {
		c.fused = float64(t.fusedT.Nanoseconds()) / t.fusedN
	}
	return c
}

// timingFacts adds the measured costs for width d, when known.
func (l *atomsLab) timingFacts(d int, f map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.timings[d]
	f["splitNs"], f["fusedNs"] = nil, nil
	f["timed"] = ok
	if !ok {
		return
	}
	f["splitNs"] = c.split
	if finite(c.fused) {
		f["fusedNs"] = c.fused
	}
}

// ---- the fewer-atoms experiment ----

// FitOptions are the fewer-atoms experiment's settings in the page: smaller
// than fusion's defaults so that a whole curve (k = 1…15 at d = 4) takes
// seconds in the browser, with the seed of the state.
func FitOptions(seed uint64) fusion.FitOptions {
	return fusion.FitOptions{Train: 256, Test: 1024, Radius: 4, Restarts: 3, Iterations: 250,
		Tolerance: 1e-10, Memory: 10, Seed: seed}
}

type fitKey struct {
	d, k int
	seed uint64
}

// fitOne is a finished fit of k atoms.
type fitOne struct {
	testRMS, testMax, constant float64
}

// fitRun fits k = 1…K atoms to W_d, one Fitter at a time, skipping the k
// already fitted.
type fitRun struct {
	d, K   int
	seed   uint64
	k      int
	fitter *fusion.Fitter
	done   bool
	err    error
}

// FitWidths returns the ks the state's fewer-atoms experiment fits: 1…k,
// capped at 2^d − 1; nil when d is over fusion.MaxFitDim.
func FitWidths(s link.State) []int {
	if s.D > fusion.MaxFitDim {
		return nil
	}
	K := min(s.K, 1<<s.D-1)
	ks := make([]int, K)
	for i := range ks {
		ks[i] = i + 1
	}
	return ks
}

func (l *atomsLab) fitDone(r *fitRun, k int) bool {
	_, ok := l.fits[fitKey{r.d, k, r.seed}]
	return ok
}

// step advances the fit by one Fitter step (one L-BFGS iteration).
func (l *atomsLab) fitStep(r *fitRun) {
	for r.fitter == nil {
		for r.k <= r.K && l.fitDone(r, r.k) {
			r.k++
		}
		if r.k > r.K {
			r.done = true
			return
		}
		f, err := fusion.NewFitter(r.d, r.k, FitOptions(r.seed))
		if err != nil {
			r.err, r.done = err, true
			return
		}
		r.fitter = f
	}
	if r.fitter.Step() {
		res := r.fitter.Result()
		if len(l.fits) >= maxFits {
			l.fits = map[fitKey]fitOne{}
		}
		l.fits[fitKey{r.d, r.k, r.seed}] = fitOne{testRMS: res.TestRMS, testMax: res.TestMax, constant: res.ConstantRMS}
		r.fitter = nil
		r.k++
	}
}

func (l *atomsLab) fitProgress(r *fitRun) float64 {
	if r.done {
		return 1
	}
	// Work grows with k: weight each k by k.
	var total, done float64
	for k := 1; k <= r.K; k++ {
		total += float64(k)
		switch {
		case l.fitDone(r, k):
			done += float64(k)
		case k == r.k && r.fitter != nil:
			done += float64(k) * r.fitter.Progress()
		}
	}
	return done / total
}

// fitFacts adds the fewer-atoms experiment: the best held-out error for
// each k fitted so far, the progress, and the note that it is an
// experiment.
func (l *atomsLab) fitFacts(s link.State, f map[string]any) {
	ks := FitWidths(s)
	if ks == nil {
		f["fit"] = map[string]any{"available": false,
			"why": fmt.Sprintf("the fewer-atoms experiment runs for d ≤ %d", fusion.MaxFitDim)}
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	rms := make([]any, len(ks))
	maxe := make([]any, len(ks))
	constant := any(nil)
	complete := true
	for i, k := range ks {
		r, ok := l.fits[fitKey{s.D, k, s.Seed}]
		if !ok {
			complete = false
			continue
		}
		rms[i], maxe[i], constant = r.testRMS, r.testMax, r.constant
	}
	progress := 1.0
	if r := l.fitting; !complete && r != nil && r.d == s.D && r.K == len(ks) && r.seed == s.Seed {
		progress = l.fitProgress(r)
		if r.err != nil {
			f["fitError"] = r.err.Error()
		}
	} else if !complete {
		progress = 0
	}
	f["fit"] = map[string]any{"available": true, "d": s.D, "ks": ks, "testRMS": rms, "testMax": maxe,
		"constantRMS": constant, "complete": complete, "atoms": 1 << s.D, "note": fusion.FitNote}
	f["fitProgress"] = progress
}

// ---- the job ----

// atomsJob runs the scene's long computations a slice at a time: first the
// measurement of the cost per query at this d, then the fewer-atoms fit.
type atomsJob struct {
	l *atomsLab
	t *timing
	r *fitRun
}

// Job returns the scene's long computation (measuring the cost per query,
// then fitting fewer atoms when d ≤ fusion.MaxFitDim), or nil when both are
// already done for this state. It continues, rather than restarts, work
// begun for an earlier scene of the same d, k and seed.
func (a *Atoms) Job() Job {
	l := a.lab
	l.mu.Lock()
	defer l.mu.Unlock()
	j := &atomsJob{l: l}
	if l.timing != nil && l.timing.d != a.D {
		l.timing = nil // drop a measurement left behind, and the head it holds
	}
	if _, ok := l.timings[a.D]; !ok {
		if l.timing == nil || l.timing.d != a.D {
			l.timing = newTiming(a)
		}
		j.t = l.timing
	}
	if ks := FitWidths(a.State); ks != nil {
		K := len(ks)
		r := l.fitting
		if r == nil || r.d != a.D || r.K != K || r.seed != a.State.Seed {
			r = &fitRun{d: a.D, K: K, seed: a.State.Seed, k: 1}
		}
		for k := 1; k <= K && r.fitter == nil; k++ {
			if !l.fitDone(r, k) {
				l.fitting = r
				j.r = r
				break
			}
		}
		if r.fitter != nil {
			l.fitting, j.r = r, r
		}
	}
	if j.t == nil && j.r == nil {
		return nil
	}
	return j
}

// Step does one slice: about a millisecond of measuring, or one step of the
// fit.
func (j *atomsJob) Step() bool {
	l := j.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if j.t != nil && !j.t.done() {
		j.t.step()
		if j.t.done() {
			l.timings[j.t.d] = j.t.result()
			if l.timing == j.t {
				l.timing = nil
			}
		}
		return false
	}
	if j.r != nil && !j.r.done {
		l.fitStep(j.r)
		if j.r.done && l.fitting == j.r {
			l.fitting = nil
		}
		return j.r.done
	}
	return true
}

// Progress is the fraction done: the measurement counts for a tenth when a
// fit follows.
func (j *atomsJob) Progress() float64 {
	l := j.l
	l.mu.Lock()
	defer l.mu.Unlock()
	t := 1.0
	if j.t != nil && !j.t.done() {
		t = j.t.progress()
	}
	if j.r == nil {
		return t
	}
	return 0.1*t + 0.9*l.fitProgress(j.r)
}
