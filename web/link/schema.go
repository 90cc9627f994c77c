package link

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"headlab/numerics/experiment"
	"headlab/numerics/fusion"
	"headlab/numerics/recovery"
	"headlab/numerics/recovery/runlog"
)

// Version is the schema version written as the v key. Links of a newer
// version are read on a best-effort basis with a notice.
const Version = 1

// Limits of the state, enforced when a link is parsed. Those the numerics
// set are theirs, read from their packages; the others are the page's.
const (
	MaxHeads = recovery.MaxHeads // H in float64; see HeadLimit
	// MaxHeadsExtended is H in the recovery scene at extended precision,
	// which resolves layers float64 cannot.
	MaxHeadsExtended = recovery.MaxHeadsExtended
	MaxWidth         = 60 // d in any scene; see WidthLimit for each scene's own
	MinTokens        = 2  // N
	MaxTokens        = 64 // N
	MaxSeed          = 1<<53 - 1
	MaxLength        = 1 << 20 // bytes of a fragment that are read at all (every valid state fits)
	// MaxCoord bounds token coordinates, MaxParam the entries of W and v.
	MaxCoord = 100
	MaxParam = 100
	// MaxTour bounds the tour key: no scene's guided tour is longer.
	MaxTour = 12
	// MaxRun bounds the run key, a recorded run's answers: the paper's
	// (4, 8) in float64 fits.
	MaxRun = runlog.MaxCompact
)

// Scene names a scene of the page.
type Scene string

// The scenes.
const (
	Attention   Scene = "attention"
	Atoms       Scene = "atoms"
	Recovery    Scene = "recovery"
	Transformer Scene = "transformer"
)

// Scenes lists the scenes a link may select, in the order the page
// presents them.
var Scenes = []Scene{Attention, Atoms, Recovery, Transformer}

// View names a panel of the recovery scene (the transformer scene shows
// Steps or Result).
type View string

// The views.
const (
	Steps  View = "steps"
	Result View = "result"
	Sweep  View = "sweep"
	Modes  View = "modes"
)

// Theme is the page's colour theme.
type Theme string

// The themes: Auto follows the system.
const (
	Auto  Theme = "auto"
	Light Theme = "light"
	Dark  Theme = "dark"
)

// Typeface is the typeface of exported figures.
type Typeface string

// The typefaces: Liberation Serif, metric-compatible with Times, and
// Latin Modern, LaTeX's default.
const (
	Serif       Typeface = "serif"
	LatinModern Typeface = "lm"
)

// names returns a closed set's values as the strings a link writes.
func names[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// labels returns the menu labels of a closed set's values, in their order.
func labels[T any](vs []T, label func(T) string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = label(v)
	}
	return out
}

// modeLabel names a recovery schedule in the page's menus.
func modeLabel(m recovery.Mode) string {
	switch m {
	case recovery.Paper:
		return "the paper's schedule"
	case recovery.Economy:
		return "economy (value fingerprints)"
	case recovery.Frugal:
		return "frugal (poles only)"
	}
	return m.String()
}

// WidthLimit returns the largest token width d the scene accepts: the
// atom-explosion curve reaches d = 60 from counts, while the attention and
// recovery scenes edit d×d matrices and stop at 16.
func WidthLimit(scene Scene) int {
	switch scene {
	case "atoms":
		return MaxWidth
	case "transformer":
		return TransformerWidth
	}
	return 16
}

// HeadLimit returns the largest H the state's scene takes: MaxHeads, or
// MaxHeadsExtended in the recovery scene at extended precision.
func HeadLimit(s State) int {
	switch {
	case s.Scene == Transformer:
		return TransformerHeads
	case s.Scene == Recovery && s.Prec > 0:
		return MaxHeadsExtended
	}
	return MaxHeads
}

// The transformer scene's limits, within transformer's own (MaxHeads …),
// which keep one run of transformer.Learn interactive in the browser's
// compute worker (web/e2e/PERFORMANCE.md): H heads of width d, attention
// output width m, K units.
const (
	TransformerHeads = 3
	TransformerWidth = 4
	TransformerDim   = 6
	TransformerUnits = 8
)

// DefaultUnits is the default number K of the transformer scene's units.
const DefaultUnits = 4

// Extended precision: prec is 0 (float64) or MinPrecision…MaxPrecision
// bits of big.Float mantissa.
const (
	MinPrecision = recovery.MinPrecision
	MaxPrecision = recovery.MaxPrecision
)

// MaxFewer is the largest d of the fewer-atoms experiment, and so 2^MaxFewer
// bounds its k.
const MaxFewer = fusion.MaxFitDim

// Further limits of single keys.
const (
	MaxAtoms = 8       // m, atoms per head in general fusion
	MaxStep  = 1 << 20 // step
	MaxNoise = 0.1     // noise, the oracle's relative accuracy
)

// Kind is the type of a link value.
type Kind int

// The kinds of values a link holds.
const (
	Int    Kind = iota // a decimal integer within [Min, Max]
	Float              // a finite decimal number within [Min, Max]
	Enum               // one of Allowed
	Bool               // 0 or 1
	Floats             // comma-separated finite numbers within [Min, Max], length set by other fields
	Names              // a comma-separated subset of Allowed
	Run                // a recorded run's answers (runlog.Compact's text), written by the page
)

// Panels are the parts of the page a presentation link can hide.
var Panels = []string{"intro", "controls", "outputs", "tables", "notices", "export"}

// Field describes one key of the link: its type, default and range. The
// schema is the one place a key's range is written: parsing, the page's
// controls (through Fields), Validate and the README read it from here.
type Field struct {
	Key     string
	Kind    Kind
	Doc     string   // what the key controls, for the page's help and the README
	Default string   // the default as written in a link ("" for derived lists)
	Min     float64  // for Int, Float and Floats: the widest range the key takes
	Max     float64  // for Int, Float and Floats
	Allowed []string // for Enum and Names
	// Labels name Allowed's values for the page's menus, in Allowed's
	// order; nil where the values name themselves.
	Labels []string
	Always bool // written even when equal to its default

	// at returns a pointer to the value in a state: *int, *uint64,
	// *float64, *bool, *[]float64, *[]string, or a pointer to a closed
	// set's value (*Scene, *recovery.Mode …).
	at func(*State) any
	// size gives a Floats list's length for the state's sizes.
	size func(*State) int
	// bound narrows [Min, Max] by the rest of the state (heat ≤ H, d within
	// the scene's limit …), saying why; nil when the range is fixed.
	bound func(*State) (lo, hi float64, why string)
}

// Schema returns the fields of the link in the order they are written and
// normalised: every field's bound depends only on fields before it. The
// slice is freshly built so that callers cannot change the schema.
func Schema() []Field {
	views := names(Steps, Result, Sweep, Modes)
	return []Field{
		{Key: "v", Kind: Int, Doc: "link version", Default: strconv.Itoa(Version), Min: 1, Max: Version, Always: true,
			at: func(s *State) any { return new(int) }},
		{Key: "scene", Kind: Enum, Doc: "the scene shown", Default: "attention", Allowed: names(Scenes...), Always: true,
			at: func(s *State) any { return &s.Scene }},
		{Key: "prec", Kind: Int, Doc: "bits of extended precision (0: float64; in the transformer scene, its working precision of 192 bits)", Default: "0", Min: 0, Max: MaxPrecision,
			at: func(s *State) any { return &s.Prec },
			bound: func(s *State) (float64, float64, string) {
				if s.Prec == 0 {
					return 0, MaxPrecision, ""
				}
				return MinPrecision, MaxPrecision, fmt.Sprintf("extended precision starts at %d bits", MinPrecision)
			}},
		{Key: "H", Kind: Int, Doc: "number of heads", Default: "3", Min: 1, Max: MaxHeadsExtended, Always: true,
			at: func(s *State) any { return &s.H },
			bound: func(s *State) (float64, float64, string) {
				lim := HeadLimit(*s)
				if lim == MaxHeads && s.Scene == Recovery {
					return 1, float64(lim), fmt.Sprintf("float64 resolves up to H = %d; extended precision (prec) goes to %d", lim, MaxHeadsExtended)
				}
				return 1, float64(lim), fmt.Sprintf("the %s scene takes H up to %d", s.Scene, lim)
			}},
		{Key: "d", Kind: Int, Doc: "token width", Default: "2", Min: 1, Max: MaxWidth, Always: true,
			at: func(s *State) any { return &s.D },
			bound: func(s *State) (float64, float64, string) {
				lim := WidthLimit(s.Scene)
				return 1, float64(lim), fmt.Sprintf("the %s scene takes d up to %d", s.Scene, lim)
			}},
		{Key: "seed", Kind: Int, Doc: "seed of every random draw", Default: "1", Min: 0, Max: MaxSeed, Always: true,
			at: func(s *State) any { return &s.Seed }},
		{Key: "N", Kind: Int, Doc: "number of tokens, the last one the query", Default: "6", Min: MinTokens, Max: MaxTokens,
			at: func(s *State) any { return &s.N }},
		{Key: "heat", Kind: Int, Doc: "head whose score field is drawn as a heat map (0: none)", Default: "1", Min: 0, Max: MaxHeadsExtended,
			at: func(s *State) any { return &s.Heat },
			bound: func(s *State) (float64, float64, string) {
				return 0, float64(s.H), fmt.Sprintf("there are only %d heads", s.H)
			}},
		{Key: "tok", Kind: Floats, Doc: "token coordinates, N rows of d, row by row (default: drawn from the seed)", Min: -MaxCoord, Max: MaxCoord,
			at: func(s *State) any { return &s.Tok }, size: func(s *State) int { return s.N * s.D }},
		{Key: "W", Kind: Floats, Doc: "the heads' W matrices, H blocks of d×d, row by row (default: drawn from the seed)", Min: -MaxParam, Max: MaxParam,
			at: func(s *State) any { return &s.W }, size: func(s *State) int { return s.H * s.D * s.D }},
		{Key: "val", Kind: Floats, Doc: "the heads' value vectors v_h, H blocks of d (default: drawn from the seed)", Min: -MaxParam, Max: MaxParam,
			at: func(s *State) any { return &s.Val }, size: func(s *State) int { return s.H * s.D }},
		{Key: "bias", Kind: Bool, Doc: "the layer has a query bias c_h per head and a constant C, beyond the paper (their values: c and C)", Default: "0",
			at: func(s *State) any { return &s.Bias }},
		{Key: "c", Kind: Floats, Doc: "the heads' query biases c_h, H blocks of d (with bias=1; default: drawn from the seed)", Min: -MaxParam, Max: MaxParam,
			at: func(s *State) any { return &s.QBias }, size: func(s *State) int { return s.H * s.D }},
		{Key: "C", Kind: Floats, Doc: "the layer's constant C, one number (with bias=1; default: drawn from the seed)", Min: -MaxParam, Max: MaxParam,
			at: func(s *State) any { return &s.Const }, size: func(s *State) int { return 1 }},
		{Key: "q", Kind: Floats, Doc: "the atom scene's query q, d numbers (default: drawn from the seed)", Min: -MaxCoord, Max: MaxCoord,
			at: func(s *State) any { return &s.Q }, size: func(s *State) int { return s.D }},
		{Key: "resid", Kind: Bool, Doc: "the transformer's residual y + x_N (needs m = d)", Default: "0",
			at: func(s *State) any { return &s.Resid }},
		{Key: "readout", Kind: Bool, Doc: "the transformer's linear readout + wᵀy", Default: "0",
			at: func(s *State) any { return &s.Readout }},
		{Key: "m", Kind: Int, Doc: "atoms per head in the general-fusion panel; the transformer's attention output width", Default: "3", Min: 1, Max: MaxAtoms,
			at: func(s *State) any { return &s.M },
			bound: func(s *State) (float64, float64, string) {
				switch {
				case s.Scene != Transformer:
					return 1, MaxAtoms, ""
				case s.Resid:
					return float64(s.D), float64(s.D), fmt.Sprintf("the residual y + x_N needs m = d = %d", s.D)
				}
				return 1, TransformerDim, fmt.Sprintf("the transformer scene takes m up to %d", TransformerDim)
			}},
		{Key: "K", Kind: Int, Doc: "units of the transformer's ReLU feed-forward network", Default: strconv.Itoa(DefaultUnits), Min: 1, Max: TransformerUnits,
			at: func(s *State) any { return &s.Units },
			bound: func(s *State) (float64, float64, string) {
				return 1, TransformerUnits, fmt.Sprintf("the transformer scene takes K up to %d", TransformerUnits)
			}},
		{Key: "keys", Kind: Enum, Doc: "keys of the general-fusion heads: random, or shared by every head", Default: string(experiment.RandomKeys), Allowed: names(experiment.RandomKeys, experiment.SharedKeys),
			Labels: []string{"random keys", "shared keys"},
			at:     func(s *State) any { return &s.Keys }},
		{Key: "k", Kind: Int, Doc: "atoms of the single head fitted in the fewer-atoms experiment", Default: "3", Min: 1, Max: 1<<MaxFewer - 1,
			at: func(s *State) any { return &s.K }},
		{Key: "H0", Kind: Int, Doc: "upper bound on H given to the learner (0: H is known)", Default: "0", Min: 0, Max: MaxHeadsExtended,
			at: func(s *State) any { return &s.H0 },
			bound: func(s *State) (float64, float64, string) {
				lim := float64(HeadLimit(*s))
				if s.H0 == 0 {
					return 0, lim, ""
				}
				if s.H0 < s.H {
					return float64(s.H), lim, fmt.Sprintf("an upper bound below H = %d", s.H)
				}
				return float64(s.H), lim, fmt.Sprintf("the learner takes a bound up to %d", int(lim))
			}},
		{Key: "src", Kind: Enum, Doc: "the true layer of the recovery scene: random from the seed, or the attention scene's", Default: string(experiment.RandomLayer), Allowed: names(experiment.Sources()...),
			Labels: []string{"random from the seed", "the Attention scene's layer"},
			at:     func(s *State) any { return &s.Src }},
		{Key: "dup", Kind: Int, Doc: "heads of the true layer given a duplicate (same W, split v)", Default: "0", Min: 0, Max: MaxHeadsExtended,
			at: func(s *State) any { return &s.Dup },
			bound: func(s *State) (float64, float64, string) {
				return 0, float64(s.H), fmt.Sprintf("there are only %d heads to duplicate", s.H)
			}},
		{Key: "cancel", Kind: Bool, Doc: "add a pair of heads that cancel (same W, opposite v)", Default: "0",
			at: func(s *State) any { return &s.Cancel }},
		{Key: "view", Kind: Enum, Doc: "the recovery scene's panel (the transformer scene's: steps or result)", Default: "steps", Allowed: views,
			at: func(s *State) any { return &s.View }},
		{Key: "mode", Kind: Enum, Doc: "recovery schedule (the transformer's phase A too)", Default: recovery.Paper.String(), Allowed: recovery.ModeNames(),
			Labels: labels(recovery.Modes(), modeLabel),
			at:     func(s *State) any { return &s.Mode }},
		{Key: "step", Kind: Int, Doc: "recovery step; the transformer scene's step of its run", Default: "0", Min: 0, Max: MaxStep,
			at: func(s *State) any { return &s.Step }},
		{Key: "noise", Kind: Float, Doc: "relative accuracy of the oracle (0: exact)", Default: "0", Min: 0, Max: MaxNoise,
			at: func(s *State) any { return &s.Noise }},
		{Key: "theme", Kind: Enum, Doc: "colour theme (default: follow the system)", Default: string(Auto), Allowed: names(Auto, Light, Dark),
			Labels: []string{"system", "light", "dark"},
			at:     func(s *State) any { return &s.Theme }},
		{Key: "font", Kind: Enum, Doc: "typeface of exported figures: serif (Liberation Serif, metric-compatible with Times) or lm (Latin Modern, LaTeX's default)", Default: string(Serif), Allowed: names(Serif, LatinModern),
			Labels: []string{"Liberation Serif (Times)", "Latin Modern (LaTeX)"},
			at:     func(s *State) any { return &s.Font }},
		{Key: "hide", Kind: Names, Doc: "panels hidden from students: " + strings.Join(Panels, ", "), Allowed: Panels,
			at: func(s *State) any { return &s.Hide }},
		{Key: "present", Kind: Bool, Doc: "presentation mode: controls hidden, large type", Default: "0",
			at: func(s *State) any { return &s.Present }},
		{Key: "embed", Kind: Bool, Doc: "embed mode for an iframe: the canvas, its essential controls and a link to the full page", Default: "0",
			at: func(s *State) any { return &s.Embed }},
		{Key: "tour", Kind: Int, Doc: "step of the scene's guided tour shown beside it (0: none)", Default: "0", Min: 0, Max: MaxTour,
			at: func(s *State) any { return &s.Tour }},
		{Key: "run", Kind: Run, Doc: "a recorded run the recovery scene replays, when its log is small enough for a link (the page writes it; it fixes the run's set-up)",
			at: func(s *State) any { return &s.Run }},
	}
}

// get returns the field's value in s as a link writes it.
func (f Field) get(s *State) string {
	switch p := f.at(s).(type) {
	case *int:
		if f.Key == "v" {
			return strconv.Itoa(Version)
		}
		return strconv.Itoa(*p)
	case *uint64:
		return strconv.FormatUint(*p, 10)
	case *float64:
		return formatFloat(*p)
	case *Scene:
		return string(*p)
	case *View:
		return string(*p)
	case *Theme:
		return string(*p)
	case *experiment.Keys:
		return string(*p)
	case *experiment.Source:
		return string(*p)
	case *recovery.Mode:
		return p.String()
	case *Typeface:
		return string(*p)
	case *bool:
		return formatBool(*p)
	case *[]float64:
		return formatFloats(*p)
	case *[]string:
		return strings.Join(*p, ",")
	case **RunLog:
		if *p == nil {
			return ""
		}
		return (*p).Link
	}
	panic("link: field " + f.Key + " has no value")
}

// set stores v, read within the field's fixed range, and returns the value
// actually stored: an adjusted error when v was clamped or rounded, another
// error when v was unusable and the old value kept. The bounds that depend
// on other fields are normalize's.
func (f Field) set(s *State, v string) (string, error) {
	switch p := f.at(s).(type) {
	case *int:
		if f.Key == "v" {
			return setVersion(v)
		}
		return setInt(p, v, int(f.Min), int(f.Max))
	case *uint64:
		return setUint(p, v, uint64(f.Max))
	case *float64:
		return setFloat(p, v, f.Min, f.Max)
	case *Scene:
		return setEnum((*string)(p), v, f.Allowed)
	case *View:
		return setEnum((*string)(p), v, f.Allowed)
	case *Theme:
		return setEnum((*string)(p), v, f.Allowed)
	case *experiment.Keys:
		return setEnum((*string)(p), v, f.Allowed)
	case *experiment.Source:
		return setEnum((*string)(p), v, f.Allowed)
	case *recovery.Mode:
		return setMode(p, v, f.Allowed)
	case *Typeface:
		return setEnum((*string)(p), v, f.Allowed)
	case *bool:
		return setBool(p, v)
	case *[]float64:
		return setFloats(p, v, f.size(s), f.Max)
	case *[]string:
		return setNames(p, v, f.Allowed)
	case **RunLog:
		return setRun(p, v)
	}
	panic("link: field " + f.Key + " has no value")
}

// normalize brings every field whose range depends on others within its
// bound, in schema order, and returns a notice for each value it changed.
func normalize(s *State) []Notice {
	var notes []Notice
	for _, f := range Schema() {
		if f.bound == nil {
			continue
		}
		p := f.at(s).(*int)
		lo, hi, why := f.bound(s)
		x := min(max(*p, int(lo)), int(hi))
		if x != *p {
			notes = append(notes, Notice{Key: f.Key, Value: strconv.Itoa(*p), Message: fmt.Sprintf("%s; set to %d", why, x)})
			*p = x
		}
	}
	return notes
}

// adjusted marks a value that was stored after clamping or rounding; the
// returned string says what was stored.
type adjusted struct{ why string }

func (a adjusted) Error() string { return a.why }

func setVersion(v string) (string, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return strconv.Itoa(Version), fmt.Errorf("not a link version")
	}
	if n > Version {
		return strconv.Itoa(Version), adjusted{fmt.Sprintf("this page reads version %d links; version %d was read as far as it could be", Version, n)}
	}
	return v, nil
}

func setEnum(dst *string, v string, allowed []string) (string, error) {
	for _, a := range allowed {
		if v == a {
			*dst = v
			return v, nil
		}
	}
	return *dst, fmt.Errorf("not one of %s", strings.Join(allowed, ", "))
}

// setMode reads a recovery schedule by its name (recovery.ParseMode); an
// unknown name keeps dst.
func setMode(dst *recovery.Mode, v string, allowed []string) (string, error) {
	m, err := recovery.ParseMode(v)
	if err != nil {
		return dst.String(), fmt.Errorf("not one of %s", strings.Join(allowed, ", "))
	}
	*dst = m
	return v, nil
}

func setInt(dst *int, v string, lo, hi int) (string, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) {
		return strconv.Itoa(*dst), fmt.Errorf("not a number")
	}
	if x != math.Trunc(x) && !math.IsInf(x, 0) {
		return strconv.Itoa(*dst), fmt.Errorf("not a whole number")
	}
	switch {
	case x < float64(lo):
		*dst = lo
		return strconv.Itoa(lo), adjusted{fmt.Sprintf("below the minimum %d; set to %d", lo, lo)}
	case x > float64(hi):
		*dst = hi
		return strconv.Itoa(hi), adjusted{fmt.Sprintf("above the maximum %d; set to %d", hi, hi)}
	}
	*dst = int(x)
	if strconv.Itoa(*dst) != v {
		return strconv.Itoa(*dst), nil // e.g. "03" or "3.0": same number, normalised silently
	}
	return v, nil
}

func setUint(dst *uint64, v string, hi uint64) (string, error) {
	x, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		if f, ferr := strconv.ParseFloat(v, 64); ferr == nil && !math.IsNaN(f) {
			if f < 0 {
				*dst = 0
				return "0", adjusted{"below the minimum 0; set to 0"}
			}
			if f > float64(hi) {
				*dst = hi
				return strconv.FormatUint(hi, 10), adjusted{fmt.Sprintf("above the maximum %d; set to %d", hi, hi)}
			}
		}
		return strconv.FormatUint(*dst, 10), fmt.Errorf("not a whole number from 0 to %d", hi)
	}
	if x > hi {
		*dst = hi
		return strconv.FormatUint(hi, 10), adjusted{fmt.Sprintf("above the maximum %d; set to %d", hi, hi)}
	}
	*dst = x
	return strconv.FormatUint(x, 10), nil
}

func setFloat(dst *float64, v string, lo, hi float64) (string, error) {
	x, err := strconv.ParseFloat(v, 64)
	if (err != nil && !isRange(err)) || math.IsNaN(x) {
		return formatFloat(*dst), fmt.Errorf("not a number")
	}
	switch {
	case x < lo:
		*dst = lo
		return formatFloat(lo), adjusted{fmt.Sprintf("below the minimum %s; set to %s", formatFloat(lo), formatFloat(lo))}
	case x > hi:
		*dst = hi
		return formatFloat(hi), adjusted{fmt.Sprintf("above the maximum %s; set to %s", formatFloat(hi), formatFloat(hi))}
	}
	*dst = x
	return formatFloat(x), nil
}

func setBool(dst *bool, v string) (string, error) {
	switch v {
	case "1", "true", "on", "yes", "":
		*dst = true
	case "0", "false", "off", "no":
		*dst = false
	default:
		return formatBool(*dst), fmt.Errorf("not 0 or 1")
	}
	return formatBool(*dst), nil
}

// setNames reads a comma-separated subset of allowed, stored in allowed's
// order without repeats; unknown names are dropped with a notice.
func setNames(dst *[]string, v string, allowed []string) (string, error) {
	want := map[string]bool{}
	var unknown []string
	for _, n := range strings.Split(v, ",") {
		if n == "" {
			continue
		}
		if contains(allowed, n) {
			want[n] = true
		} else {
			unknown = append(unknown, n)
		}
	}
	var out []string
	for _, a := range allowed {
		if want[a] {
			out = append(out, a)
		}
	}
	*dst = out
	stored := strings.Join(out, ",")
	if len(unknown) > 0 {
		return stored, adjusted{fmt.Sprintf("%d unknown name(s) dropped; allowed: %s", len(unknown), strings.Join(allowed, ", "))}
	}
	return stored, nil
}

// setFloats reads exactly n comma-separated finite numbers, clamping each
// to ±lim. On any garbage the whole list is rejected, keeping dst.
func setFloats(dst *[]float64, v string, n int, lim float64) (string, error) {
	parts := strings.Split(v, ",")
	if len(parts) != n {
		return formatFloats(*dst), fmt.Errorf("has %d numbers where %d are needed", len(parts), n)
	}
	out := make([]float64, n)
	clamped := 0
	for i, p := range parts {
		x, err := strconv.ParseFloat(p, 64)
		if (err != nil && !isRange(err)) || math.IsNaN(x) {
			return formatFloats(*dst), fmt.Errorf("number %d is not a number", i+1)
		}
		if x > lim || x < -lim {
			x = math.Copysign(lim, x)
			clamped++
		}
		out[i] = x
	}
	*dst = out
	if clamped > 0 {
		return formatFloats(out), adjusted{fmt.Sprintf("%d number(s) beyond ±%s were clamped", clamped, formatFloat(lim))}
	}
	return formatFloats(out), nil
}

// setRun reads a run from a link's text; "" is none. A text that is not
// a run keeps dst.
func setRun(dst **RunLog, v string) (string, error) {
	if v == "" {
		*dst = nil
		return "", nil
	}
	run, err := experiment.RunFromLink(v)
	if err != nil {
		old := ""
		if *dst != nil {
			old = (*dst).Link
		}
		return old, fmt.Errorf("not a run the page can replay (%v)", err)
	}
	*dst = run
	return v, nil
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func formatFloats(xs []float64) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(formatFloat(x))
	}
	return b.String()
}

func formatBool(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
