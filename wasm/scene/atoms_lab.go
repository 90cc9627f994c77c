package scene

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sync"

	"headlab/numerics/experiment"
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
// the page shows. The costs and the fits are experiment jobs, kept by the
// lab's tasks. The rest is guarded by mu.
type atomsLab struct {
	mu sync.Mutex
	t  *tasks

	flatD int
	flat  fusion.Flat

	generalKey string
	gen        General
}

func newAtomsLab(t *tasks) *atomsLab { return &atomsLab{t: t} }

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
// drawn from the seed or the same m keys in every head (experiment.Keys),
// fused by the product construction with exact merging.
type General struct {
	H, M int
	Keys experiment.Keys
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

// GeneralHeads returns the general-fusion panel's heads for a state
// (experiment.GeneralHeads: the explosion figure's measured counts fuse the
// same heads).
func GeneralHeads(s link.State) []fusion.Head {
	return experiment.GeneralHeads(s.Seed, s.H, s.M, s.Keys)
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
	if s.Keys == experiment.SharedKeys {
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

// ---- the measured cost per query and the fewer-atoms fit ----

func timingKey(d int) string { return fmt.Sprintf("timing d=%d", d) }

func fitKey(s link.State) string {
	return fmt.Sprintf("fit d=%d k=%d seed=%d", s.D, len(FitWidths(s)), s.Seed)
}

func timingJob(a *Atoms) experiment.Job {
	return experiment.Job{Kind: experiment.KindTiming, Timing: &experiment.Timing{D: a.D, Q: append([]float64(nil), a.Q...)}}
}

// fitJob asks for the state's fit, handing over the points already fitted
// for the same d and seed with another k.
func (l *atomsLab) fitJob(s link.State) experiment.Job {
	f := experiment.Fit{D: s.D, K: s.K, Seed: s.Seed}
	j := experiment.Job{Kind: experiment.KindFit, Fit: &f}
	for K := 1<<s.D - 1; K >= 1; K-- {
		o := s
		o.K = K
		if res, ok, _ := l.t.lookup(fitKey(o)); ok && res.Fit != nil {
			j.Known = res.Fit.Points
			break
		}
	}
	return j
}

// timingFacts adds the measured costs for width d, when known.
func (l *atomsLab) timingFacts(d int, f map[string]any) {
	res, ok, _ := l.t.lookup(timingKey(d))
	f["splitNs"], f["fusedNs"] = nil, nil
	f["timed"] = ok && res.Timing != nil
	if !ok || res.Timing == nil {
		return
	}
	f["splitNs"] = res.Timing.Split
	if finite(res.Timing.Fused) {
		f["fusedNs"] = res.Timing.Fused
	}
}

// FitOptions are the fewer-atoms experiment's settings in the page
// (experiment.FitOptions).
func FitOptions(seed uint64) fusion.FitOptions { return experiment.FitOptions(seed) }

// FitWidths returns the ks the state's fewer-atoms experiment fits
// (experiment.FitWidths).
func FitWidths(s link.State) []int { return experiment.FitWidths(s.D, s.K) }

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
	key := fitKey(s)
	var pts []experiment.FitPoint
	complete := false
	progress := 0.0
	res, ok, msg := l.t.lookup(key)
	switch {
	case ok && res.Fit != nil:
		pts, complete, progress = res.Fit.Points, true, 1
	default:
		if p, ok := l.t.progressOf(key); ok {
			progress = p.Fraction
			if p.Fit != nil {
				pts = p.Fit.Points
			}
		}
		if msg != "" {
			f["fitError"] = workerFailure(msg).Error()
		}
	}
	rms := make([]any, len(ks))
	maxe := make([]any, len(ks))
	constant := any(nil)
	for _, p := range pts {
		if i := p.K - 1; i >= 0 && i < len(ks) {
			rms[i], maxe[i], constant = p.TestRMS, p.TestMax, p.Constant
		}
	}
	f["fit"] = map[string]any{"available": true, "d": s.D, "ks": ks, "testRMS": rms, "testMax": maxe,
		"constantRMS": constant, "complete": complete, "atoms": 1 << s.D, "note": fusion.FitNote}
	f["fitProgress"] = progress
}

// ---- the job ----

// atomsJob waits for the scene's long computations: first the
// measurement of the cost per query at this d, then the fewer-atoms fit.
type atomsJob struct {
	a           *Atoms
	timing, fit bool // still to come
	fitJob      experiment.Job
}

// Job returns the scene's long computation (measuring the cost per query,
// then fitting fewer atoms when d ≤ fusion.MaxFitDim), or nil when both are
// done (or failed) for this state.
func (a *Atoms) Job() Job {
	l := a.lab
	j := &atomsJob{a: a}
	_, ok, msg := l.t.lookup(timingKey(a.D))
	j.timing = !ok && msg == ""
	if FitWidths(a.State) != nil {
		_, ok, msg := l.t.lookup(fitKey(a.State))
		j.fit = !ok && msg == ""
		if j.fit {
			j.fitJob = l.fitJob(a.State)
		}
	}
	if !j.timing && !j.fit {
		return nil
	}
	return j
}

// Step takes the measurement, then the fit, once they have arrived.
func (j *atomsJob) Step() bool {
	t := j.a.lab.t
	if j.timing {
		if _, ok, msg := t.get(timingKey(j.a.D), timingJob(j.a)); !ok && msg == "" {
			return false
		}
		j.timing = false
	}
	if j.fit {
		if _, ok, msg := t.get(fitKey(j.a.State), j.fitJob); !ok && msg == "" {
			return false
		}
		j.fit = false
	}
	return true
}

// Progress is the fraction done: the measurement counts for a tenth when a
// fit follows.
func (j *atomsJob) Progress() float64 {
	t := j.a.lab.t
	tm := 1.0
	if _, done, _ := t.lookup(timingKey(j.a.D)); j.timing && !done {
		tm = 0
		if p, ok := t.progressOf(timingKey(j.a.D)); ok {
			tm = p.Fraction
		}
	}
	if FitWidths(j.a.State) == nil {
		return tm
	}
	fp := 1.0
	if _, done, _ := t.lookup(fitKey(j.a.State)); j.fit && !done {
		fp = 0
		if p, ok := t.progressOf(fitKey(j.a.State)); ok {
			fp = p.Fraction
		}
	}
	return 0.1*tm + 0.9*fp
}
