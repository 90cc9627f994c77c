package recovery

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
)

// F_{a,z}(n) of an attention layer is C + Σ_h R_h/(n+ρ_h) with
// ρ_h = exp((z−a)ᵀW_h z), R_h = ρ_h v_h·(z−a), C = V·a (MATH.md §3.1).
func TestRationalForm(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		H, d := int(seed%3)+1, int(seed%4)+1
		layer := attention.Random(H, d, seed)
		rng := rand.New(rand.NewPCG(seed, 99))
		a, z := make([]float64, d), make([]float64, d)
		for i := range a {
			a[i], z[i] = 1.5*rng.NormFloat64(), rng.NormFloat64()
		}
		var c float64
		rho := make([]float64, H)
		res := make([]float64, H)
		for h, hd := range layer {
			var p, r float64
			for i := 0; i < d; i++ {
				c += hd.V.AtVec(i) * a[i]
				r += hd.V.AtVec(i) * (z[i] - a[i])
				for j := 0; j < d; j++ {
					p += (z[i] - a[i]) * hd.W.At(i, j) * z[j]
				}
			}
			rho[h] = math.Exp(p)
			res[h] = rho[h] * r
		}
		for n := 0; n <= 12; n++ {
			got := layer.Output(sequence(a, z, n))
			want := c
			for h := range rho {
				want += res[h] / (float64(n) + rho[h])
			}
			if e := math.Abs(got - want); e > 1e-12*(1+math.Abs(want)) {
				t.Errorf("seed %d, n = %d: layer %.17g, rational form %.17g", seed, n, got, want)
			}
		}
	}
}

// The learner's model in its own coordinates reproduces every answer of
// the schedule for the true parameters.
func TestModelMatchesLayer(t *testing.T) {
	const H, d = 2, 3
	layer := attention.Random(H, d, 5)
	opt := DefaultOptions(H, d)
	l := newRun(source{f: LayerOracle(layer, 0, 1)}, opt)
	if err := l.askFixed(); err != nil {
		t.Fatal(err)
	}
	th := newTheta(H, d, d)
	for h, hd := range layer {
		for a := 0; a < d; a++ {
			for b := 0; b < d; b++ {
				var p float64
				for i := 0; i < d; i++ {
					for j := 0; j < d; j++ {
						p += l.u[a][i] * hd.W.At(i, j) * l.z[b][j]
					}
				}
				th.x[th.pIndex(h, a, b)] = l.c * p
			}
			var r float64
			for i := 0; i < d; i++ {
				r += hd.V.AtVec(i) * l.u[a][i]
			}
			th.x[th.rIndex(h, a)] = l.c * r
		}
	}
	for _, r := range l.queryRows() {
		if got := r.s.predict(r.n, th, l.c); math.Abs(got-r.y) > 1e-12*(1+math.Abs(r.y)) {
			t.Errorf("n = %v: model %.17g, oracle %.17g", r.n, got, r.y)
		}
	}
}

// Paper mode makes exactly the paper's count of queries; economy mode its
// own count plus 2H for every link it falls back to; none is longer than
// 2H+1.
func TestQueryCounts(t *testing.T) {
	exact := 0
	for _, c := range []struct{ H, d int }{{1, 1}, {1, 3}, {2, 2}, {2, 3}, {3, 2}, {3, 3}} {
		layer := attention.Random(c.H, c.d, uint64(31*c.H+c.d))
		for _, mode := range []Mode{Paper, Economy} {
			opt := DefaultOptions(c.H, c.d)
			opt.Mode = mode
			res, err := Learn(LayerOracle(layer, 0, 1), opt)
			if err != nil {
				t.Fatalf("H=%d d=%d %v: %v", c.H, c.d, mode, err)
			}
			want := PaperQueries(c.H, c.d)
			if mode == Economy {
				links := 0
				for _, rf := range res.Trace.RFs {
					if rf.Kind == Link && rf.J > 0 {
						links++
					}
				}
				want = EconomyQueries(c.H, c.d) + 2*c.H*links
				if links == 0 {
					exact++
				}
			}
			if res.Queries != want || len(res.Trace.Queries) != want {
				t.Errorf("H=%d d=%d %v: %d queries (trace %d), want %d", c.H, c.d, mode, res.Queries, len(res.Trace.Queries), want)
			}
			if res.MaxLength != 2*c.H+1 {
				t.Errorf("H=%d d=%d %v: longest query %d, want %d", c.H, c.d, mode, res.MaxLength, 2*c.H+1)
			}
		}
	}
	if exact < 4 {
		t.Errorf("economy mode fell back to links in %d of 6 runs", 6-exact)
	}
	if PaperQueries(2, 4) != 125 || EconomyQueries(2, 4) != 77 || InformationBound(2, 4) != 40 {
		t.Errorf("counts for H=2, d=4: %d, %d, %d; MATH.md §3.4 says 125, 77, 40",
			PaperQueries(2, 4), EconomyQueries(2, 4), InformationBound(2, 4))
	}
}

// checkRun asserts the contract of one run: a result within 1e-3 of the
// canonical layer, or an *Error; it returns the error (+Inf when flagged).
func checkRun(t *testing.T, layer attention.Layer, res Result, err error) float64 {
	t.Helper()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("error %v is not a *recovery.Error", err)
		}
		if res.Layer != nil {
			t.Errorf("an unresolved run returned a layer")
		}
		return math.Inf(1)
	}
	want := attention.Canonical(layer, 1e-12)
	e, cerr := attention.RelativeError(res.Layer, want)
	if cerr != nil || e > 1e-3 {
		t.Errorf("silent garbage: %d heads (want %d), relative error %.3g, residual %.3g, estimate %.3g",
			len(res.Layer), len(want), e, res.Residual, res.Estimate)
		return math.Inf(1)
	}
	return e
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// Recovery from an exact oracle on held-out random layers reaches the
// accuracy MATH.md §4 measured, in both modes.
func TestLearnAccuracy(t *testing.T) {
	type cfg struct {
		H, d, seeds int
		mode        Mode
		limit       float64
	}
	cases := []cfg{
		{1, 2, 2, Paper, 1e-8}, {1, 8, 2, Paper, 1e-8}, {1, 4, 2, Economy, 1e-8},
		{2, 2, 3, Paper, 1e-8}, {2, 4, 3, Paper, 1e-8}, {2, 8, 1, Paper, 1e-8}, {2, 4, 3, Economy, 1e-8},
		{3, 2, 3, Paper, 1e-6}, {3, 4, 3, Paper, 1e-6}, {3, 8, 2, Paper, 1e-6}, {3, 3, 3, Economy, 1e-6},
		{2, 8, 2, Economy, 1e-8},
	}
	if testing.Short() {
		cases = cases[:7]
	}
	for _, c := range cases {
		var errs []float64
		for s := 0; s < c.seeds; s++ {
			layer := attention.Random(c.H, c.d, uint64(7000+100*c.H+10*c.d+s))
			opt := DefaultOptions(c.H, c.d)
			opt.Mode = c.mode
			opt.Seed = uint64(500 + s)
			res, err := Learn(LayerOracle(layer, 0, 1), opt)
			errs = append(errs, checkRun(t, layer, res, err))
		}
		if m := median(errs); !(m <= c.limit) {
			t.Errorf("H=%d d=%d %v: median relative error %.3g > %.3g (%v)", c.H, c.d, c.mode, m, c.limit, errs)
		}
	}
}

// A layer with a duplicated W recovers its canonical form (the heads
// merged, their v summed); heads that cancel are dropped.
func TestLearnCanonicalises(t *testing.T) {
	const d = 3
	base := attention.Random(2, d, 11)
	extra := attention.Random(1, d, 12)[0]
	dup := attention.Layer{base[0], {W: base[0].W, V: extra.V}, base[1]}
	var neg mat.VecDense
	neg.ScaleVec(-1, base[0].V)
	cancel := attention.Layer{base[0], {W: base[0].W, V: &neg}, base[1]}
	for name, layer := range map[string]attention.Layer{"duplicated": dup, "cancelling": cancel} {
		want := attention.Canonical(layer, 1e-12)
		res, err := Learn(LayerOracle(layer, 0, 1), DefaultOptions(3, d))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Layer) != len(want) || res.Heads != len(want) {
			t.Fatalf("%s: %d heads, canonical form has %d", name, len(res.Layer), len(want))
		}
		if e, _ := attention.RelativeError(res.Layer, want); e > 1e-8 {
			t.Errorf("%s: relative error %.3g", name, e)
		}
		if res.Queries != PaperQueries(3, d) {
			t.Errorf("%s: %d queries, want %d", name, res.Queries, PaperQueries(3, d))
		}
	}
}

// With only an upper bound H0 = H+2 the learner finds H, using the paper's
// count for H0.
func TestLearnUpperBound(t *testing.T) {
	for H := 1; H <= 3; H++ {
		const d = 2
		layer := attention.Random(H, d, uint64(8100+H))
		opt := DefaultOptions(H+2, d)
		opt.UpperBound = true
		opt.Seed = uint64(40 + H)
		res, err := Learn(LayerOracle(layer, 0, 1), opt)
		if err != nil {
			t.Fatalf("H=%d: %v", H, err)
		}
		if len(res.Layer) != H {
			t.Fatalf("H=%d: found %d heads", H, len(res.Layer))
		}
		if e := checkRun(t, layer, res, nil); e > 1e-6 {
			t.Errorf("H=%d: relative error %.3g", H, e)
		}
		if res.Queries != PaperQueries(H+2, d) || res.MaxLength != 2*(H+2)+1 {
			t.Errorf("H=%d: %d queries of length ≤ %d, want %d of ≤ %d", H, res.Queries, res.MaxLength, PaperQueries(H+2, d), 2*(H+2)+1)
		}
	}
}

// With a noisy oracle the error grows linearly in the noise: the log–log
// slope of the median error against ε is about 1.
func TestLearnNoiseSlope(t *testing.T) {
	const H, d, seeds = 2, 2, 3
	eps := []float64{1e-12, 1e-10, 1e-8}
	var lx, ly []float64
	for _, e := range eps {
		var errs []float64
		for s := 0; s < seeds; s++ {
			layer := attention.Random(H, d, uint64(8200+s))
			opt := DefaultOptions(H, d)
			opt.Tolerance = e
			opt.Seed = uint64(60 + s)
			res, err := Learn(LayerOracle(layer, e, uint64(s)), opt)
			if v := checkRun(t, layer, res, err); !math.IsInf(v, 0) {
				errs = append(errs, v)
			}
		}
		if len(errs) == 0 {
			t.Fatalf("ε = %g: every run unresolved", e)
		}
		lx = append(lx, math.Log10(e))
		ly = append(ly, math.Log10(median(errs)))
	}
	// Least-squares slope.
	var mx, my float64
	for i := range lx {
		mx += lx[i] / float64(len(lx))
		my += ly[i] / float64(len(ly))
	}
	var sxy, sxx float64
	for i := range lx {
		sxy += (lx[i] - mx) * (ly[i] - my)
		sxx += (lx[i] - mx) * (lx[i] - mx)
	}
	if slope := sxy / sxx; slope < 0.6 || slope > 1.5 {
		t.Errorf("error against noise: slope %.2f (log10 errors %v)", slope, ly)
	}
}

// Oracles that no layer within the options explains give errors, never a
// layer.
func TestLearnNeverSilentGarbage(t *testing.T) {
	const d = 2
	rng := rand.New(rand.NewPCG(3, 3))
	random := func(*mat.Dense) float64 { return rng.NormFloat64() }
	three := attention.Random(3, d, 77)
	noisy := attention.Random(2, d, 78)
	cases := map[string]struct {
		o   Oracle
		opt Options
	}{
		"random answers":       {random, DefaultOptions(2, d)},
		"bound below H":        {LayerOracle(three, 0, 1), DefaultOptions(1, d)},
		"undeclared noise":     {LayerOracle(noisy, 1e-6, 1), DefaultOptions(2, d)},
		"NaN answers":          {func(*mat.Dense) float64 { return math.NaN() }, DefaultOptions(1, d)},
		"infinite answers":     {func(*mat.Dense) float64 { return math.Inf(1) }, DefaultOptions(1, d)},
		"constant then random": {func(x *mat.Dense) float64 { r, _ := x.Dims(); return float64(r % 3) }, DefaultOptions(2, d)},
	}
	for name, c := range cases {
		res, err := Learn(c.o, c.opt)
		if err == nil {
			t.Errorf("%s: no error, %d heads", name, len(res.Layer))
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: error %v is not a *recovery.Error", name, err)
		}
		if res.Layer != nil {
			t.Errorf("%s: a layer came with the error", name)
		}
	}
}

// In economy mode a fingerprint collision (two heads with the same value
// c·v_h·u_i) is not guessed: the learner queries a link for each
// measurement of that row, and still recovers the layer.
func TestEconomyFallsBackToLinks(t *testing.T) {
	layer, opt := fallbackCase()
	H, d := opt.Heads, opt.Width
	res, err := Learn(LayerOracle(layer, 0, 1), opt)
	if err != nil {
		t.Fatal(err)
	}
	if want := EconomyQueries(H, d) + (d-1)*2*H; res.Queries != want {
		t.Errorf("%d queries, want %d (economy plus %d links)", res.Queries, want, d-1)
	}
	links := 0
	for _, rf := range res.Trace.RFs {
		if rf.Kind == Link && rf.J > 0 {
			links++
			if rf.I != 1 {
				t.Errorf("fallback link %s for row %d, want row 2", rf.Name(), rf.I+1)
			}
		}
	}
	if links != d-1 {
		t.Errorf("%d fallback links, want %d", links, d-1)
	}
	if e := checkRun(t, layer, res, nil); e > 1e-8 {
		t.Errorf("relative error %.3g", e)
	}
	// Paper mode needs no extra query for the same layer.
	opt.Mode = Paper
	res, err = Learn(LayerOracle(layer, 0, 1), opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Queries != PaperQueries(H, d) {
		t.Errorf("paper: %d queries", res.Queries)
	}
	if e := checkRun(t, layer, res, nil); e > 1e-8 {
		t.Errorf("paper: relative error %.3g", e)
	}
}

// fallbackCase returns a layer of H = 2 heads of width d = 3 whose heads
// have equal value fingerprints in row 2, with economy-mode options under
// which the learner sees them so and falls back to a link in every column
// after the first.
func fallbackCase() (attention.Layer, Options) {
	const H, d = 2, 3
	opt := DefaultOptions(H, d)
	opt.Mode = Economy
	opt.Seed = 9
	u := newLearner(source{}, opt).u[1]
	layer := attention.Random(H, d, 90)
	// v_2 = v_1 + w with w ⟂ u_2: equal fingerprints in row 2.
	rng := rand.New(rand.NewPCG(4, 4))
	w := make([]float64, d)
	var wu float64
	for i := range w {
		w[i] = rng.NormFloat64()
		wu += w[i] * u[i]
	}
	v2 := mat.NewVecDense(d, nil)
	for i := range w {
		v2.SetVec(i, layer[0].V.AtVec(i)+w[i]-wu*u[i])
	}
	layer[1].V = v2
	return layer, opt
}

// The trace replays the run: every query maps to its RF and sample, and
// the per-head values of each RF reproduce its answers.
func TestTrace(t *testing.T) {
	const H, d = 2, 3
	layer := attention.Random(H, d, 21)
	for _, mode := range []Mode{Paper, Economy} {
		opt := DefaultOptions(H, d)
		opt.Mode = mode
		res, err := Learn(LayerOracle(layer, 0, 1), opt)
		if err != nil {
			t.Fatal(err)
		}
		tr := res.Trace
		for k, q := range tr.Queries {
			rfi, s, ok := tr.Step(k)
			if !ok || rfi != q.RF || s != q.Sample {
				t.Fatalf("Step(%d) = %d, %d, %v", k, rfi, s, ok)
			}
			rf := tr.RFs[rfi]
			if rf.Query[s] != k || rf.N[s]+1 != float64(q.Length) || rf.F[s] != q.Answer {
				t.Errorf("query %d: RF %s sample %d disagrees", k, rf.Name(), s)
			}
			if got := layer.Output(sequence(rf.A, rf.Z, q.Length-1)); got != q.Answer {
				t.Errorf("query %d: answer %v, layer says %v", k, q.Answer, got)
			}
		}
		if _, _, ok := tr.Step(len(tr.Queries)); ok {
			t.Errorf("Step past the end succeeded")
		}
		for _, rf := range tr.RFs {
			if len(rf.Heads) != len(rf.P) {
				t.Errorf("%s: %d labels for %d poles", rf.Name(), len(rf.Heads), len(rf.P))
			}
			seen := map[int]bool{}
			for _, h := range rf.Heads {
				if h < -1 || h >= len(res.Layer) || (h >= 0 && seen[h]) {
					t.Errorf("%s: labels %v", rf.Name(), rf.Heads)
				}
				seen[h] = true
			}
			for s, n := range rf.N {
				var y float64
				for h, hd := range res.Layer {
					y += mat.Dot(hd.V, mat.NewVecDense(d, rf.Z)) - rf.HeadR[h]*n/(n+math.Exp(rf.HeadP[h]))
				}
				if math.Abs(y-rf.F[s]) > 1e-9*(1+math.Abs(y)) {
					t.Errorf("%s, n = %v: heads give %.15g, answer %.15g", rf.Name(), n, y, rf.F[s])
				}
			}
		}
		// Labels agree with the fitted poles: p of a labelled pole is near
		// the head's p in the final fit.
		for _, rf := range tr.RFs {
			for b, h := range rf.Heads {
				if h >= 0 && math.Abs(rf.P[b]-rf.HeadP[h]) > 1e-3*(1+math.Abs(rf.HeadP[h])) {
					t.Errorf("%s: pole %d (p = %.6g) labelled head %d (p = %.6g)", rf.Name(), b, rf.P[b], h, rf.HeadP[h])
				}
			}
		}
		if c := attention.Canonical(res.Layer, 0); len(c) != len(res.Layer) || c[0].W.At(0, 0) != res.Layer[0].W.At(0, 0) {
			t.Errorf("result not in canonical order")
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	o := LayerOracle(attention.Random(1, 2, 1), 0, 1)
	bad := []Options{
		{Width: 0, Heads: 1}, {Width: MaxWidth + 1, Heads: 1}, {Width: 2, Heads: 0},
		{Width: 2, Heads: MaxHeads + 1}, {Width: 2, Heads: 1, Mode: 7},
		{Width: 2, Heads: 1, Tolerance: math.NaN()}, {Width: 2, Heads: 1, Tolerance: -1},
		{Width: 2, Heads: 1, Spread: math.Inf(1)}, {Width: 2, Heads: 1, MaxError: -1},
	}
	for _, opt := range bad {
		if _, err := Learn(o, opt); err == nil {
			t.Errorf("options %+v accepted", opt)
		}
	}
	if _, err := Learn(nil, DefaultOptions(1, 2)); err == nil {
		t.Errorf("nil oracle accepted")
	}
}

func TestLayerOracleNoise(t *testing.T) {
	layer := attention.Random(2, 3, 1)
	x := sequence([]float64{1, 2, 3}, []float64{0.5, -1, 0}, 3)
	exact := layer.Output(x)
	a, b := LayerOracle(layer, 1e-6, 5), LayerOracle(layer, 1e-6, 5)
	for i := 0; i < 5; i++ {
		ya, yb := a(x), b(x)
		if ya != yb {
			t.Errorf("same seed, different answers %v, %v", ya, yb)
		}
		if d := math.Abs(ya - exact); d == 0 || d > 6e-6*math.Abs(exact) {
			t.Errorf("noisy answer off by %.3g of %.3g", d, exact)
		}
	}
	if y := LayerOracle(layer, 0, 5)(x); y != exact {
		t.Errorf("exact oracle %v, layer %v", y, exact)
	}
}
