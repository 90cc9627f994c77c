package transformer

import (
	"errors"
	"math"
	"math/big"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/recovery"
)

// testPrec is the tests' working precision: the default.
const testPrec = DefaultPrecision

// heldOutSeed is the first seed of the held-out networks. The learner was
// tuned on seeds 1000–1009 and 5000–5299 only.
const heldOutSeed = 9_100_000

// heldOutRuns is how many held-out networks TestHeldOut learns: 100
// natively; under GOOS=js (node), where big.Float arithmetic is several
// times slower, the first 25 of the same list.
func heldOutRuns() int {
	if runtime.GOOS == "js" {
		return 25
	}
	return 100
}

// heldOutShape is the shape of held-out network i: the family of
// FamilyShape.
func heldOutShape(i int) Shape { return FamilyShape(i) }

// learnNet runs Learn on n's oracle with the options for its shape.
func learnNet(t *testing.T, n Network, seed uint64, prec uint) (Result, *Oracle, error) {
	t.Helper()
	o, err := NewOracle(n, prec)
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions(len(n.Heads), n.Width())
	opt.Seed = seed
	opt.Precision = prec
	opt.Residual = n.Residual
	res, err := Learn(o.Query, opt)
	return res, o, err
}

// learnScheduled draws held-out network i of the family from seed and runs
// Learn on its oracle (testPrec) with the default options but for the seed
// and phase A's schedule m.
func learnScheduled(t *testing.T, i int, seed uint64, m recovery.Mode) (Network, Result, *Oracle, error) {
	t.Helper()
	n, err := Random(heldOutShape(i), seed)
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewOracle(n, testPrec)
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions(len(n.Heads), n.Width())
	opt.Seed, opt.Mode = seed, m
	res, err := Learn(o.Query, opt)
	return n, res, o, err
}

// verdict checks one run: a success must be Equivalent to the truth and
// agree with its oracle on 200 held-out sequences of 1…6 tokens to 1e-20
// relative; a failure must be a *ConditionError. It returns the condition
// that failed ("" for a success).
func verdict(t *testing.T, name string, n Network, res Result, o *Oracle, err error, prec uint) string {
	t.Helper()
	if err != nil {
		c := FailedCondition(err)
		if c == "" {
			t.Errorf("%s: an error that names no condition: %v", name, err)
		}
		t.Logf("%s: %v", name, err)
		return c
	}
	if e := Equivalent(n.Canonical(prec), res.Net, 1e-20); e != nil {
		t.Errorf("%s: WRONG network returned: %v", name, e)
	}
	exact := func(X [][]*big.Float) *big.Float {
		y, _ := o.Eval(X)
		return y
	}
	if ag := Agreement(exact, res.Net.Func(prec), n.Width(), 77, 200, 6, prec); !(ag <= 1e-20) {
		t.Errorf("%s: WRONG network returned: held-out sequences differ by %.3g relative", name, ag)
	}
	for _, c := range res.Conditions {
		if !c.Holds {
			t.Errorf("%s: success with condition %s failing: %s", name, c.Name, c.Detail)
		}
	}
	return ""
}

func TestHeldOut(t *testing.T) {
	runs := heldOutRuns()
	counts := map[string]int{}
	for i := 0; i < runs; i++ {
		seed := uint64(heldOutSeed + i)
		sh := heldOutShape(i)
		n, err := Random(sh, seed)
		if err != nil {
			t.Fatal(err)
		}
		res, o, err := learnNet(t, n, seed, testPrec)
		c := verdict(t, "seed "+itoa(seed), n, res, o, err, testPrec)
		if c == "" {
			counts["equivalent"]++
		} else {
			counts["error "+c]++
		}
	}
	t.Logf("%d held-out networks from seed %d: %v", runs, heldOutSeed, counts)
	if counts["equivalent"] < runs*9/10 {
		t.Errorf("only %d of %d runs recovered the network", counts["equivalent"], runs)
	}
}

// TestEconomy learns held-out networks with phase A on the economy
// schedule.
func TestEconomy(t *testing.T) {
	const seed0 = 9_250_000
	runs := 16
	if runtime.GOOS == "js" {
		runs = 4
	}
	ok := 0
	for i := 0; i < runs; i++ {
		seed := uint64(seed0 + i)
		n, res, o, err := learnScheduled(t, i, seed, recovery.Economy)
		if verdict(t, "economy seed "+itoa(seed), n, res, o, err, testPrec) == "" {
			ok++
			if res.HeadQueries < 2*recovery.EconomyQueries(len(n.Heads), n.Width()) {
				t.Errorf("seed %d: %d head queries, fewer than 2·%d", seed, res.HeadQueries, recovery.EconomyQueries(len(n.Heads), n.Width()))
			}
		}
	}
	if ok < runs-1 {
		t.Errorf("only %d of %d economy runs recovered the network", ok, runs)
	}
}

// TestVariants learns held-out networks with a linear readout, a residual,
// and both.
func TestVariants(t *testing.T) {
	const seed0 = 9_200_000
	runs := 12
	if runtime.GOOS == "js" {
		runs = 3
	}
	ok := 0
	for i := 0; i < runs; i++ {
		seed := uint64(seed0 + i)
		sh := heldOutShape(i)
		sh.Readout = i%3 != 1
		sh.Residual = i%3 != 0
		if sh.Residual {
			sh.Dim = sh.Width
		}
		n, err := Random(sh, seed)
		if err != nil {
			t.Fatal(err)
		}
		res, o, err := learnNet(t, n, seed, testPrec)
		if verdict(t, "variant seed "+itoa(seed), n, res, o, err, testPrec) == "" {
			ok++
			if n.Readout != nil && res.Folded {
				t.Errorf("seed %d: a readout folded into units", seed)
			}
		}
	}
	if ok < runs-1 {
		t.Errorf("only %d of %d variant runs recovered the network", ok, runs)
	}
}

func itoa(x uint64) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + x%10)}, b...)
		x /= 10
		if x == 0 {
			return string(b)
		}
	}
}

// TestEvenFFN: units in ± pairs make F even, the odd part vanishes, and
// no head can be found (C1).
func TestEvenFFN(t *testing.T) {
	n, err := Random(Shape{Heads: 2, Width: 2, Dim: 3, Units: 2}, 9_300_001)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 2; k++ {
		neg := make([]float64, len(n.Units[k].B))
		for j, b := range n.Units[k].B {
			neg[j] = -b
		}
		n.Units = append(n.Units, Unit{A: n.Units[k].A, B: neg})
	}
	_, _, err = learnNet(t, n, 1, testPrec)
	if FailedCondition(err) != C1 {
		t.Fatalf("even FFN: want a C1 error, got %v", err)
	}
	t.Log(err)
}

// sharedHyperplane returns a network of two heads (d = 2, m = 3) whose
// units 0 and 1 share a single-token hyperplane (sharedIn).
func sharedHyperplane(t *testing.T, seed uint64, c float64) Network {
	t.Helper()
	return sharedIn(t, Shape{Heads: 2, Width: 2, Dim: 3, Units: 3}, seed, c)
}

// sharedIn returns a random network of the shape (m > d) whose units 0
// and 1 share a single-token hyperplane: b_1 = c·b_0 + ν with
// (Σ_h V_h)ν = 0, so (Σ_h V_h) b_1 = c·(Σ_h V_h) b_0, while V_1 b_1 is not
// parallel to V_1 b_0. c = 0 makes unit 1 invisible on single tokens.
func sharedIn(t *testing.T, sh Shape, seed uint64, c float64) Network {
	t.Helper()
	n, err := Random(sh, seed)
	if err != nil {
		t.Fatal(err)
	}
	d, m := sh.Width, sh.Dim
	S := mat.NewDense(d, m, nil)
	for _, h := range n.Heads {
		for i := 0; i < d; i++ {
			for j := 0; j < m; j++ {
				S.Set(i, j, S.At(i, j)+h.V[i][j])
			}
		}
	}
	var svd mat.SVD
	if !svd.Factorize(S, mat.SVDFull) {
		t.Fatal("SVD failed")
	}
	var v mat.Dense
	svd.VTo(&v)
	b := make([]float64, m)
	for j := range b {
		b[j] = c*n.Units[0].B[j] + v.At(j, m-1) // the last right singular vector spans the null space
	}
	n.Units[1].B = b
	return n
}

// TestSharedHyperplane: two units sharing a single-token hyperplane kink at
// the same point of every line of single tokens; unchecked, the learner
// would return them as one unit. It must say C2.
func TestSharedHyperplane(t *testing.T) {
	for i, c := range []float64{0.7, -1.3, 2, -0.5} {
		n := sharedHyperplane(t, uint64(9_300_010+i), c)
		if i >= 2 {
			n = sharedIn(t, Shape{Heads: 2, Width: 3, Dim: 4, Units: 4}, uint64(9_300_010+i), c)
		}
		_, _, err := learnNet(t, n, uint64(1+i), testPrec)
		if FailedCondition(err) != C2 {
			t.Fatalf("shared hyperplane (c = %v): want a C2 error, got %v", c, err)
		}
		t.Log(err)
	}
}

// TestInvisibleUnit: a unit with (Σ_h V_h) b_k = 0 never kinks on single
// tokens (C2).
func TestInvisibleUnit(t *testing.T) {
	n := sharedHyperplane(t, 9_300_020, 0)
	_, _, err := learnNet(t, n, 3, testPrec)
	if FailedCondition(err) != C2 {
		t.Fatalf("invisible unit: want a C2 error, got %v", err)
	}
	t.Log(err)
}

// TestParallelUnits: units with b_1 = c·b_0, c > 0, are one unit up to
// equivalence; the learner returns one, and it is Equivalent.
func TestParallelUnits(t *testing.T) {
	n, err := Random(Shape{Heads: 2, Width: 3, Dim: 3, Units: 3}, 9_300_030)
	if err != nil {
		t.Fatal(err)
	}
	n.Units[1].A = math.Abs(n.Units[1].A) * math.Copysign(1, n.Units[0].A)
	for j := range n.Units[1].B {
		n.Units[1].B[j] = 0.5 * n.Units[0].B[j]
	}
	res, o, err := learnNet(t, n, 4, testPrec)
	if verdict(t, "parallel units", n, res, o, err, testPrec) != "" {
		t.Fatal("parallel units: not learned")
	}
	if len(res.Net.Units) != 2 {
		t.Errorf("parallel units: %d units, want 2", len(res.Net.Units))
	}
}

// TestLowPrecision: 64 bits cannot carry local solves at ε = 1e-6 (C4).
func TestLowPrecision(t *testing.T) {
	n, err := Random(Shape{Heads: 1, Width: 2, Dim: 2, Units: 2}, 9_300_040)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = learnNet(t, n, 1, 64)
	if FailedCondition(err) != C4 {
		t.Fatalf("64 bits: want a C4 error, got %v", err)
	}
}

// TestEquivalent checks that Equivalent accepts the equivalences of
// MATH.md §3.7 and rejects small changes.
func TestEquivalent(t *testing.T) {
	base, err := Random(Shape{Heads: 2, Width: 2, Dim: 3, Units: 3}, 9_300_050)
	if err != nil {
		t.Fatal(err)
	}
	clone := func() Network {
		c := base
		c.Heads = nil
		for _, h := range base.Heads {
			c.Heads = append(c.Heads, Head{W: copyMat(h.W), V: copyMat(h.V)})
		}
		c.Units = nil
		for _, u := range base.Units {
			c.Units = append(c.Units, Unit{A: u.A, B: append([]float64(nil), u.B...)})
		}
		return c
	}
	same := map[string]Network{}
	// Values in another basis: V_h → V_h G, b_k → G⁻¹ b_k (G diagonal).
	g := []float64{2, -0.5, 4}
	n := clone()
	for _, h := range n.Heads {
		for i := range h.V {
			for j := range h.V[i] {
				h.V[i][j] *= g[j]
			}
		}
	}
	for _, u := range n.Units {
		for j := range u.B {
			u.B[j] /= g[j]
		}
	}
	same["basis"] = n
	// Units rescaled and permuted.
	n = clone()
	n.Units[0].A *= 4
	for j := range n.Units[0].B {
		n.Units[0].B[j] /= 4
	}
	n.Units[0], n.Units[2] = n.Units[2], n.Units[0]
	same["rescaled, permuted"] = n
	// Heads permuted, and one split into two with the same W.
	n = clone()
	n.Heads[0], n.Heads[1] = n.Heads[1], n.Heads[0]
	half := Head{W: copyMat(n.Heads[0].W), V: copyMat(n.Heads[0].V)}
	for i := range half.V {
		for j := range half.V[i] {
			half.V[i][j] *= 0.5 // exact, so the halves sum to V bit for bit
			n.Heads[0].V[i][j] *= 0.5
		}
	}
	n.Heads = append(n.Heads, half)
	same["heads permuted, split"] = n
	// A dead unit, and a unit split into two parallel ones.
	n = clone()
	n.Units = append(n.Units, Unit{A: 0, B: []float64{1, 2, 3}})
	n.Units[1].A /= 2
	n.Units = append(n.Units, n.Units[1])
	same["dead, split unit"] = n
	for name, n := range same {
		if err := Equivalent(base.Canonical(testPrec), n.Canonical(testPrec), 1e-25); err != nil {
			t.Errorf("%s: not equivalent: %v", name, err)
		}
	}
	// An opposite pair is a linear term: a·ReLU(b·y) − a·ReLU(−b·y) = a·b·y.
	pair := clone()
	pair.Units = pair.Units[:1]
	pair.Units[0].A = 2 // a power of two: a·b is exact
	u := pair.Units[0]
	neg := make([]float64, len(u.B))
	w := make([]float64, len(u.B))
	for j := range u.B {
		neg[j] = -u.B[j]
		w[j] = u.A * u.B[j]
	}
	pair.Units = append(pair.Units, Unit{A: -u.A, B: neg})
	lin := clone()
	lin.Units = nil
	lin.Readout = w
	if err := Equivalent(pair.Canonical(testPrec), lin.Canonical(testPrec), 1e-25); err != nil {
		t.Errorf("opposite pair against its linear term: %v", err)
	}

	differ := map[string]Network{}
	n = clone()
	n.Units[1].B[2] *= 1 + 1e-15
	differ["b nudged by 1e-15"] = n
	n = clone()
	n.Units[2].A = -n.Units[2].A
	differ["sign flipped"] = n
	n = clone()
	n.Heads[1].W[0][1] += 1e-12
	differ["W nudged by 1e-12"] = n
	n = clone()
	n.Units = n.Units[:2]
	differ["unit dropped"] = n
	n = clone()
	n.Readout = []float64{0, 1e-10, 0}
	differ["readout added"] = n
	for name, n := range differ {
		err := Equivalent(base.Canonical(testPrec), n.Canonical(testPrec), 1e-20)
		if err == nil {
			t.Errorf("%s: equivalent", name)
		}
		ag := Agreement(base.Canonical(testPrec).Func(testPrec), n.Canonical(testPrec).Func(testPrec), 2, 5, 200, 6, testPrec)
		if !(ag > 1e-20) {
			t.Errorf("%s: functionally the same to %.3g", name, ag)
		}
	}
}

func copyMat(x [][]float64) [][]float64 {
	out := make([][]float64, len(x))
	for i := range x {
		out[i] = append([]float64(nil), x[i]...)
	}
	return out
}

// TestBadInput: invalid options, networks and sequences are errors, never
// panics.
func TestBadInput(t *testing.T) {
	n, err := Random(Shape{Heads: 1, Width: 2, Dim: 2, Units: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewOracle(n, testPrec)
	if err != nil {
		t.Fatal(err)
	}
	bad := []Options{
		{Heads: 0, Width: 2},
		{Heads: 1, Width: 0},
		{Heads: MaxHeads + 1, Width: 2},
		{Heads: 1, Width: 2, Precision: 10},
		{Heads: 1, Width: 2, Step: math.NaN()},
		{Heads: 1, Width: 2, Mode: recovery.Mode(7)},
	}
	for _, opt := range bad {
		if _, err := Learn(o.Query, opt); err == nil || FailedCondition(err) != "" {
			t.Errorf("options %+v: want a plain error, got %v", opt, err)
		}
	}
	if _, err := Learn(nil, DefaultOptions(1, 2)); err == nil {
		t.Error("nil oracle accepted")
	}
	nan := n
	nan.Units = []Unit{{A: math.NaN(), B: []float64{1, 2}}}
	if _, err := NewOracle(nan, testPrec); err == nil {
		t.Error("NaN unit accepted")
	}
	res := n
	res.Residual = true
	res.Heads = []Head{{W: n.Heads[0].W, V: [][]float64{{1, 2, 3}, {4, 5, 6}}}}
	res.Units = []Unit{{A: 1, B: []float64{1, 2, 3}}}
	if err := res.Validate(); err == nil {
		t.Error("a residual with m ≠ d accepted")
	}
	if _, err := o.Eval(nil); err == nil {
		t.Error("empty sequence accepted")
	}
	if _, err := o.Eval([][]*big.Float{{big.NewFloat(1)}}); err == nil {
		t.Error("token of the wrong width accepted")
	}
	good := n.Canonical(testPrec)
	broken := good
	broken.Linear = broken.Linear[:1]
	if Equivalent(good, broken, 1e-20) == nil {
		t.Error("a malformed canonical network accepted")
	}
	if ag := Agreement(good.Func(testPrec), good.Func(testPrec), 2, 1, 10, 0, testPrec); !math.IsNaN(ag) {
		t.Errorf("Agreement with maxLen 0: %v, want NaN", ag)
	}
	if _, err := Random(Shape{Heads: 0, Width: 2, Dim: 2}, 1); err == nil {
		t.Error("zero heads accepted")
	}
	// An oracle that is no such network: constant answers.
	one := big.NewFloat(1.25)
	_, err = Learn(func([][]*big.Float) *big.Float { return one }, DefaultOptions(1, 2))
	if err == nil || FailedCondition(err) == "" {
		t.Errorf("constant oracle: want a condition error, got %v", err)
	}
	var ce *ConditionError
	if !errors.As(err, &ce) || ce.Error() == "" {
		t.Errorf("constant oracle: %v", err)
	}
}

// TestTrace checks the record a scene replays: every oracle call belongs
// to exactly one step, in order, and the counts add up.
func TestTrace(t *testing.T) {
	n, err := Random(Shape{Heads: 2, Width: 3, Dim: 4, Units: 5}, 9_300_060)
	if err != nil {
		t.Fatal(err)
	}
	res, o, err := learnNet(t, n, 6, testPrec)
	if err != nil {
		t.Fatal(err)
	}
	next := 0
	kinds := map[StepKind]int{}
	for _, s := range res.Steps {
		kinds[s.Kind]++
		if s.Calls > 0 {
			if s.First != next {
				t.Fatalf("step %+v starts at call %d, want %d", s, s.First, next)
			}
			next += s.Calls
		}
	}
	if next != res.Queries || res.Queries != o.Calls() {
		t.Errorf("steps cover %d calls, result says %d, oracle answered %d", next, res.Queries, o.Calls())
	}
	if res.HeadQueries != 2*res.Heads.Queries {
		t.Errorf("head queries %d, want twice recovery's %d", res.HeadQueries, res.Heads.Queries)
	}
	if res.HeadQueries != 2*recovery.PaperQueries(2, 3) {
		t.Errorf("head queries %d, want 2·%d", res.HeadQueries, recovery.PaperQueries(2, 3))
	}
	if res.MaxLength != o.Longest() || res.MaxLength != 5 {
		t.Errorf("longest query %d (oracle %d), want 2H+1 = 5", res.MaxLength, o.Longest())
	}
	if kinds[UnitFound] != len(res.Net.Units) || len(res.Kinks) != len(res.Net.Units) {
		t.Errorf("%d unit steps, %d kinks, %d units", kinds[UnitFound], len(res.Kinks), len(res.Net.Units))
	}
	if kinds[Probe] < len(res.Net.Units)+1 {
		t.Errorf("%d local solves for %d units", kinds[Probe], len(res.Net.Units))
	}
	names := map[string]bool{}
	for _, c := range res.Conditions {
		names[c.Name] = c.Holds
	}
	for _, c := range []string{C1, C2, C3, C4} {
		if !names[c] {
			t.Errorf("condition %s not reported as holding: %+v", c, res.Conditions)
		}
	}
	t.Logf("steps %v, queries %d (heads %d, units %d)", kinds, res.Queries, res.HeadQueries, res.UnitQueries)
}

// TestHostileOracles: oracles that are no such network at the run's
// precision — answers rounded to float64, noisy, infinite, huge, or of a
// different network on negated tokens — end in a named condition error or
// in a network that really agrees with them, never in a panic or a wrong
// network.
func TestHostileOracles(t *testing.T) {
	n, err := Random(Shape{Heads: 2, Width: 2, Dim: 3, Units: 3}, 9_300_070)
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewOracle(n, testPrec)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Random(Shape{Heads: 2, Width: 2, Dim: 3, Units: 3}, 9_300_071)
	if err != nil {
		t.Fatal(err)
	}
	o2, err := NewOracle(other, testPrec)
	if err != nil {
		t.Fatal(err)
	}
	a := arith{testPrec}
	calls := 0
	hostile := map[string]OracleFunc{
		"float64 answers": func(X [][]*big.Float) *big.Float {
			y, _ := o.Eval(X)
			return a.f(float(y))
		},
		"noise 1e-30": func(X [][]*big.Float) *big.Float {
			calls++
			y, _ := o.Eval(X)
			return a.add(y, a.f(1e-30*float64(calls%7-3)))
		},
		"infinite": func(X [][]*big.Float) *big.Float { return new(big.Float).SetInf(false) },
		"huge": func(X [][]*big.Float) *big.Float {
			y, _ := o.Eval(X)
			return a.mul(y, a.f(1e300))
		},
		"two networks": func(X [][]*big.Float) *big.Float {
			if X[len(X)-1][0].Sign() < 0 {
				y, _ := o2.Eval(X)
				return y
			}
			y, _ := o.Eval(X)
			return y
		},
	}
	for name, f := range hostile {
		res, err := Learn(f, DefaultOptions(2, 2))
		if err != nil {
			if FailedCondition(err) == "" {
				t.Errorf("%s: an error naming no condition: %v", name, err)
			}
			t.Logf("%s: %v", name, err)
			continue
		}
		if ag := Agreement(f, res.Net.Func(testPrec), 2, 78, 100, 6, testPrec); !(ag <= 1e-20) {
			t.Errorf("%s: a network returned that misses the oracle by %.3g", name, ag)
		} else {
			t.Logf("%s: a network that agrees to %.3g", name, ag)
		}
	}
}

// TestFrugalPhaseA learns held-out networks with phase A on the frugal
// schedule: as many recovered as with economy, with no more head queries
// in total (measured 2026-12-03: 6/6 both, 252 head queries against 268).
func TestFrugalPhaseA(t *testing.T) {
	const seed0 = 9_250_000
	runs := 6
	if runtime.GOOS == "js" {
		runs = 2
	}
	ok := map[recovery.Mode]int{}
	queries := map[recovery.Mode]int{}
	for _, m := range []recovery.Mode{recovery.Economy, recovery.Frugal} {
		for i := 0; i < runs; i++ {
			seed := uint64(seed0 + i)
			n, res, o, err := learnScheduled(t, i, seed, m)
			if verdict(t, m.String()+" seed "+itoa(seed), n, res, o, err, testPrec) == "" {
				ok[m]++
			}
			queries[m] += res.HeadQueries
		}
	}
	if ok[recovery.Frugal] < ok[recovery.Economy] {
		t.Errorf("frugal phase A recovered %d of %d networks, economy %d", ok[recovery.Frugal], runs, ok[recovery.Economy])
	}
	if queries[recovery.Frugal] > queries[recovery.Economy] {
		t.Errorf("frugal phase A made %d head queries, economy %d", queries[recovery.Frugal], queries[recovery.Economy])
	}
}
