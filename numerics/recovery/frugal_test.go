package recovery

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"

	"headlab/numerics/attention"
	"headlab/numerics/internal/xmath"
	"headlab/numerics/recovery/internal/lsq"
	"headlab/numerics/recovery/internal/polefit"
)

// Layers of these tests come from seeds 9100000+s, held out from the
// seeds the frugal search was tuned on (777000+s) and from ACCURACY.md's.
const frugalSeeds = 9100000

func TestFrugalQueriesFormula(t *testing.T) {
	for H := 1; H <= 8; H++ {
		for d := 1; d <= 8; d++ {
			first := (2*H + 1) + 2*(d-1)*2*H // M_11, then M_i1 and its link
			if got, want := FrugalQueries(H, d), first+(H+1)*(d*d-d); got != want {
				t.Errorf("FrugalQueries(%d, %d) = %d, want %d", H, d, got, want)
			}
			if FrugalQueries(H, d) > EconomyQueries(H, d) {
				t.Errorf("H = %d, d = %d: frugal %d above economy %d", H, d, FrugalQueries(H, d), EconomyQueries(H, d))
			}
		}
	}
	for _, c := range []struct{ H, d, want int }{{3, 8, 315}, {2, 4, 65}, {1, 1, 3}} {
		if got := FrugalQueries(c.H, c.d); got != c.want {
			t.Errorf("FrugalQueries(%d, %d) = %d, want %d", c.H, c.d, got, c.want)
		}
	}
	if Frugal.Queries(3, 8) != 315 || Economy.Queries(3, 8) != 427 || Paper.Queries(3, 8) != 763 {
		t.Error("Mode.Queries disagrees with the counts")
	}
}

func TestModeParse(t *testing.T) {
	for _, m := range Modes() {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMode("thrifty"); err == nil {
		t.Error("ParseMode accepted an unknown name")
	}
	if Mode(7).Valid() || len(ModeNames()) != 3 {
		t.Error("the modes are not the closed set paper, economy, frugal")
	}
}

// checkFrugalTrace checks a frugal run's counts: with no fallback exactly
// FrugalQueries and longest query 2H+1; every later measurement with
// H+1 samples unless it fell back.
func checkFrugalTrace(t *testing.T, what string, res Result, H, d int) {
	t.Helper()
	extra := 0
	for _, rf := range res.Trace.RFs {
		if rf.Kind != Measurement || rf.J == 0 {
			continue
		}
		if len(rf.N) < H+1 {
			t.Errorf("%s: %s has %d samples, fewer than H+1", what, rf.Name(), len(rf.N))
		}
		extra += len(rf.N) - (H + 1)
	}
	if res.Fallbacks == 0 {
		if res.Queries != FrugalQueries(H, d) {
			t.Errorf("%s: %d queries without fallback, want %d", what, res.Queries, FrugalQueries(H, d))
		}
		if extra != 0 {
			t.Errorf("%s: no fallback counted, yet %d extra samples", what, extra)
		}
	} else if res.Queries < FrugalQueries(H, d)+extra {
		t.Errorf("%s: %d queries, fewer than %d + %d extra samples", what, res.Queries, FrugalQueries(H, d), extra)
	}
	if res.MaxLength != 2*H+1 {
		t.Errorf("%s: longest query %d, want 2H+1 = %d", what, res.MaxLength, 2*H+1)
	}
}

// Counts and longest query for H = 1…8, d = 1…8: float64 to H = 3,
// extended precision beyond (a shorter table with -short, and under
// GOOS=js only H·d ≤ 24 beyond H = 3).
func TestFrugalCounts(t *testing.T) {
	maxH, maxD := 8, 8
	if testing.Short() {
		maxH, maxD = 3, 4
	}
	for H := 1; H <= maxH; H++ {
		for d := 1; d <= maxD; d++ {
			if H*d > 24 && H > 3 && runtime.GOOS == "js" {
				continue // slow in the browser's runtime; H·d ≤ 24 still covers every H
			}
			layer := attention.Random(H, d, frugalSeeds+uint64(10*H+d))
			opt := DefaultOptions(H, d)
			opt.Mode, opt.Seed = Frugal, uint64(H*d)
			var res Result
			var err error
			if H <= 3 {
				res, err = Learn(LayerOracle(layer, 0, 1), opt)
			} else {
				opt.Precision = NeededPrecision(H, d, Frugal) + 32
				res, err = LearnBig(BigLayerOracle(layer, opt.Precision), opt)
			}
			if err != nil {
				// An unresolved run stops before its schedule ends.
				t.Logf("H = %d, d = %d: %v", H, d, err)
				continue
			}
			checkFrugalTrace(t, "H = "+itoa(H)+", d = "+itoa(d), res, H, d)
		}
	}
}

// TestFrugalRoughLink checks that a float64 measurement whose decided
// poles place a head only roughly (two nearly equal poles, or one near
// n = 0) is linked to a resolved row at once, with no samples beyond its
// H + 1, that the queries are the formula's plus the extra samples plus
// 2H for every link, and that the layer still comes back.
func TestFrugalRoughLink(t *testing.T) {
	const H, d = 2, 4
	direct := 0
	for s := uint64(0); s < 12; s++ {
		layer := attention.Random(H, d, frugalSeeds+500+s)
		opt := DefaultOptions(H, d)
		opt.Mode, opt.Seed = Frugal, s
		res, err := Learn(LayerOracle(layer, 0, s), opt)
		if err != nil {
			t.Fatalf("layer %d: %v", s, err)
		}
		// Float64 at (2, 4) is good to a few 1e-12 on its worst layers
		// (ACCURACY.md); a wrong head would be off by far more.
		if e, err := attention.RelativeError(res.Layer, layer); err != nil || !(e <= 1e-10) {
			t.Errorf("layer %d: error %.3g (%v)", s, e, err)
		}
		extra, links := 0, 0
		samples := make(map[[2]int]int) // samples of each later measurement
		for _, rf := range res.Trace.RFs {
			if rf.J == 0 {
				continue
			}
			switch rf.Kind {
			case Measurement:
				extra += len(rf.N) - (H + 1)
				samples[[2]int{rf.I, rf.J}] = len(rf.N)
			case Link:
				links++
				if samples[[2]int{rf.I, rf.J}] == H+1 {
					direct++
				}
			}
		}
		if want := FrugalQueries(H, d) + extra + 2*H*links; res.Queries != want {
			t.Errorf("layer %d: %d queries, want %d + %d extra samples + 2H·%d links = %d", s, res.Queries, FrugalQueries(H, d), extra, links, want)
		}
	}
	if direct == 0 {
		t.Error("no measurement was linked with only its H + 1 samples: these layers no longer cover it")
	}
	t.Logf("%d measurements linked with H + 1 samples", direct)
}

// TestColumnOneAlike checks that every mode learns column one bit for bit
// alike, or fails there alike: the RFs on z_1 are the same queries in
// every mode, and so is the noise model's scale, which frugal must set
// before it asks any other.
func TestColumnOneAlike(t *testing.T) {
	for _, c := range []struct{ H, d int }{{3, 4}, {4, 4}} {
		for s := uint64(0); s < 4; s++ {
			layer := attention.Random(c.H, c.d, frugalSeeds+3000+s)
			var want string
			for i, m := range Modes() {
				opt := DefaultOptions(c.H, c.d)
				opt.Mode, opt.Seed = m, s
				l := newRun(source{f: LayerOracle(layer, 0, 1)}, opt)
				l.workers = 1
				if err := l.askFixed(); err != nil {
					t.Fatal(err)
				}
				got := fmt.Sprintf("s %x", math.Float64bits(l.s))
				if th, err := l.learnColumnOne(); err != nil {
					got += " error " + err.Error()
				} else {
					for _, x := range th.x {
						got += fmt.Sprintf(" %x", math.Float64bits(x))
					}
				}
				if i == 0 {
					want = got
				} else if got != want {
					t.Errorf("H = %d, d = %d, layer %d: %v learns column one unlike %v", c.H, c.d, s, m, Modes()[0])
				}
			}
		}
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + itoa(n%10)
}

// 50 held-out layers at (2,4), (3,4), (4,3) in extended precision (10
// with -short): all resolved, error ≤ 1e-20, never wrong.
func TestFrugalExtendedResolves(t *testing.T) {
	n := 50
	if testing.Short() {
		n = 10
	}
	for _, c := range []struct{ H, d int }{{2, 4}, {3, 4}, {4, 3}} {
		fallbacks := 0
		for s := 0; s < n; s++ {
			seed := frugalSeeds + 1000 + uint64(s)
			layer := attention.Random(c.H, c.d, seed)
			want := attention.Canonical(layer, 1e-12)
			opt := DefaultOptions(c.H, c.d)
			opt.Mode, opt.Seed, opt.Precision = Frugal, seed, 192
			res, err := LearnBig(BigLayerOracle(layer, opt.Precision), opt)
			if err != nil {
				t.Errorf("H = %d, d = %d, seed %d: %v", c.H, c.d, seed, err)
				continue
			}
			if e := bigLayerError(t, res, want); !(e <= 1e-20) {
				t.Errorf("H = %d, d = %d, seed %d: error %.3g above 1e-20", c.H, c.d, seed, e)
			}
			checkFrugalTrace(t, "ext", res, c.H, c.d)
			fallbacks += res.Fallbacks
		}
		t.Logf("H = %d, d = %d: %d layers, %d measurements fell back", c.H, c.d, n, fallbacks)
	}
}

// In float64 frugal mode resolves at least as many held-out layers as
// economy at (2,4) and (3,4), and returns no wrong layer unflagged.
func TestFrugalFloat64AtLeastEconomy(t *testing.T) {
	n := 30
	if testing.Short() {
		n = 12
	}
	for _, c := range []struct{ H, d int }{{2, 4}, {3, 4}} {
		okBy := map[Mode]int{}
		for _, m := range []Mode{Economy, Frugal} {
			for s := 0; s < n; s++ {
				seed := frugalSeeds + 2000 + uint64(s)
				layer := attention.Random(c.H, c.d, seed)
				opt := DefaultOptions(c.H, c.d)
				opt.Mode, opt.Seed = m, seed
				res, err := Learn(LayerOracle(layer, 0, 1), opt)
				if err != nil {
					continue
				}
				okBy[m]++
				if e, _ := attention.RelativeError(res.Layer, attention.Canonical(layer, 1e-12)); !(e <= 1e-6) {
					t.Errorf("%v, H = %d, d = %d, seed %d: wrong layer (error %.3g) returned without an error", m, c.H, c.d, seed, e)
				}
			}
		}
		if okBy[Frugal] < okBy[Economy] {
			t.Errorf("H = %d, d = %d: frugal resolved %d of %d, economy %d", c.H, c.d, okBy[Frugal], n, okBy[Economy])
		}
		t.Logf("H = %d, d = %d: resolved frugal %d, economy %d of %d", c.H, c.d, okBy[Frugal], okBy[Economy], n)
	}
}

// An RF with two labelled solutions from H samples: the search must not
// accept either from H samples, and with the (H+1)-th it must accept the
// true poles or nothing.
func TestFrugalAmbiguity(t *testing.T) {
	const H = 2
	l := &learner{workers: 1, opt: Options{Seed: 3}}
	found := 0
	for s := uint64(0); s < 200 && found < 5; s++ {
		rng := rand.New(rand.NewPCG(frugalSeeds, s))
		r := []float64{rng.NormFloat64() * 2, rng.NormFloat64() * 2}
		p := []float64{rng.NormFloat64() * 1.5, rng.NormFloat64() * 1.5}
		samples := func(m int) polefit.Samples {
			q := polefit.Samples{F0: 0.7, R: r}
			for n := 1; n <= m; n++ {
				y := q.F0
				for h := range r {
					y -= r[h] * float64(n) / (float64(n) + math.Exp(p[h]))
				}
				q.N, q.Y, q.Sigma = append(q.N, float64(n)), append(q.Y, y), append(q.Sigma, 1e-16*(math.Abs(y)+1))
			}
			return q
		}
		mu, width := []float64{0, 0}, []float64{2, 2}
		lo, hi := scanRange(mu, width)
		q2 := samples(H)
		lb2 := l.searchPoles(q2, l.poleStarts(int(s), mu, width, nil), lo, hi)
		// Two labelled solutions: a rival that fits as well as the best.
		if math.IsInf(lb2.Rival, 0) || lb2.Rival > frugalSolution*float64(H) {
			continue
		}
		found++
		if frugalAccept(lb2, H) {
			t.Errorf("case %d: accepted poles %v from %d samples with a rival as good", s, lb2.X, H)
		}
		q3 := samples(H + 1)
		lb3 := l.searchPoles(q3, l.poleStarts(int(s), mu, width, nil), lo, hi)
		if frugalAccept(lb3, H+1) && !samePolesTo(lb3.X, p, 1e-6) {
			t.Errorf("case %d: accepted wrong poles %v from H+1 samples, true %v", s, lb3.X, p)
		}
		if !frugalAccept(lb3, H+1) {
			t.Logf("case %d: H+1 samples undecided: the run would ask one more", s)
		}
	}
	if found == 0 {
		t.Fatal("no RF with two labelled solutions from H samples was drawn")
	}
}

// With only an upper bound H0 on the heads, frugal mode learns the
// layer: column one with 2H0 samples per RF, the later measurements with
// H_c + 1 for the H_c heads column one shows.
func TestFrugalUpperBound(t *testing.T) {
	const H, H0, d = 2, 3, 3
	resolved := 0
	for s := 0; s < 6; s++ {
		seed := frugalSeeds + 3000 + uint64(s)
		layer := attention.Random(H, d, seed)
		opt := DefaultOptions(H0, d)
		opt.Mode, opt.Seed, opt.UpperBound = Frugal, seed, true
		res, err := Learn(LayerOracle(layer, 0, 1), opt)
		if err != nil {
			continue
		}
		resolved++
		if res.Heads != H {
			t.Errorf("seed %d: %d heads found, want %d", seed, res.Heads, H)
		}
		if e, _ := attention.RelativeError(res.Layer, attention.Canonical(layer, 1e-12)); !(e <= 1e-6) {
			t.Errorf("seed %d: error %.3g", seed, e)
		}
		first := FrugalQueries(H0, d) - (H0+1)*(d*d-d)
		if res.Fallbacks == 0 && res.Queries != first+(H+1)*(d*d-d) {
			t.Errorf("seed %d: %d queries, want %d + (H_c+1)(d²−d) = %d", seed, res.Queries, first, first+(H+1)*(d*d-d))
		}
	}
	if resolved < 4 {
		t.Errorf("only %d of 6 runs with the bound H0 = %d resolved", resolved, H0)
	}
}

// knownPoles draws the samples y(n) = F(0) − Σ_h r_h·n/(n + ρ_h), n =
// 1…H+1, of a frugal measurement of H heads and returns them with the
// true log-poles.
func knownPoles(rng *rand.Rand, hc int) (polefit.Samples, []float64) {
	q := polefit.Samples{F0: rng.NormFloat64(), R: make([]float64, hc)}
	p := make([]float64, hc)
	for h := range p {
		q.R[h] = rng.NormFloat64()
		p[h] = 2 * rng.NormFloat64()
	}
	for n := 1; n <= hc+1; n++ {
		y := q.F0
		for h := range p {
			y -= q.R[h] * float64(n) / (float64(n) + math.Exp(p[h]))
		}
		q.N, q.Y, q.Sigma = append(q.N, float64(n)), append(q.Y, y), append(q.Sigma, 1e-15*(math.Abs(y)+1))
	}
	return q, p
}

// TestDeflatedStarts checks the deflated search's starts at H = 4 and 5:
// with the heads' ranges centred on the true log-poles, the start that
// holds H − 3 heads at their centres and eliminates the others is the
// truth and fits best, so it comes first; with the ranges centred 0.3
// widths off (no held point is the truth), the best start fits the
// samples better than the ranges' centre does; and measurements of 3 and
// 6 heads get none.
func TestDeflatedStarts(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 4))
	width := make([]float64, polefit.DeflatedHeads)
	for h := range width {
		width[h] = 1
	}
	for trial := 0; trial < 20; trial++ {
		q, p := knownPoles(rng, polefit.EliminatedHeads+1+trial%2)
		width := width[:len(p)]
		starts := polefit.DeflatedStarts(q, p, width, 1)
		if len(starts) == 0 || !samePolesTo(starts[0], p, 1e-6) {
			t.Errorf("log-poles %.4g: the first of the %d starts is %.4g", p, len(starts), starts)
		}
		off := make([]float64, len(p))
		for h := range off {
			off[h] = p[h] + 0.3
		}
		starts = polefit.DeflatedStarts(q, off, width, 2)
		prob := q.Problem(func() {})
		e := make([]float64, prob.M)
		prob.Resid(off, e)
		centre := lsq.SumSquares(e)
		if len(starts) == 0 {
			t.Errorf("log-poles %.4g, ranges 0.3 widths off: no start", p)
			continue
		}
		prob.Resid(starts[0], e)
		if best := lsq.SumSquares(e); !(best < centre) {
			t.Errorf("log-poles %.4g, ranges 0.3 widths off: the best start's χ² %.3g, the centre's %.3g", p, best, centre)
		}
	}
	for _, hc := range []int{polefit.EliminatedHeads, polefit.DeflatedHeads + 1} {
		if s := polefit.DeflatedStarts(polefit.Samples{R: make([]float64, hc), N: make([]float64, hc+1)}, nil, nil, 1); s != nil {
			t.Errorf("%d heads: %d starts, want none", hc, len(s))
		}
	}
}

// TestSolvedStarts checks the link between a frugal measurement's samples
// and numerics/internal/poles: from the samples y(n) = F(0) − Σ_h
// r_h·n/(n + ρ_h), n = 1…H+1, of known poles, the starts polefit.SolvedStarts
// returns hold the true log-poles (H = 1…4), and a fit from them
// reproduces the samples.
func TestSolvedStarts(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	for hc := 1; hc <= polefit.HomotopyHeads; hc++ {
		for trial := 0; trial < 10; trial++ {
			q, p := knownPoles(rng, hc)
			starts := polefit.SolvedStarts(q, 2)
			found := false
			for _, s := range starts {
				if samePolesTo(s, p, 1e-6) {
					found = true
				}
			}
			if !found {
				t.Errorf("H=%d, log-poles %.4g: not among the %d starts %.4g", hc, p, len(starts), starts)
			}
		}
	}
}

// TestLineStarts checks the line family on exact samples at 256 bits: from
// the 2H − 2 samples of known poles (H = 3…8, half the trials with two
// poles 1e-9 apart, which float64 cannot tell apart), the true poles are
// among the candidates lineStarts returns: one of them, polished, is the
// truth to 1e-40.
func TestLineStarts(t *testing.T) {
	const prec = 256
	l := &learner{x: &ext{prec: prec}, s: 1}
	num := l.x.num
	rng := rand.New(rand.NewPCG(29, 4))
	for hc := 3; hc <= 8; hc++ {
		for trial := 0; trial < 6; trial++ {
			f0 := num().SetFloat64(rng.NormFloat64())
			r, rho := make([]*big.Float, hc), make([]*big.Float, hc)
			for h := range r {
				r[h] = num().SetFloat64(rng.NormFloat64())
				rho[h] = num().SetFloat64(xmath.Exp(2 * rng.NormFloat64()))
			}
			if trial%2 == 1 {
				rho[1].Mul(rho[0], num().SetFloat64(1+1e-9))
			}
			var n []float64
			var y []*big.Float
			for s := 1; s <= 2*hc-2; s++ {
				ns := num().SetInt64(int64(s))
				v := num().Set(f0)
				for h := range r {
					q := num().Add(ns, rho[h])
					v.Sub(v, q.Quo(num().Mul(r[h], ns), q))
				}
				n, y = append(n, float64(s)), append(y, v)
			}
			found := false
			for _, c := range l.lineStarts(n, y, f0, r) {
				p, ok := l.polishPoles(n, y, f0, r, c)
				for h := range p {
					d := num().Sub(p[h], rho[h])
					if e, _ := d.Quo(d, rho[h]).Float64(); !(math.Abs(e) < 1e-40) {
						ok = false
					}
				}
				found = found || ok
			}
			if !found {
				t.Errorf("H = %d, trial %d: the true poles %.6g are not among the candidates", hc, trial, rho)
			}
		}
	}
}

// Where the float64 search does not run (in extended precision from
// H = searchedHeads + 1; here H = 5, 6 and 8, d = 2, 256 bits) every later
// measurement is settled by the line family: held-out layers resolve with
// error ≤ 1e-20 in exactly FrugalQueries + (d² − d)(H − 3) queries, the
// 2H − 2 samples of each later measurement where economy takes 2H.
func TestFrugalLineFamily(t *testing.T) {
	const d = 2
	for _, H := range []int{searchedHeads + 1, 6, 8} {
		for s := 0; s < 4; s++ {
			seed := frugalSeeds + 5000 + uint64(s)
			layer := attention.Random(H, d, seed)
			opt := DefaultOptions(H, d)
			opt.Mode, opt.Seed, opt.Precision = Frugal, seed, 256
			res, err := LearnBig(BigLayerOracle(layer, opt.Precision), opt)
			if err != nil {
				t.Errorf("H = %d, seed %d: %v", H, seed, err)
				continue
			}
			if e := bigLayerError(t, res, attention.Canonical(layer, 1e-12)); !(e <= 1e-20) {
				t.Errorf("H = %d, seed %d: error %.3g above 1e-20", H, seed, e)
			}
			if want := FrugalQueries(H, d) + (d*d-d)*(H-3); res.Queries != want {
				t.Errorf("H = %d, seed %d: %d queries, want %d (the line family's 2H − 2 samples a later measurement)", H, seed, res.Queries, want)
			}
			checkFrugalTrace(t, "line", res, H, d)
		}
	}
}
