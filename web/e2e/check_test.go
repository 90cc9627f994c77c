package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"headlab/numerics/recovery"
	"headlab/web/link"
)

// pageState is headlab.state() of the attention scene, keyed as the link.
type pageState struct {
	V       int       `json:"v"`
	Scene   string    `json:"scene"`
	H       int       `json:"H"`
	D       int       `json:"d"`
	Seed    float64   `json:"seed"`
	N       int       `json:"N"`
	Heat    int       `json:"heat"`
	Tok     []float64 `json:"tok"`
	W       []float64 `json:"W"`
	Val     []float64 `json:"val"`
	Mode    string    `json:"mode"`
	Step    int       `json:"step"`
	Noise   float64   `json:"noise"`
	Theme   string    `json:"theme"`
	Present bool      `json:"present"`
}

// pageFacts is headlab.facts().
type pageFacts struct {
	Scene     string      `json:"scene"`
	Output    float64     `json:"output"`
	Heads     []float64   `json:"heads"`
	Weights   [][]float64 `json:"weights"`
	Canonical int         `json:"canonical"`
}

// snapshot is what the page says about itself at one moment.
type snapshot struct {
	StateJSON json.RawMessage `json:"state"`
	FactsJSON json.RawMessage `json:"facts"`
	Link      string          `json:"link"`
	Hash      string          `json:"hash"`
	Errors    []string        `json:"errors"`
	Ready     bool            `json:"ready"`

	State pageState `json:"-"`
	Facts pageFacts `json:"-"`
}

const snapshotJS = `({state: headlab.state(), facts: headlab.facts(), link: headlab.link(),
	hash: location.hash, errors: headlab.errors.slice(), ready: headlab.ready})`

// snap reads the page's state, facts, link and notices at once.
func (t *tab) snap() snapshot {
	t.tb.Helper()
	s := eval[snapshot](t, snapshotJS)
	if err := json.Unmarshal(s.StateJSON, &s.State); err != nil {
		t.tb.Fatalf("headlab.state() %s: %v", shorten(string(s.StateJSON), 500), err)
	}
	if err := json.Unmarshal(s.FactsJSON, &s.Facts); err != nil {
		t.tb.Fatalf("headlab.facts() %s: %v", shorten(string(s.FactsJSON), 500), err)
	}
	return s
}

// stateKeys are the keys headlab.state() must hold (README.md, "Links").
var stateKeys = []string{"v", "scene", "H", "d", "seed", "N", "heat", "tok", "W", "val", "mode", "step", "noise", "theme", "present"}

// schemaProblems lists every way the snapshot leaves the link's schema:
// sizes in range, lists of the lengths the sizes require, every number
// finite and within its bounds, the facts of matching shapes with each
// head's weights a probability distribution, and the page's link parsing
// back (natively, with package link) without a notice into a valid state.
func schemaProblems(s snapshot) []string {
	var p []string
	bad := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }

	var raw map[string]json.RawMessage
	if err := json.Unmarshal(s.StateJSON, &raw); err != nil {
		bad("state() is not an object: %v", err)
		return p
	}
	for _, k := range stateKeys {
		if _, ok := raw[k]; !ok {
			bad("state() has no key %q", k)
		}
	}
	st := s.State
	in := func(name string, x, lo, hi float64) {
		if !(x >= lo && x <= hi) { // also catches NaN
			bad("%s = %v outside %v…%v", name, x, lo, hi)
		}
	}
	if st.V != link.Version {
		bad("v = %d, want %d", st.V, link.Version)
	}
	if st.Scene != "attention" {
		bad("scene = %q, want attention", st.Scene)
	}
	in("H", float64(st.H), 1, link.MaxHeads)
	in("d", float64(st.D), 1, float64(link.WidthLimit(link.Scene(st.Scene))))
	in("N", float64(st.N), link.MinTokens, link.MaxTokens)
	in("heat", float64(st.Heat), 0, float64(st.H))
	in("seed", st.Seed, 0, link.MaxSeed)
	if st.Seed != math.Trunc(st.Seed) {
		bad("seed = %v is not whole", st.Seed)
	}
	in("step", float64(st.Step), 0, link.MaxStep)
	in("noise", st.Noise, 0, link.MaxNoise)
	if !slices.Contains(recovery.ModeNames(), st.Mode) {
		bad("mode = %q", st.Mode)
	}
	if !slices.Contains([]string{"auto", "light", "dark"}, st.Theme) {
		bad("theme = %q", st.Theme)
	}
	list := func(name string, xs []float64, n int, lim float64) {
		if len(xs) != n {
			bad("%s has %d numbers, want %d", name, len(xs), n)
		}
		for i, x := range xs {
			if !(x >= -lim && x <= lim) {
				bad("%s[%d] = %v outside ±%v", name, i, x, lim)
				return
			}
		}
	}
	list("tok", st.Tok, st.N*st.D, link.MaxCoord)
	list("W", st.W, st.H*st.D*st.D, link.MaxParam)
	list("val", st.Val, st.H*st.D, link.MaxParam)

	f := s.Facts
	if !finite(f.Output) {
		bad("facts().output = %v", f.Output)
	}
	if len(f.Heads) != st.H {
		bad("facts().heads has %d entries for H = %d", len(f.Heads), st.H)
	}
	sum := 0.0
	for i, y := range f.Heads {
		if !finite(y) {
			bad("facts().heads[%d] = %v", i, y)
		}
		sum += y
	}
	if math.Abs(sum-f.Output) > 1e-9*math.Max(1, math.Abs(f.Output)) {
		bad("facts().output = %v but the heads sum to %v", f.Output, sum)
	}
	if len(f.Weights) != st.H {
		bad("facts().weights has %d rows for H = %d", len(f.Weights), st.H)
	}
	for h, row := range f.Weights {
		if len(row) != st.N {
			bad("facts().weights[%d] has %d entries for N = %d", h, len(row), st.N)
		}
		total := 0.0
		for i, w := range row {
			if !(w >= 0 && w <= 1) {
				bad("facts().weights[%d][%d] = %v outside 0…1", h, i, w)
			}
			total += w
		}
		if math.Abs(total-1) > 1e-9 {
			bad("facts().weights[%d] sums to %v, not 1", h, total)
		}
	}
	if f.Canonical < 0 || f.Canonical > st.H {
		bad("facts().canonical = %d outside 0…H", f.Canonical)
	}

	// The page's own link must read back cleanly.
	parsed, notes := link.Parse(s.Link)
	for _, n := range notes {
		bad("the page's link %s reads back with the notice %q", shorten(s.Link, 200), n.String())
	}
	if err := parsed.Validate(); err != nil {
		bad("the page's link reads back into an invalid state: %v", err)
	}
	return p
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// diffState lists the keys whose values differ between two state() JSONs.
func diffState(a, b json.RawMessage) []string {
	var ma, mb map[string]any
	json.Unmarshal(a, &ma)
	json.Unmarshal(b, &mb)
	var d []string
	for k := range ma {
		ja, _ := json.Marshal(ma[k])
		jb, _ := json.Marshal(mb[k])
		if string(ja) != string(jb) {
			d = append(d, fmt.Sprintf("%s: %s ≠ %s", k, shorten(string(ja), 200), shorten(string(jb), 200)))
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			d = append(d, k+": missing on one side")
		}
	}
	slices.Sort(d)
	return d
}

func joinLines(xs []string) string { return "\n  " + strings.Join(xs, "\n  ") }
