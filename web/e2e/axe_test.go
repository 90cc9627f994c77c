package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// axeLinks are the views TestAxe checks: the chooser and one link per scene
// (the Transformer's as its card opens it).
var axeLinks = []struct{ name, link string }{
	{"landing", ""},
	{"attention", "#v=1&scene=attention"},
	{"atoms", "#v=1&scene=atoms"},
	{"recovery", "#v=1&scene=recovery"},
	{"transformer", "#v=1&scene=transformer&H=2&d=3&m=3&K=5"},
}

// axeScript finds axe-core's axe.min.js: HEADLAB_AXE, else
// build/node_modules/axe-core/axe.min.js or node_modules/axe-core/axe.min.js
// in the module's root (`npm install --prefix build axe-core` puts it in the
// first).
func axeScript() (string, []string) {
	var tried []string
	if p := os.Getenv("HEADLAB_AXE"); p != "" {
		tried = append(tried, p)
	}
	if root, err := moduleRoot(); err == nil {
		tried = append(tried,
			filepath.Join(root, "build", "node_modules", "axe-core", "axe.min.js"),
			filepath.Join(root, "node_modules", "axe-core", "axe.min.js"))
	}
	for _, p := range tried {
		if b, err := os.ReadFile(p); err == nil {
			return string(b), tried
		}
	}
	return "", tried
}

// axeResult is what TestAxe reads of axe.run's results.
type axeResult struct {
	Version    string
	Violations []struct {
		ID, Impact, Help string
		Nodes            []string
	}
	Frames int // the frames axe was loaded into besides the page
}

// TestAxe runs axe-core on the chooser and on each scene, in the light and
// the dark theme (the system's preference, as a visitor without a theme
// in the link has it), with axe loaded into the canvas's frame too, and
// requires no violations. axe-core comes from npm (./build.sh test installs
// it and names it in HEADLAB_AXE); without it the test skips, saying where
// it looked, unless HEADLAB_AXE names it, when its absence is a failure.
func TestAxe(t *testing.T) {
	src, tried := axeScript()
	if src == "" && os.Getenv("HEADLAB_AXE") != "" {
		t.Fatalf("axe-core is not where HEADLAB_AXE says (looked for %s)", strings.Join(tried, ", "))
	}
	if src == "" {
		t.Skipf("axe-core is not installed (looked for %s); `npm install --prefix build axe-core` installs it", strings.Join(tried, ", "))
	}
	for _, scheme := range []string{"light", "dark"} {
		// One tab per theme, its views loaded one after another.
		// axe is injected with eval, into the canvas's frame too, which the
		// page's Content-Security-Policy forbids: the check is of the
		// page's markup, not of its policy (TestPage's).
		shared := newTab(t)
		ctx, cancel := context.WithTimeout(shared.ctx, stepTimeout)
		if _, err := chromedp.Call(ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true}); err != nil {
			t.Fatalf("bypassing the CSP: %v", err)
		}
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		}); err != nil {
			t.Fatalf("emulating prefers-color-scheme: %s: %v", scheme, err)
		}
		cancel()
		for _, l := range axeLinks {
			t.Run(scheme+"/"+l.name, func(t *testing.T) {
				tab := shared.in(t)
				tab.load(h.base + l.link)
				if got := eval[string](tab, `document.documentElement.dataset.theme || ""`); l.link != "" && got != scheme {
					t.Fatalf("the page's theme is %q under prefers-color-scheme: %s", got, scheme)
				}
				code, err := json.Marshal(src)
				if err != nil {
					t.Fatal(err)
				}
				raw := eval[string](tab, `(async (src) => {
					(0, eval)(src);
					let frames = 0;
					for (const f of document.querySelectorAll("iframe")) {
						f.contentWindow.eval(src);
						frames++;
					}
					const r = await axe.run(document, { resultTypes: ["violations"] });
					return JSON.stringify({
						version: axe.version,
						frames,
						violations: r.violations.map((v) => ({
							id: v.id, impact: v.impact || "", help: v.help,
							nodes: v.nodes.map((n) => n.target.join(" ") + ": " + n.failureSummary),
						})),
					});
				})(`+string(code)+`)`)
				var r axeResult
				if err := json.Unmarshal([]byte(raw), &r); err != nil {
					t.Fatalf("axe's result: %v: %s", err, shorten(raw, 500))
				}
				if r.Frames < 1 {
					t.Errorf("axe ran in %d frames besides the page: the canvas's frame went unchecked", r.Frames)
				}
				for _, v := range r.Violations {
					t.Errorf("axe-core %s: %s (%s, %s): %d nodes\n  %s", r.Version, v.ID, v.Impact, v.Help, len(v.Nodes), strings.Join(v.Nodes, "\n  "))
				}
				t.Logf("axe-core %s: %d violations", r.Version, len(r.Violations))
			})
		}
	}
}
