package e2e

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestMenus: the scenes' menus of a closed set (the schedule in Recovery
// and Transformer, the true layer's source, the general-fusion keys) offer
// exactly the values and labels of the link schema (headlab.fields()), in
// its order; choosing one sets the link key; a link naming a value outside
// the set opens with a notice on that key and the default chosen. The
// Export panel's typefaces are the font key's.
func TestMenus(t *testing.T) {
	tb := newTab(t)
	for _, c := range []struct {
		scene, id, key, pick string
	}{
		{"recovery", "rec-mode", "mode", "economy"},
		{"recovery", "rec-src", "src", "attention"},
		{"transformer", "tf-mode", "mode", "frugal"},
		{"atoms", "atoms-keys", "keys", "shared"},
	} {
		t.Run(c.id, func(t *testing.T) {
			tb := tb.in(t)
			link := fmt.Sprintf("#v=1&scene=%s&H=2&d=2", c.scene)
			tb.load(h.base + link)
			menu := eval[[][2]string](tb, fmt.Sprintf(`[...document.getElementById(%q).options].map((o) => [o.value, o.text])`, c.id))
			f := eval[struct {
				Allowed []string `json:"allowed"`
				Labels  []string `json:"labels"`
			}](tb, fmt.Sprintf(`headlab.fields().find((f) => f.key === %q)`, c.key))
			var want [][2]string
			for i, v := range f.Allowed {
				want = append(want, [2]string{v, f.Labels[i]})
			}
			if len(f.Allowed) < 2 || len(f.Labels) != len(f.Allowed) || !slices.Equal(menu, want) {
				t.Fatalf("#%s offers %q; the schema's %s: %q labelled %q", c.id, menu, c.key, f.Allowed, f.Labels)
			}
			if os.Getenv("HEADLAB_SHOTS") != "" {
				eval[bool](tb, fmt.Sprintf(`(document.getElementById(%q).scrollIntoView({block: "center"}), true)`, c.id))
				tb.frames(2)
				tb.shoot(c.id)
			}
			eval[bool](tb, fmt.Sprintf(`(() => { const s = document.getElementById(%q); s.value = %q; s.dispatchEvent(new Event("change")); return true; })()`, c.id, c.pick))
			tb.waitFor(c.key+" chosen", fmt.Sprintf(`headlab.state()[%q] === %q && location.hash.includes(%q)`, c.key, c.pick, "&"+c.key+"="+c.pick))

			tb.load(h.base + link + "&" + c.key + "=bogus")
			got := eval[struct {
				Value  string   `json:"value"`
				State  string   `json:"state"`
				Errors []string `json:"errors"`
			}](tb, fmt.Sprintf(`({value: document.getElementById(%q).value, state: headlab.state()[%q], errors: headlab.errors})`, c.id, c.key))
			note := fmt.Sprintf(`link key %q = "bogus": not one of`, c.key)
			if got.Value != f.Allowed[0] || got.State != f.Allowed[0] || !slices.ContainsFunc(got.Errors, func(e string) bool { return strings.HasPrefix(e, note) }) {
				t.Errorf("%s=bogus: the menu shows %q, the state %q, notices %q; want %q and a notice %q…", c.key, got.Value, got.State, got.Errors, f.Allowed[0], note)
			}
			tb.noProblems(c.id)
		})
	}
	// The Export panel's typefaces: "as the link says", then the font
	// key's, filled when the panel first opens.
	t.Run("export-typeface", func(t *testing.T) {
		tb := tb.in(t)
		tb.load(h.base + "#v=1&scene=atoms&d=3")
		eval[bool](tb, `(document.querySelector(".export-details").open = true)`)
		tb.waitFor("the typefaces", `document.getElementById("export-typeface").options.length > 1`)
		menu := eval[[][2]string](tb, `[...document.getElementById("export-typeface").options].map((o) => [o.value, o.text])`)
		f := eval[struct {
			Allowed []string `json:"allowed"`
			Labels  []string `json:"labels"`
		}](tb, `headlab.fields().find((f) => f.key === "font")`)
		want := [][2]string{{"", "as the link says"}}
		for i, v := range f.Allowed {
			want = append(want, [2]string{v, f.Labels[i]})
		}
		if len(f.Allowed) < 2 || !slices.Equal(menu, want) {
			t.Errorf("#export-typeface offers %q, want %q", menu, want)
		}
		tb.noProblems("the Export panel")
	})
}
