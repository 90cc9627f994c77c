package link

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
	"headlab/numerics/recovery"
)

// randomState draws a valid state: sizes anywhere in range, lists sometimes
// the seed's and sometimes arbitrary values in range.
func randomState(rng *rand.Rand) State {
	s := Default()
	s.Scene = Scenes[rng.IntN(len(Scenes))]
	if s.Scene == "recovery" && rng.IntN(2) == 0 {
		s.Prec = MinPrecision + rng.IntN(MaxPrecision-MinPrecision+1)
	}
	s.H = 1 + rng.IntN(HeadLimit(s))
	s.D = 1 + rng.IntN(WidthLimit(s.Scene))
	s.N = MinTokens + rng.IntN(MaxTokens-MinTokens+1)
	s.Seed = rng.Uint64N(MaxSeed + 1)
	s.Heat = rng.IntN(s.H + 1)
	s.Mode = recovery.Modes()[rng.IntN(len(recovery.Modes()))]
	s.Step = rng.IntN(1 << 20)
	s.Noise = []float64{0, 1e-6, 0.1, rng.Float64() * 0.1}[rng.IntN(4)]
	s.Theme = []Theme{Auto, Light, Dark}[rng.IntN(3)]
	s.Present = rng.IntN(2) == 1
	s.Embed = rng.IntN(2) == 1
	s.Tour = rng.IntN(MaxTour + 1)
	for _, p := range Panels {
		if rng.IntN(3) == 0 {
			s.Hide = append(s.Hide, p)
		}
	}
	s.M = 1 + rng.IntN(8)
	s.Units = 1 + rng.IntN(TransformerUnits)
	s.Readout = rng.IntN(2) == 1
	if s.Scene == "transformer" {
		s.M = 1 + rng.IntN(TransformerDim)
		if s.Resid = rng.IntN(2) == 1; s.Resid {
			s.M = s.D
		}
	}
	s.K = 1 + rng.IntN(15)
	s.Keys = []experiment.Keys{experiment.RandomKeys, experiment.SharedKeys}[rng.IntN(2)]
	s.Src = experiment.Sources()[rng.IntN(len(experiment.Sources()))]
	s.View = []View{Steps, Result, Sweep, Modes}[rng.IntN(4)]
	s.Dup = rng.IntN(s.H + 1)
	s.Cancel = rng.IntN(2) == 1
	if rng.IntN(2) == 0 {
		s.H0 = s.H + rng.IntN(HeadLimit(s)-s.H+1)
	}
	s.Bias = rng.IntN(2) == 1
	s.Tok, s.W, s.Val = Defaults(s)
	s.QBias, s.Const = DefaultBiases(s)
	s.Q = DefaultQuery(s)
	lists := [][]float64{s.Tok, s.W, s.Val, s.Q}
	if s.Bias {
		lists = append(lists, s.QBias, s.Const)
	}
	for _, l := range lists {
		if rng.IntN(2) == 0 {
			continue
		}
		for i := range l {
			switch rng.IntN(4) {
			case 0:
				l[i] = (rng.Float64()*2 - 1) * MaxCoord
			case 1:
				l[i] = math.Round(rng.NormFloat64()*1000) / 1000
			case 2:
				l[i] = rng.NormFloat64() * 1e-300
			}
		}
	}
	return s
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 11))
	for i := 0; i < 500; i++ {
		s := randomState(rng)
		if err := s.Validate(); err != nil {
			t.Fatalf("random state invalid: %v", err)
		}
		link := s.Link()
		got, notes := Parse(link)
		if len(notes) > 0 {
			t.Fatalf("link %s gave notices %v", link, notes)
		}
		if !got.Equal(s) {
			t.Fatalf("round trip %d changed the state:\nlink %s\nwant %+v\ngot  %+v", i, link, s, got)
		}
		if again := got.Link(); again != link {
			t.Fatalf("link not stable: %s then %s", link, again)
		}
	}
}

func TestDefaultLinkIsShortAndReadable(t *testing.T) {
	got := Default().Link()
	if want := "#v=1&scene=attention&H=3&d=2&seed=1"; got != want {
		t.Fatalf("default link %q, want %q", got, want)
	}
	s, _ := Default().With("seed", "7")
	if got := s.Link(); got != "#v=1&scene=attention&H=3&d=2&seed=7" {
		t.Fatalf("seed-only change gives %q", got)
	}
}

func TestHostileLinks(t *testing.T) {
	cases := []struct {
		link string
		key  string // the key a notice must name ("" for a general notice)
	}{
		{"#v=1&H=NaN", "H"},
		{"#H=1e308", "H"},
		{"#N=-5", "N"},
		{"#d=1000000", "d"},
		{"#H=0", "H"},
		{"#scene=<script>alert(1)</script>", "scene"},
		{"#seed=-1", "seed"},
		{"#seed=99999999999999999999999", "seed"},
		{"#noise=Inf", "noise"},
		{"#noise=-0.5", "noise"},
		{"#tok=1,2,3", "tok"},
		{"#tok=" + strings.Repeat("NaN,", 11) + "NaN", "tok"},
		{"#W=" + strings.Repeat("1e308,", 11) + "1e308", "W"},
		{"#héad=ü&H=٣", "H"},
		{"#%zz=1", "%zz"},
		{"#v=99", "v"},
		{"#present=maybe", "present"},
		{"#tour=13", "tour"},
		{"#tour=-1", "tour"},
		{"#H=2&heat=5", "heat"},
		{"#hide=intro,<b>x</b>,controls", "hide"},
		{"#scene=transformer&H=4", "H"},
		{"#scene=transformer&d=5", "d"},
		{"#scene=transformer&m=7", "m"},
		{"#scene=transformer&K=9", "K"},
		{"#scene=transformer&K=0", "K"},
		{"#scene=transformer&resid=1&d=3&m=2", "m"},
		{"#scene=transformer&readout=2", "readout"},
		{"#" + strings.Repeat("garbage&=", 1200), ""},
		{"#" + strings.Repeat("x", MaxLength+10), ""},
	}
	for _, c := range cases {
		s, notes := Parse(c.link)
		if err := s.Validate(); err != nil {
			t.Errorf("%.40q: state outside the schema: %v", c.link, err)
		}
		if len(notes) == 0 {
			t.Errorf("%.40q: no notice", c.link)
			continue
		}
		found := false
		for _, n := range notes {
			if n.Key == c.key || (c.key == "" && n.Message != "") {
				found = true
			}
			if len([]rune(n.Value)) > 41 || len([]rune(n.Key)) > 41 {
				t.Errorf("%.40q: notice carries %d runes of user text", c.link, len(n.Value))
			}
		}
		if !found {
			t.Errorf("%.40q: no notice names %q: %v", c.link, c.key, notes)
		}
		if len(notes) > maxNotices+1 {
			t.Errorf("%.40q: %d notices", c.link, len(notes))
		}
	}
}

func TestClampingKeepsTheNearestValue(t *testing.T) {
	s, _ := Parse("#H=1e308&N=1&d=17&noise=1")
	if s.H != MaxHeads || s.N != MinTokens || s.D != WidthLimit("attention") || s.Noise != 0.1 {
		t.Fatalf("clamped to H=%d N=%d d=%d noise=%v", s.H, s.N, s.D, s.Noise)
	}
	s, _ = Parse("#tok=1000,-1000,0,1,2,3,4,5,6,7,8,9")
	if s.Tok[0] != MaxCoord || s.Tok[1] != -MaxCoord || s.Tok[3] != 1 {
		t.Fatalf("tok clamped to %v", s.Tok[:4])
	}
}

func TestWithKeepsWhatRemains(t *testing.T) {
	s := Default()
	s.Tok[0], s.W[0] = 0.123, -4.5
	query := append([]float64(nil), s.Tok[(s.N-1)*s.D:]...)

	more, notes := s.With("N", "9")
	if len(notes) != 0 || more.N != 9 || more.Tok[0] != 0.123 {
		t.Fatalf("adding tokens: N=%d tok[0]=%v notes %v", more.N, more.Tok[0], notes)
	}
	if got := more.Tok[(more.N-1)*more.D:]; got[0] != query[0] || got[1] != query[1] {
		t.Fatalf("query moved from %v to %v", query, got)
	}
	fewer, _ := more.With("N", "6")
	if !fewer.Equal(s) {
		t.Fatalf("adding then removing tokens does not restore the state")
	}
	if s.Tok[0] != 0.123 {
		t.Fatal("With changed its receiver")
	}
	h, _ := s.With("H", "1")
	if h.W[0] != -4.5 || h.Heat != 1 || len(h.W) != 4 {
		t.Fatalf("fewer heads: %v heat %d", h.W, h.Heat)
	}
	bad, notes := s.With("H", "lots")
	if len(notes) != 1 || !bad.Equal(s) {
		t.Fatalf("bad value: notes %v", notes)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestLayerAndSequence(t *testing.T) {
	s := Default()
	l, X := s.Layer(), s.Sequence()
	if len(l) != s.H || l.Width() != s.D {
		t.Fatalf("layer of %d heads, width %d", len(l), l.Width())
	}
	if r, c := X.Dims(); r != s.N || c != s.D {
		t.Fatalf("sequence %d×%d", r, c)
	}
	if y := l.Output(X); math.IsNaN(y) {
		t.Fatal("default layer gives NaN")
	}
	// Lists are copied, not shared.
	l[0].W.Set(0, 0, 99)
	if s.W[0] == 99 {
		t.Fatal("Layer shares memory with the state")
	}
}

func FuzzParse(f *testing.F) {
	f.Add("#v=1&scene=attention&H=3&d=2&seed=7")
	f.Add("#H=NaN&d=1e308&N=-1&tok=" + strconv.Itoa(1<<30))
	f.Add("#%ff&&==&H=8&d=16&N=64&W=1")
	f.Add("#v=1&scene=transformer&H=3&d=4&m=9&K=12&resid=1&readout=1&prec=100&step=7")
	f.Fuzz(func(t *testing.T, link string) {
		s, notes := Parse(link)
		if err := s.Validate(); err != nil {
			t.Fatalf("state outside the schema: %v", err)
		}
		if len(notes) > maxNotices+1 {
			t.Fatalf("%d notices", len(notes))
		}
		again, more := Parse(s.Link())
		if len(more) != 0 || !again.Equal(s) {
			t.Fatalf("the parsed state does not round-trip: %v", more)
		}
	})
}

func TestValuesHaveEveryKey(t *testing.T) {
	s := Default()
	m := s.Values()
	for _, f := range Schema() {
		if _, ok := m[f.Key]; !ok {
			t.Errorf("Values lacks %q", f.Key)
		}
	}
	if m["H"] != 3 || m["scene"] != "attention" || m["present"] != false || m["seed"] != uint64(1) {
		t.Fatalf("Values = %v", m)
	}
	if len(Fields()) != len(Schema()) {
		t.Fatal("Fields and Schema differ")
	}
}

func TestHideKeepsPanelOrder(t *testing.T) {
	s, notes := Parse("#hide=export,intro,intro,controls")
	if len(notes) != 0 || strings.Join(s.Hide, ",") != "intro,controls,export" {
		t.Fatalf("hide = %v, notices %v", s.Hide, notes)
	}
	if !strings.Contains(s.Link(), "hide=intro,controls,export") {
		t.Fatalf("link %s", s.Link())
	}
}

// TestREADMEListsEveryKey keeps the README's table of link keys honest.
func TestREADMEListsEveryKey(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Schema() {
		if !strings.Contains(string(b), "`"+f.Key+"`") {
			t.Errorf("README.md does not mention the link key %q", f.Key)
		}
	}
}

func TestTrueLayerCanonicalisesToTheLayer(t *testing.T) {
	s, _ := Parse("#v=1&scene=recovery&H=3&d=3&seed=4&dup=2&cancel=1")
	l := s.Recovery().TrueLayer()
	if len(l) != 3+2+2 {
		t.Fatalf("true layer has %d heads, want 7", len(l))
	}
	plain, _ := Parse("#v=1&scene=recovery&H=3&d=3&seed=4")
	got := attention.Canonical(l, 1e-9)
	want := attention.Canonical(plain.Recovery().TrueLayer(), 1e-9)
	if e, err := attention.RelativeError(got, want); err != nil || e > 1e-15 {
		t.Fatalf("canonical forms differ by %v (%v)", e, err)
	}
	if opt := s.Recovery().Options(l); opt.Heads != 3 || opt.UpperBound {
		t.Fatalf("options ask for %d heads (bound %v)", opt.Heads, opt.UpperBound)
	}
}

// TestValidateRejects checks that Validate, which reads the schema's ranges
// and bounds instead of restating them, still refuses each way out of it.
func TestValidateRejects(t *testing.T) {
	for name, spoil := range map[string]func(*State){
		"heat above H":        func(s *State) { s.Heat = s.H + 1 },
		"d above the scene's": func(s *State) { s.D = WidthLimit(s.Scene) + 1 },
		"H0 below H":          func(s *State) { s.H0 = s.H - 1 },
		"dup above H":         func(s *State) { s.Dup = s.H + 1 },
		"NaN token":           func(s *State) { s.Tok[0] = math.NaN() },
		"W too short":         func(s *State) { s.W = s.W[1:] },
		"value beyond range":  func(s *State) { s.Val[0] = MaxParam * 2 },
		"hide out of order":   func(s *State) { s.Hide = []string{Panels[1], Panels[0]} },
		"unknown scene":       func(s *State) { s.Scene = "<b>" },
		"noise above maximum": func(s *State) { s.Noise = MaxNoise * 2 },
		"seed above maximum":  func(s *State) { s.Seed = MaxSeed + 1 },
	} {
		s := Default()
		spoil(&s)
		if err := s.Validate(); err == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
	if err := Default().Validate(); err != nil {
		t.Fatalf("the default state: %v", err)
	}
}

func TestFieldsFollowTheState(t *testing.T) {
	max := func(s State, key string) float64 {
		for _, f := range s.Fields() {
			if f["key"] == key {
				return f["max"].(float64)
			}
		}
		t.Fatalf("no field %s", key)
		return 0
	}
	s := Default()
	if got := max(s, "d"); got != float64(WidthLimit("attention")) {
		t.Errorf("attention: d up to %v", got)
	}
	s.Scene = "atoms"
	if got := max(s, "d"); got != MaxWidth {
		t.Errorf("atoms: d up to %v", got)
	}
	s.H = 2
	if got := max(s, "heat"); got != 2 {
		t.Errorf("heat up to %v with H = 2", got)
	}
}

func TestPrecisionWidensTheHeads(t *testing.T) {
	s, notes := Parse("#v=1&scene=recovery&H=10&d=2&prec=384&step=141")
	if len(notes) != 0 || s.H != 10 || s.Prec != 384 || s.Step != 141 {
		t.Fatalf("H = %d, prec = %d, step = %d, notices %v", s.H, s.Prec, s.Step, notes)
	}
	s, notes = Parse("#v=1&scene=recovery&H=10")
	if s.H != MaxHeads || len(notes) != 1 || !strings.Contains(notes[0].Message, "extended precision") {
		t.Fatalf("float64 H = 10: H = %d, notices %v", s.H, notes)
	}
	s, notes = Parse("#v=1&scene=attention&H=1e308")
	if s.H != MaxHeads || len(notes) != 1 {
		t.Fatalf("H = 1e308 gives H = %d and notices %v; want one notice", s.H, notes)
	}
	s, notes = Parse("#v=1&scene=recovery&prec=8")
	if s.Prec != MinPrecision || len(notes) != 1 {
		t.Fatalf("prec = 8 gives %d, notices %v", s.Prec, notes)
	}
	if s, _ := s.With("prec", "0"); s.Prec != 0 {
		t.Fatalf("prec back to float64: %d", s.Prec)
	}
	wide, _ := Parse("#v=1&scene=recovery&H=12&prec=256")
	if narrow, _ := wide.With("prec", "0"); narrow.H != MaxHeads || narrow.Validate() != nil {
		t.Fatalf("float64 again keeps H = %d: %v", narrow.H, narrow.Validate())
	}
}

// TestTransformerLimits checks that each of the transformer scene's limits
// clamps with a notice naming it, and that its keys leave the other scenes
// alone.
func TestTransformerLimits(t *testing.T) {
	cases := []struct {
		link, key, says string
		got             func(State) int
		want            int
	}{
		{"#scene=transformer&H=5", "H", "H up to 3", func(s State) int { return s.H }, TransformerHeads},
		{"#scene=transformer&d=9", "d", "d up to 4", func(s State) int { return s.D }, TransformerWidth},
		{"#scene=transformer&m=8", "m", "m up to 6", func(s State) int { return s.M }, TransformerDim},
		{"#scene=transformer&K=100", "K", "maximum 8", func(s State) int { return s.Units }, TransformerUnits},
		{"#scene=transformer&d=3&m=5&resid=1", "m", "m = d = 3", func(s State) int { return s.M }, 3},
	}
	for _, c := range cases {
		s, notes := Parse(c.link)
		if c.got(s) != c.want {
			t.Errorf("%s: %s = %d, want %d", c.link, c.key, c.got(s), c.want)
		}
		found := false
		for _, n := range notes {
			found = found || (n.Key == c.key && strings.Contains(n.Message, c.says))
		}
		if !found {
			t.Errorf("%s: no notice on %s saying %q: %v", c.link, c.key, c.says, notes)
		}
	}
	s, notes := Parse("#scene=atoms&m=8&K=3&resid=1")
	if len(notes) != 0 || s.M != 8 {
		t.Fatalf("atoms with m=8: m=%d, notices %v", s.M, notes)
	}
	s, _ = Parse("#scene=transformer&H=2&d=3&m=3&K=5&prec=256&readout=1")
	tr := s.Transformer()
	if tr.H != 2 || tr.D != 3 || tr.M != 3 || tr.K != 5 || !tr.Readout || tr.Residual || tr.Precision() != 256 {
		t.Fatalf("set-up %+v", tr)
	}
	if s.Prec = 0; s.Transformer().Precision() == 0 {
		t.Fatal("prec 0 must mean the scene's working precision")
	}
}

// TestBiasKeys: bias=1 draws c and C from the seed and the link leaves
// them out; given values are kept and written; without bias=1 they are
// refused with a notice; the state's Model carries them.
func TestBiasKeys(t *testing.T) {
	s, notes := Parse("#v=1&H=2&d=3&seed=5&bias=1")
	if len(notes) > 0 {
		t.Fatalf("notices %v", notes)
	}
	c, C := DefaultBiases(s)
	if !anyNonzero(c) || C[0] == 0 || !equalFloats(s.QBias, c) || len(c) != 6 {
		t.Fatalf("bias=1 gave c = %v, C = %v", s.QBias, s.Const)
	}
	if got := s.Link(); got != "#v=1&scene=attention&H=2&d=3&seed=5&bias=1" {
		t.Errorf("link %s", got)
	}
	m := s.Model()
	if m.Const != C[0] || len(m.QueryBias) != 2 || m.QueryBias[1][2] != c[5] {
		t.Errorf("Model has C = %v, c = %v", m.Const, m.QueryBias)
	}
	s, notes = Parse("#v=1&H=2&d=3&seed=5&bias=1&c=1,2,3,4,5,6&C=-0.5")
	if len(notes) > 0 || s.QBias[4] != 5 || s.Const[0] != -0.5 {
		t.Fatalf("given biases: %v %v %v", s.QBias, s.Const, notes)
	}
	if got := s.Link(); got != "#v=1&scene=attention&H=2&d=3&seed=5&bias=1&c=1,2,3,4,5,6&C=-0.5" {
		t.Errorf("link %s", got)
	}
	if v := s.Values()["C"]; v != -0.5 {
		t.Errorf("Values C = %v, want the number -0.5", v)
	}
	t2, _ := s.With("H", "3")
	if len(t2.QBias) != 9 || t2.QBias[4] != 5 {
		t.Errorf("H = 3 keeps the first heads' c: %v", t2.QBias)
	}
	off, _ := s.With("bias", "0")
	if anyNonzero(off.QBias) || off.Const[0] != 0 || off.Model().HasBias() {
		t.Errorf("bias=0 leaves c = %v, C = %v", off.QBias, off.Const)
	}
	s, notes = Parse("#v=1&H=2&d=3&c=1,2,3,4,5,6")
	if len(notes) != 1 || anyNonzero(s.QBias) {
		t.Errorf("c without bias=1: %v, notices %v", s.QBias, notes)
	}
}

// TestClosedSets: every closed set's value reads into its typed field and
// is written back as it was read; a name outside the set is a notice on
// its key and leaves the default; a menu has a label for every value.
func TestClosedSets(t *testing.T) {
	for _, f := range Schema() {
		if f.Kind != Enum {
			continue
		}
		if f.Labels != nil && len(f.Labels) != len(f.Allowed) {
			t.Errorf("%s: %d labels for %d values", f.Key, len(f.Labels), len(f.Allowed))
		}
		for i, l := range f.Labels {
			if l == "" || slices.Index(f.Labels, l) != i {
				t.Errorf("%s: label %d %q is empty or repeated: %q", f.Key, i, l, f.Labels)
			}
		}
		for _, v := range f.Allowed {
			s, notes := Parse("#v=1&" + f.Key + "=" + v)
			if len(notes) != 0 || f.get(&s) != v {
				t.Errorf("%s=%s reads as %q, notices %v", f.Key, v, f.get(&s), notes)
			}
		}
		s, notes := Parse("#v=1&" + f.Key + "=bogus")
		if len(notes) != 1 || notes[0].Key != f.Key || !strings.Contains(notes[0].Message, "not one of") {
			t.Errorf("%s=bogus: notices %v", f.Key, notes)
		}
		if want := Default(); f.get(&s) != f.get(&want) {
			t.Errorf("%s=bogus: %q, want the default %q", f.Key, f.get(&s), f.get(&want))
		}
	}
	s, _ := Parse("#v=1&scene=recovery&mode=frugal&src=attention&font=lm")
	if s.Mode != recovery.Frugal || s.Recovery().Mode != recovery.Frugal || s.Transformer().Mode != recovery.Frugal {
		t.Errorf("mode=frugal: the state's mode %v, the recovery run's %v, the transformer run's %v", s.Mode, s.Recovery().Mode, s.Transformer().Mode)
	}
	if s.Src != experiment.GivenLayer || s.Recovery().Src != experiment.GivenLayer || s.Font != LatinModern {
		t.Errorf("src=attention&font=lm: src %q, the run's %q, font %q", s.Src, s.Recovery().Src, s.Font)
	}
	bad, notes := s.With("mode", "Frugal")
	if len(notes) != 1 || bad.Mode != recovery.Frugal {
		t.Errorf("With(mode, Frugal): mode %v, notices %v", bad.Mode, notes)
	}
}
