package link

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
	"headlab/numerics/recovery"
)

// State is everything a share link says about the page.
type State struct {
	Scene Scene  // one of Scenes
	Prec  int    // bits of extended precision, 0 (float64) or MinPrecision…MaxPrecision
	H     int    // number of heads, 1…HeadLimit
	D     int    // token width, 1…MaxWidth
	Seed  uint64 // seed of every random draw, 0…MaxSeed
	N     int    // number of tokens including the query, MinTokens…MaxTokens
	Heat  int    // head (1-based) whose score field is drawn; 0 for none; ≤ H

	// Tok holds the N tokens row by row (N·D numbers), the last row being the
	// query; W holds the H matrices W_h row by row (H·D·D numbers) and Val
	// the H value vectors v_h (H·D numbers). Unless a link says otherwise
	// they are drawn from Seed (see Defaults).
	Tok, W, Val []float64
	// Bias gives the layer a query bias c_h per head, QBias (H·D numbers,
	// head by head), and a constant C, Const (a list of one number, as the
	// link's lists are): drawn from Seed unless a link says otherwise (see
	// DefaultBiases), and all zero without Bias.
	Bias  bool
	QBias []float64
	Const []float64

	Q    []float64       // the atom scene's query q (D numbers)
	M    int             // atoms per head in the general-fusion panel, 1…8
	Keys experiment.Keys // random or shared keys in the general-fusion panel
	K    int             // atoms of the fewer-atoms fit, 1…2^MaxFewer−1

	Units   int  // the transformer's units K, 1…TransformerUnits
	Resid   bool // the transformer's residual y + x_N
	Readout bool // the transformer's linear readout

	H0     int               // upper bound on H for the learner; 0 when H is known
	Src    experiment.Source // the recovery scene's true layer: random, or the attention scene's
	Dup    int               // heads of the true layer given a duplicate, 0…H
	Cancel bool              // a cancelling pair of heads is added to the true layer
	View   View              // the recovery scene's panel: steps, result, sweep or modes

	Mode    recovery.Mode // recovery schedule (the transformer's phase A too)
	Step    int           // recovery step
	Noise   float64       // relative accuracy of the recovery oracle, 0…0.1
	Theme   Theme         // auto, light or dark
	Font    Typeface      // the figures' typeface
	Hide    []string      // panels hidden in a presentation link, a subset of Panels in its order
	Present bool          // presentation mode
	Embed   bool          // embed mode: the canvas and its essential controls only, for an iframe
	Tour    int           // step of the scene's guided tour shown, 1…MaxTour; 0 for none

	// Run, when set, is a recorded run the recovery scene replays: a log
	// opened from a file, or the run key of a link. A link carries it when
	// it is small enough (RunLog.Link), else the view only. The run fixes
	// its set-up (Replay); setting a key of it (ReplayKeys) leaves the
	// replay.
	Run *RunLog
}

// ReplayKeys are the keys whose change leaves a replay: the scene and the
// set-up of the recovery run, which the log fixes.
var ReplayKeys = []string{"scene", "prec", "H", "d", "seed", "H0", "src", "dup", "cancel", "mode", "noise", "W", "val"}

// Notice is one adjustment Parse made to a link, to be shown to the user.
// Value is the offending text, cut to a safe length; it is user input and
// must be shown as text, never as markup.
type Notice struct {
	Key, Value, Message string
}

func (n Notice) String() string {
	if n.Key == "" {
		return n.Message
	}
	return fmt.Sprintf("link key %q = %q: %s", n.Key, n.Value, n.Message)
}

// maxNotices bounds the notices one link can produce; the rest are counted.
const maxNotices = 12

// Default returns the state of a page opened without a link.
func Default() State {
	s := State{Scene: Attention, H: 3, D: 2, Seed: 1, N: 6, Heat: 1, M: 3, Keys: experiment.RandomKeys, K: 3, Units: DefaultUnits,
		Src: experiment.RandomLayer, View: Steps, Mode: recovery.Paper, Theme: Auto, Font: Serif}
	s.Tok, s.W, s.Val = Defaults(s)
	s.QBias, s.Const = DefaultBiases(s)
	s.Q = DefaultQuery(s)
	return s
}

// Defaults returns the tokens, W matrices and value vectors that s's seed
// draws for its sizes. Token i (and the query) and head h are the same for
// every N and H that include them, so adding a token or a head keeps the
// others in place. Values are rounded to two decimals to keep links short.
func Defaults(s State) (tok, w, val []float64) {
	rng := rand.New(rand.NewPCG(s.Seed, 0x746f6b656e73)) // "tokens"
	query := make([]float64, s.D)
	for j := range query {
		query[j] = round2(0.5 + 0.5*rng.NormFloat64())
	}
	tok = make([]float64, 0, s.N*s.D)
	for i := 0; i < s.N-1; i++ {
		for j := 0; j < s.D; j++ {
			tok = append(tok, round2(1.2*rng.NormFloat64()))
		}
	}
	tok = append(tok, query...)
	layer := attention.Random(s.H, s.D, s.Seed)
	for _, h := range layer {
		for i := 0; i < s.D; i++ {
			for j := 0; j < s.D; j++ {
				w = append(w, round2(2*h.W.At(i, j)))
			}
		}
		for i := 0; i < s.D; i++ {
			val = append(val, round2(h.V.AtVec(i)))
		}
	}
	return tok, w, val
}

// DefaultBiases returns the query biases c_h (H blocks of d) and the
// constant C (a list of one) that s's seed draws for its sizes with Bias,
// zeros without. Head h's c_h is the same for every H that includes it.
func DefaultBiases(s State) (c, C []float64) {
	c, C = make([]float64, s.H*s.D), make([]float64, 1)
	if !s.Bias {
		return c, C
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x6269617365)) // "biase"
	C[0] = round2(rng.NormFloat64())
	for i := range c {
		c[i] = round2(0.5 * rng.NormFloat64())
	}
	return c, C
}

// DefaultQuery returns the atom scene's query that s's seed draws for its d.
// Coordinate j is the same for every d that includes it.
func DefaultQuery(s State) []float64 {
	rng := rand.New(rand.NewPCG(s.Seed, 0x7175657279)) // "query"
	q := make([]float64, s.D)
	for j := range q {
		q[j] = round2(rng.NormFloat64())
	}
	return q
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// Parse reads a link's fragment (with or without the leading '#') into a
// state. It never fails: what it cannot use it replaces by defaults and
// reports as notices.
func Parse(fragment string) (State, []Notice) {
	var notes []Notice
	dropped := 0
	note := func(n Notice) {
		if len(notes) < maxNotices {
			n.Value = clip(n.Value)
			n.Key = clip(n.Key)
			notes = append(notes, n)
		} else {
			dropped++
		}
	}
	s := Default()
	fragment = strings.TrimPrefix(fragment, "#")
	if len(fragment) > MaxLength {
		note(Notice{Message: fmt.Sprintf("the link is %d bytes long; only the first %d were read", len(fragment), MaxLength)})
		fragment = fragment[:MaxLength]
	}
	values := map[string]string{}
	for _, part := range strings.Split(fragment, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		if k == "" {
			note(Notice{Key: "(empty)", Value: v, Message: "a value without a key; ignored"})
			continue
		}
		key, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			note(Notice{Key: k, Value: v, Message: "badly escaped; ignored"})
			continue
		}
		if _, seen := values[key]; seen {
			note(Notice{Key: key, Value: val, Message: "given twice; the last one is used"})
		}
		values[key] = val
	}
	fields := Schema()
	known := map[string]bool{}
	for _, f := range fields {
		known[f.Key] = true
	}
	for _, k := range sortedKeys(values) {
		if !known[k] {
			note(Notice{Key: k, Value: values[k], Message: "unknown key; ignored"})
		}
	}
	apply := func(f Field) {
		v, ok := values[f.Key]
		if !ok {
			return
		}
		stored, err := f.set(&s, v)
		if err == nil {
			return
		}
		if _, adj := err.(adjusted); adj {
			note(Notice{Key: f.Key, Value: v, Message: err.Error()})
			return
		}
		note(Notice{Key: f.Key, Value: v, Message: fmt.Sprintf("%s; %s is used", err, describe(f, stored))})
	}
	// Sizes first: the lists' lengths depend on them.
	for _, f := range fields {
		if f.Kind != Floats {
			apply(f)
		}
	}
	for _, n := range normalize(&s) {
		// A value the setter clamped to the key's widest range and the bound
		// narrowed again gets one notice, the bound's.
		if i := slices.IndexFunc(notes, func(m Notice) bool { return m.Key == n.Key }); i >= 0 {
			notes[i].Message = n.Message
			continue
		}
		note(n)
	}
	s.Tok, s.W, s.Val = Defaults(s)
	s.QBias, s.Const = DefaultBiases(s)
	s.Q = DefaultQuery(s)
	for _, f := range fields {
		if f.Kind == Floats {
			apply(f)
		}
	}
	if !s.Bias && (anyNonzero(s.QBias) || anyNonzero(s.Const)) {
		note(Notice{Key: "c", Value: formatFloats(append(slices.Clone(s.Const), s.QBias...)), Message: "biases need bias=1; the layer has none"})
		s.QBias, s.Const = DefaultBiases(s)
	}
	if s.Run != nil {
		t, ns, err := s.Replay(s.Run)
		switch {
		case err != nil:
			note(Notice{Key: "run", Value: values["run"], Message: fmt.Sprintf("not a run the page can replay (%v); ignored", err)})
			s.Run = nil
		case len(ns) > 0:
			note(Notice{Key: "run", Value: values["run"], Message: fmt.Sprintf("the run is outside what the page shows (%s); ignored", ns[0].String())})
			s.Run = nil
		default:
			t.Step, t.View, t.Theme, t.Hide, t.Present, t.Embed, t.Tour, t.Font = s.Step, s.View, s.Theme, s.Hide, s.Present, s.Embed, s.Tour, s.Font
			s = t
		}
	}
	if dropped > 0 {
		notes = append(notes, Notice{Message: fmt.Sprintf("%d more problems in the link were not listed", dropped)})
	}
	return s, notes
}

// Replay returns s set up to replay run: the recovery scene at step 0 with
// the sizes, schedule, precision and seed of the run's config, and the
// notices of the keys the page could not take (a run outside the page's
// limits); the state is usable only when there are none.
func (s State) Replay(run *RunLog) (State, []Notice, error) {
	rec, err := run.Open()
	if err != nil {
		return s, nil, err
	}
	c := rec.Config
	h := c.H
	if c.H0 > 0 {
		h = c.H0
	}
	var notes []Notice
	for _, kv := range [][2]string{{"scene", "recovery"}, {"prec", fmt.Sprint(c.Prec)}, {"H", fmt.Sprint(h)}, {"d", fmt.Sprint(c.D)},
		{"H0", fmt.Sprint(c.H0)}, {"mode", c.Mode}, {"seed", fmt.Sprint(c.Seed)}, {"src", "random"}, {"dup", "0"}, {"cancel", "0"},
		{"noise", "0"}, {"view", "steps"}, {"step", "0"}} {
		var ns []Notice
		s, ns = s.With(kv[0], kv[1])
		notes = append(notes, ns...)
	}
	s.Run = run
	return s, notes, nil
}

func describe(f Field, stored string) string {
	if f.Kind == Floats {
		return "the seed's draw"
	}
	return fmt.Sprintf("%q", stored)
}

// sortedKeys returns the keys of m in sorted order, so that notices come
// out in the same order on every run.
func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// clip shortens user text for a notice and strips control characters.
func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '·'
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// Link returns the share link of s as a URL fragment with its leading '#'.
// Keys come in schema order; values equal to their defaults are left out
// (but for the keys every link carries), lists equal to the seed's draws too.
func (s State) Link() string {
	var b strings.Builder
	b.WriteByte('#')
	tok, w, val := Defaults(s)
	c, C := DefaultBiases(s)
	defaults := map[string][]float64{"tok": tok, "W": w, "val": val, "c": c, "C": C, "q": DefaultQuery(s)}
	first := true
	for _, f := range Schema() {
		v := f.get(&s)
		if !f.Always {
			if f.Kind == Floats {
				if d := defaults[f.Key]; equalFloats(d, listOf(&s, f.Key)) {
					continue
				}
			} else if v == f.Default {
				continue
			}
		}
		if !first {
			b.WriteByte('&')
		}
		first = false
		b.WriteString(f.Key)
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(v))
	}
	return strings.ReplaceAll(b.String(), "%2C", ",")
}

func listOf(s *State, key string) []float64 {
	switch key {
	case "tok":
		return s.Tok
	case "W":
		return s.W
	case "q":
		return s.Q
	case "c":
		return s.QBias
	case "C":
		return s.Const
	default:
		return s.Val
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// Validate reports whether s lies inside the schema: every value reads
// back through its field's setter unchanged (in range, finite, lists of the
// length the sizes require) and within its field's bound.
func (s State) Validate() error {
	for _, f := range Schema() {
		v := f.get(&s)
		t := s
		t.Tok, t.W, t.Val, t.Q, t.Hide = slices.Clone(s.Tok), slices.Clone(s.W), slices.Clone(s.Val), slices.Clone(s.Q), slices.Clone(s.Hide)
		t.QBias, t.Const = slices.Clone(s.QBias), slices.Clone(s.Const)
		stored, err := f.set(&t, v)
		if err != nil || stored != v || f.get(&t) != v {
			return fmt.Errorf("link: %s = %q is outside the schema (%v)", f.Key, clip(v), err)
		}
		if f.bound != nil {
			lo, hi, why := f.bound(&s)
			if x := *f.at(&s).(*int); x < int(lo) || x > int(hi) {
				return fmt.Errorf("link: %s = %d: %s", f.Key, x, why)
			}
		}
	}
	return nil
}

func anyNonzero(xs []float64) bool {
	for _, x := range xs {
		if x != 0 {
			return true
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// Equal reports whether two states are the same (lists compared bit for bit).
func (s State) Equal(t State) bool { return reflect.DeepEqual(s, t) }

// Layer returns the attention layer the state describes.
func (s State) Layer() attention.Layer {
	l := make(attention.Layer, s.H)
	for h := range l {
		w := make([]float64, s.D*s.D)
		copy(w, s.W[h*s.D*s.D:])
		v := make([]float64, s.D)
		copy(v, s.Val[h*s.D:])
		l[h] = attention.Head{W: mat.NewDense(s.D, s.D, w), V: mat.NewVecDense(s.D, v)}
	}
	return l
}

// Model returns the attention layer the state describes with its biases:
// Layer, and with Bias its c_h and C (attention.Biased).
func (s State) Model() attention.Biased {
	b := attention.Biased{Layer: s.Layer()}
	if !s.Bias {
		return b
	}
	b.Const = s.Const[0]
	b.QueryBias = make([][]float64, s.H)
	for h := range b.QueryBias {
		b.QueryBias[h] = append([]float64(nil), s.QBias[h*s.D:(h+1)*s.D]...)
	}
	return b
}

// Sequence returns the tokens as an N×d matrix, the last row the query.
func (s State) Sequence() *mat.Dense {
	return mat.NewDense(s.N, s.D, append([]float64(nil), s.Tok...))
}

// With returns s with one key set to value, as the page's controls do: a new
// seed or width draws every list afresh from the seed, a new H or N keeps the
// heads and tokens that remain (the query stays last) and draws the new ones
// from the seed. A value the schema cannot take leaves s unchanged and is
// reported as a notice; one it adjusts is reported too.
func (s State) With(key, value string) (State, []Notice) {
	var f *Field
	fields := Schema()
	for i := range fields {
		if fields[i].Key == key {
			f = &fields[i]
		}
	}
	if f == nil {
		return s, []Notice{{Key: clip(key), Value: clip(value), Message: "unknown key; ignored"}}
	}
	t := s
	t.Tok, t.W, t.Val, t.Q, t.Hide = slices.Clone(s.Tok), slices.Clone(s.W), slices.Clone(s.Val), slices.Clone(s.Q), slices.Clone(s.Hide)
	t.QBias, t.Const = slices.Clone(s.QBias), slices.Clone(s.Const)
	var notes []Notice
	if _, err := f.set(&t, value); err != nil {
		notes = append(notes, Notice{Key: key, Value: clip(value), Message: err.Error()})
		if _, adj := err.(adjusted); !adj {
			return s, notes
		}
	}
	if t.Run != nil && slices.Contains(ReplayKeys, key) {
		t.Run = nil
	}
	if key == "run" && t.Run != nil {
		r, ns, err := s.Replay(t.Run)
		if err != nil || len(ns) > 0 {
			return s, append(notes, Notice{Key: key, Value: clip(value), Message: "not a run the page can replay here"})
		}
		return r, notes
	}
	for _, n := range normalize(&t) {
		if n.Key == key || n.Key == "d" {
			notes = append(notes, n) // what follows from another key's bound stays quiet
		}
	}
	// Redraw or resize the lists for whatever sizes changed, whether set
	// directly or by a bound (a scene change shrinks d, float64 shrinks H).
	// Setting d, even to its own value, redraws from the seed: the atom
	// scene's "query from the seed" does that.
	switch {
	case key == "seed" || key == "d" || t.D != s.D:
		t.Tok, t.W, t.Val = Defaults(t)
		t.QBias, t.Const = DefaultBiases(t)
		t.Q = DefaultQuery(t)
	case key == "bias":
		if t.Bias != s.Bias {
			t.QBias, t.Const = DefaultBiases(t)
		}
	default:
		if t.H != s.H {
			_, w, val := Defaults(t)
			c, _ := DefaultBiases(t)
			keep := min(s.H, t.H)
			copy(w, s.W[:keep*s.D*s.D])
			copy(val, s.Val[:keep*s.D])
			copy(c, s.QBias[:keep*s.D])
			t.W, t.Val, t.QBias = w, val, c
		}
		if t.N != s.N {
			tok, _, _ := Defaults(t)
			keep := min(s.N, t.N) - 1
			copy(tok, s.Tok[:keep*s.D])
			copy(tok[(t.N-1)*t.D:], s.Tok[(s.N-1)*s.D:])
			t.Tok = tok
		}
	}
	return t, notes
}

// Values returns the state as a plain object keyed by the link's keys, with
// numbers as numbers, flags as booleans and lists as arrays: what the page's
// window.headlab.state() returns.
func (s State) Values() map[string]any {
	out := map[string]any{}
	for _, f := range Schema() {
		switch f.Kind {
		case Int:
			switch f.Key {
			case "v":
				out[f.Key] = Version
			case "seed":
				out[f.Key] = s.Seed
			default:
				n, _ := strconv.Atoi(f.get(&s))
				out[f.Key] = n
			}
		case Float:
			x, _ := strconv.ParseFloat(f.get(&s), 64)
			out[f.Key] = x
		case Enum:
			out[f.Key] = f.get(&s)
		case Bool:
			out[f.Key] = f.get(&s) == "1"
		case Floats:
			if f.Key == "C" {
				out[f.Key] = s.Const[0] // one number
				break
			}
			out[f.Key] = slices.Clone(listOf(&s, f.Key))
		case Names:
			out[f.Key] = append([]string{}, s.Hide...)
		case Run:
			out[f.Key] = f.get(&s)
		}
	}
	return out
}

// Fields returns the schema as plain objects (key, kind, doc, default, min,
// max, allowed, and for a closed set labels: what a menu shows for each of
// allowed, in its order) for the page to build its controls and help from,
// with the widest range of every key.
func Fields() []map[string]any { return fields(nil) }

// Fields returns the schema as Fields does, with min and max narrowed to
// the bounds that hold in s (d within its scene's limit, heat ≤ H, …): the
// ranges the page's controls offer for this state.
func (s State) Fields() []map[string]any { return fields(&s) }

func fields(s *State) []map[string]any {
	kinds := map[Kind]string{Int: "int", Float: "float", Enum: "enum", Bool: "bool", Floats: "floats", Names: "names", Run: "run"}
	var out []map[string]any
	for _, f := range Schema() {
		lo, hi := f.Min, f.Max
		if s != nil && f.bound != nil {
			lo, hi, _ = f.bound(s)
		}
		m := map[string]any{
			"key": f.Key, "kind": kinds[f.Kind], "doc": f.Doc, "default": f.Default,
			"min": lo, "max": hi, "allowed": f.Allowed,
		}
		if f.Kind == Enum {
			m["labels"] = f.Labels
			if f.Labels == nil {
				m["labels"] = f.Allowed
			}
		}
		out = append(out, m)
	}
	return out
}
