package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"headlab/web/link"
)

// The lecture hall (issue 7): a lecturer drives the page with the keyboard
// or a finger, projects it in presentation mode, hands students links that
// hide panels, and some students read it with a screen reader or on a
// phone. These tests hold the page to that.

// lectureScene is one scene's link and another link of the same scene
// whose view differs (for the text alternative).
type lectureScene struct {
	name, link, other string
	// panels are the hide names that must hide something in this scene.
	panels []string
}

var lectureScenes = []lectureScene{
	{"attention", "#v=1&scene=attention&H=2&d=2&seed=1", "#v=1&scene=attention&H=2&d=2&seed=2",
		[]string{"intro", "controls", "outputs", "tables", "notices", "export"}},
	{"atoms", "#v=1&scene=atoms&d=3&seed=1", "#v=1&scene=atoms&d=3&seed=2",
		[]string{"intro", "controls", "outputs", "notices", "export"}},
	{"recovery", "#v=1&scene=recovery&H=2&d=2&seed=8&step=9", "#v=1&scene=recovery&H=2&d=2&seed=8&step=10",
		[]string{"intro", "controls", "outputs", "notices", "export"}},
	{"transformer", "#v=1&scene=transformer&H=2&d=3&m=3&K=5&seed=1&step=80", "#v=1&scene=transformer&H=2&d=3&m=3&K=5&seed=1&step=81",
		[]string{"intro", "controls", "outputs", "notices", "export"}},
}

// lectureLib is JavaScript shared by the checks below, as the object lk.
const lectureLib = `
const lk = {
	// path names an element for a failure message: its tag, id or classes,
	// and its place among its siblings, up to the nearest ancestor with an id.
	path(el) {
		const parts = [];
		for (let e = el; e && e.nodeType === 1 && parts.length < 7; e = e.parentElement) {
			let s = e.tagName.toLowerCase();
			if (e.id) { parts.unshift(s + "#" + e.id); break; }
			if (e.classList && e.classList.length) s += "." + [...e.classList].slice(0, 2).join(".");
			const p = e.parentElement;
			if (p) {
				const same = [...p.children].filter((c) => c.tagName === e.tagName);
				if (same.length > 1) s += ":nth-of-type(" + (same.indexOf(e) + 1) + ")";
			}
			parts.unshift(s);
		}
		return parts.join(" > ");
	},
	// shown: rendered (not display:none, not in a closed <details>, not
	// visibility:hidden).
	shown(el) {
		return el.getClientRects().length > 0 && el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true });
	},
	// inClosed: inside the hidden part of a closed <details>, or in a <dialog> that is not open.
	inClosed(el) {
		if (el.closest("dialog:not([open])")) return true;
		for (let d = el.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) {
			if (d.open) continue;
			const s = d.querySelector(":scope > summary");
			if (!(s && s.contains(el))) return true;
		}
		return false;
	},
	// interactive: every control a keyboard user must reach, in document order.
	interactive(root) {
		const all = (root || document).querySelectorAll("a[href], button, input, select, textarea, summary, iframe, [tabindex]");
		return [...all].filter((el) => {
			if (el.tagName === "INPUT" && el.type === "hidden") return false;
			if (el.hasAttribute("tabindex") && el.tabIndex < 0) return false;
			if (el.matches(":disabled") || el.closest("[inert]")) return false;
			if (lk.inClosed(el)) return false;
			return lk.shown(el);
		});
	},
	// name: the accessible name from aria-labelledby, aria-label, a <label>,
	// a button's value, the text of a button, link or summary, or a title.
	name(el) {
		const by = el.getAttribute("aria-labelledby");
		if (by) {
			const t = by.split(/\s+/).map((id) => { const r = document.getElementById(id); return r ? r.textContent : ""; }).join(" ").trim();
			if (t) return t;
		}
		const al = (el.getAttribute("aria-label") || "").trim();
		if (al) return al;
		if (el.labels) {
			for (const l of el.labels) {
				const c = l.cloneNode(true);
				for (const x of c.querySelectorAll("input, select, textarea, button")) x.remove();
				const t = c.textContent.trim();
				if (t) return t;
			}
		}
		if (el.tagName === "INPUT" && /^(button|submit|reset)$/.test(el.type) && el.value.trim()) return el.value.trim();
		if (/^(BUTTON|A|SUMMARY)$/.test(el.tagName) || el.getAttribute("role")) {
			const t = (el.textContent + " " + [...el.querySelectorAll("img[alt]")].map((i) => i.alt).join(" ")).trim();
			if (t) return t;
		}
		return (el.getAttribute("title") || "").trim();
	},
};
`

// lectureJS wraps body in a function that can use lk.
func lectureJS(body string) string { return "(() => {" + lectureLib + body + "})()" }

// TestLecture works through each scene in one tab: reaching every control
// with Tab alone, the keyboard shortcuts, the canvas's text alternative,
// the links that hide panels, WCAG AA contrast in both themes, and
// presentation mode.
func TestLecture(t *testing.T) {
	for _, sc := range lectureScenes {
		t.Run(sc.name, func(t *testing.T) {
			tb := newTab(t)
			tb.load(h.base + sc.link)
			t.Run("keyboard-only", func(t *testing.T) { keyboardOnly(tb.in(t), sc) })
			t.Run("shortcuts", func(t *testing.T) { shortcuts(tb.in(t), sc) })
			t.Run("text-alternative", func(t *testing.T) { textAlternative(tb.in(t), sc) })
			t.Run("hide", func(t *testing.T) { hideLinks(tb.in(t), sc) })
			t.Run("contrast", func(t *testing.T) { contrast(tb.in(t), sc) })
			t.Run("present", func(t *testing.T) { present(tb.in(t), sc) })
			tb.noProblems(sc.name)
		})
	}
}

// reopenLink brings the tab to link without reloading: the help dialog
// closed, the focus on the page's body.
func (t *tab) reopenLink(link string) {
	t.tb.Helper()
	eval[bool](t, fmt.Sprintf(`(() => {
		const d = document.getElementById("help");
		if (d && d.open) d.close();
		headlab.open(%s);
		return true;
	})()`, jsString(link)))
	t.focusBody()
}

// focusBody takes the focus out of any field or frame, onto the page.
func (t *tab) focusBody() {
	t.tb.Helper()
	ok := eval[bool](t, `(() => {
		const a = document.activeElement;
		if (a && a !== document.body) a.blur();
		window.focus();
		return document.activeElement === document.body && document.hasFocus();
	})()`)
	if !ok {
		t.tb.Fatalf("could not give the page's body the focus: active element %s", eval[string](t, lectureJS(`return lk.path(document.activeElement);`)))
	}
}

// focusTarget is one control a keyboard user must reach.
type focusTarget struct {
	Key  string `json:"key"`
	Path string `json:"path"`
	Name string `json:"name"`
}

// keyboardOnly presses Tab from the top of a freshly loaded page until
// every visible, enabled control has had the focus, and checks each has an
// accessible name. Tab must also leave the canvas: a control that keeps
// the focus is a keyboard trap (WCAG 2.1.2).
func keyboardOnly(tb *tab, sc lectureScene) {
	targets := eval[[]focusTarget](tb, lectureJS(`
		const out = [], groups = {};
		lk.interactive().forEach((el, i) => {
			let key = "k" + i;
			// One radio button of a group is in the tab order.
			if (el.type === "radio" && el.name) key = groups[el.name] || (groups[el.name] = key);
			el.dataset.lk = key;
			out.push({ key, path: lk.path(el), name: lk.name(el) });
		});
		return out;`))
	if len(targets) < 5 {
		tb.tb.Fatalf("only %d controls found in the %s scene: %+v", len(targets), sc.name, targets)
	}
	var unnamed []string
	for _, x := range targets {
		if x.Name == "" {
			unnamed = append(unnamed, x.Path)
		}
	}
	if len(unnamed) > 0 {
		tb.tb.Errorf("%d control(s) without an accessible name (no label, aria-label, aria-labelledby, title or text):%s", len(unnamed), joinLines(unnamed))
	}

	const activeJS = `(() => {
		const a = document.activeElement;
		if (!a || a === document.body) return "(body)";
		return a.dataset.lk || ("(other) " + lk.path(a));
	})()`
	start := eval[string](tb, lectureJS(`return document.activeElement === document.body ? "" : lk.path(document.activeElement);`))
	if start != "" {
		tb.tb.Logf("after loading, %s has the focus; Tab starts from there and wraps round", start)
	}
	want := map[string]bool{}
	for _, x := range targets {
		want[x.Key] = true
	}
	reached := map[string]bool{}
	var seq []string
	trap := ""
	limit := 2*len(want) + 10
	for k := 0; k < limit && len(reached) < len(want); k++ {
		tb.do("pressing Tab", chromedp.KeyEvent(kb.Tab))
		got := eval[string](tb, lectureJS("return "+activeJS+";"))
		seq = append(seq, got)
		if want[got] {
			reached[got] = true
		}
		if n := len(seq); n >= 4 && got != "(body)" && seq[n-2] == got && seq[n-3] == got && seq[n-4] == got {
			trap = got
			break
		}
	}
	paths := map[string]string{"(body)": "(body)"}
	for _, x := range targets {
		paths[x.Key] = x.Path
	}
	named := func(keys []string) []string {
		var out []string
		for _, k := range keys {
			if p, ok := paths[k]; ok {
				out = append(out, p)
			} else {
				out = append(out, k)
			}
		}
		return out
	}
	tb.tb.Logf("%s: %d controls, %d reached in %d presses of Tab", sc.name, len(want), len(reached), len(seq))
	if trap != "" {
		tb.tb.Errorf("keyboard trap: Tab keeps the focus on %s (4 presses in a row)", named([]string{trap})[0])
	}
	var missed []string
	for _, x := range targets {
		if !reached[x.Key] {
			missed = append(missed, x.Path+" ("+shorten(x.Name, 40)+")")
		}
	}
	if len(missed) > 0 {
		tb.tb.Errorf("%d of %d controls never got the focus from Tab:%s\nfocus went:%s", len(missed), len(want), joinLines(missed), joinLines(named(seq)))
	}
}

// shortcuts checks "?" opens the help and Escape closes it, "t" switches
// the theme both ways, and neither key does anything typed into a number
// field.
func shortcuts(tb *tab, sc lectureScene) {
	tb.reopenLink(sc.link)
	const helpOpen = `document.getElementById("help").open`
	tb.do("pressing ?", chromedp.KeyEvent("?"))
	tb.waitFor("? to open the help dialog", helpOpen)
	if !eval[bool](tb, `document.getElementById("help").matches(":modal")`) {
		tb.tb.Errorf("the help dialog is open but not modal")
	}
	tb.do("pressing Escape", chromedp.KeyEvent(kb.Escape))
	tb.waitFor("Escape to close the help dialog", "!"+helpOpen)

	// The same with the canvas focused, as after a click on it: the
	// canvas hands its keys to the page.
	if !eval[bool](tb, `(() => {
		const f = document.getElementById("canvas"), c = f.contentDocument.querySelector("canvas");
		if (!c) return false;
		c.focus();
		return document.activeElement === f && f.contentDocument.activeElement === c;
	})()`) {
		tb.tb.Fatalf("could not focus the canvas")
	}
	tb.do("pressing ? on the canvas", chromedp.KeyEvent("?"))
	tb.waitFor("? on the canvas to open the help dialog", helpOpen)
	tb.do("pressing Escape", chromedp.KeyEvent(kb.Escape))
	tb.waitFor("Escape to close the help dialog", "!"+helpOpen)

	tb.focusBody()
	theme := eval[string](tb, `document.documentElement.dataset.theme`)
	other := map[string]string{"light": "dark", "dark": "light"}[theme]
	if other == "" {
		tb.tb.Fatalf("data-theme is %q, want light or dark", theme)
	}
	for _, want := range []string{other, theme} {
		tb.do("pressing t", chromedp.KeyEvent("t"))
		tb.waitFor("t to switch the theme to "+want, fmt.Sprintf(
			`document.documentElement.dataset.theme === %q && headlab.state().theme === %q && location.hash === headlab.link()`, want, want))
	}

	// Typed into a field, the keys are text, not shortcuts.
	field := eval[string](tb, lectureJS(`
		const f = lk.interactive().find((el) => el.tagName === "INPUT" && el.type === "number");
		if (!f) return "";
		f.scrollIntoView({ block: "center" });
		f.focus();
		f.dataset.lkField = f.value;
		return document.activeElement === f ? lk.path(f) : "";`))
	if field == "" {
		tb.tb.Fatalf("no visible number field to type into in the %s scene", sc.name)
	}
	tb.do("typing t and ? into "+field, chromedp.KeyEvent("t?t"))
	tb.frames(2)
	type after struct {
		Theme  string `json:"theme"`
		Help   bool   `json:"help"`
		Active bool   `json:"active"`
	}
	a := eval[after](tb, `(() => {
		const f = document.querySelector("[data-lk-field]");
		return { theme: document.documentElement.dataset.theme, help: document.getElementById("help").open, active: document.activeElement === f };
	})()`)
	if a.Theme != theme {
		tb.tb.Errorf("typing t into %s switched the theme from %s to %s", field, theme, a.Theme)
	}
	if a.Help {
		tb.tb.Errorf("typing ? into %s opened the help dialog", field)
	}
	if !a.Active {
		tb.tb.Errorf("typing t and ? into %s moved the focus away from it", field)
	}
	eval[bool](tb, `(() => {
		const f = document.querySelector("[data-lk-field]");
		f.value = f.dataset.lkField;
		delete f.dataset.lkField;
		f.blur();
		const d = document.getElementById("help");
		if (d.open) d.close();
		return true;
	})()`)
}

var digit = regexp.MustCompile(`[0-9]`)

// textAlternative checks #canvas-alt describes the canvas with numbers,
// where a screen reader reads it, and follows the state.
func textAlternative(tb *tab, sc lectureScene) {
	tb.reopenLink(sc.link)
	type alt struct {
		Text    string `json:"text"`
		Exposed bool   `json:"exposed"`
	}
	const altJS = `(() => {
		const a = document.getElementById("canvas-alt");
		if (!a) return { text: "", exposed: false };
		const cs = getComputedStyle(a);
		return { text: a.textContent, exposed: cs.display !== "none" && cs.visibility !== "hidden" && !a.closest("[aria-hidden=true], [hidden]") };
	})()`
	a0 := eval[alt](tb, altJS)
	if !a0.Exposed {
		tb.tb.Errorf("#canvas-alt is hidden from assistive technology (display:none, visibility:hidden, hidden or aria-hidden)")
	}
	if !digit.MatchString(a0.Text) {
		tb.tb.Errorf("the text alternative of %s has no number: %q", sc.link, a0.Text)
	}
	eval[bool](tb, fmt.Sprintf(`(headlab.open(%s), true)`, jsString(sc.other)))
	tb.waitFor("the text alternative to follow the state", fmt.Sprintf(`document.getElementById("canvas-alt").textContent !== %s`, jsString(a0.Text)))
	a1 := eval[alt](tb, altJS)
	if !digit.MatchString(a1.Text) {
		tb.tb.Errorf("the text alternative of %s has no number: %q", sc.other, a1.Text)
	}
	tb.tb.Logf("%s: %q\n%s: %q", sc.link, a0.Text, sc.other, a1.Text)
}

// panelsJS marks and lists, for each hide name, the hideable-NAME
// elements shown now, and lists the form fields shown in the side panel
// outside the export and table panels.
const panelsJS = `
	const names = %s;
	const out = { shown: {}, fields: [], canvas: lk.shown(document.getElementById("canvas")), classes: document.body.className };
	for (const n of names) {
		out.shown[n] = [];
		for (const el of document.querySelectorAll(".hideable-" + n)) {
			if (!lk.shown(el)) continue;
			el.dataset.lh = (el.dataset.lh ? el.dataset.lh + " " : "") + n;
			out.shown[n].push(lk.path(el));
		}
	}
	for (const el of document.querySelectorAll(".panel input, .panel select, .panel textarea")) {
		if (el.closest(".hideable-export, .hideable-tables")) continue;
		if (lk.shown(el)) out.fields.push(lk.path(el));
	}
	return out;`

type panelsShown struct {
	Shown   map[string][]string `json:"shown"`
	Fields  []string            `json:"fields"`
	Canvas  bool                `json:"canvas"`
	Classes string              `json:"classes"`
}

// hideLinks opens the scene's link with each hide name and checks that
// exactly the panels it names disappear, and that each name the scene
// offers hides something.
func hideLinks(tb *tab, sc lectureScene) {
	names := jsonOf(link.Panels)
	// An unknown key makes a notice, so that the notices panel shows.
	base := sc.link + "&lecture=1"
	tb.reopenLink(base)
	tb.waitFor("the notices panel", `!document.getElementById("notices").hidden`)
	before := eval[panelsShown](tb, lectureJS(fmt.Sprintf(panelsJS, names)))
	for _, n := range sc.panels {
		if len(before.Shown[n]) == 0 {
			tb.tb.Errorf("hide=%s hides nothing in the %s scene: no element shown there has the class hideable-%s", n, sc.name, n)
		}
	}
	// What the page hides itself (other scenes' parts, the landing page)
	// must stay hidden: a display rule in style.css overrides [hidden].
	if shown := eval[[]string](tb, lectureJS(`return [...document.querySelectorAll("[hidden]")].filter((el) => lk.shown(el)).map(lk.path);`)); len(shown) > 0 {
		tb.tb.Errorf("%d element(s) with the hidden attribute are shown in the %s scene (a CSS display rule overrides [hidden]):%s", len(shown), sc.name, joinLines(shown))
	}
	if len(before.Fields) == 0 {
		tb.tb.Errorf("no form field shown in the %s scene's panel", sc.name)
	}
	for _, n := range link.Panels {
		tb.reopenLink(base + "&hide=" + n)
		tb.waitFor("body.hide-"+n, fmt.Sprintf(`document.body.classList.contains("hide-%s") && location.hash.includes("hide=%s")`, n, n))
		type check struct {
			StillShown []string `json:"stillShown"` // marked with n, yet shown
			Lost       []string `json:"lost"`       // marked with others only, now hidden or gone
			Fields     []string `json:"fields"`
			Canvas     bool     `json:"canvas"`
		}
		c := eval[check](tb, lectureJS(fmt.Sprintf(`
			const n = %q, out = { stillShown: [], lost: [], fields: [], canvas: lk.shown(document.getElementById("canvas")) };
			for (const el of document.querySelectorAll("[data-lh]")) {
				const mine = el.dataset.lh.split(" ").includes(n);
				if (mine && lk.shown(el)) out.stillShown.push(lk.path(el));
				// A panel inside the hidden one goes with it.
				if (!mine && !lk.shown(el) && !el.closest(".hideable-" + n)) out.lost.push(lk.path(el) + " (" + el.dataset.lh + ")");
			}
			for (const el of document.querySelectorAll(".panel input, .panel select, .panel textarea")) {
				if (el.closest(".hideable-export, .hideable-tables")) continue;
				if (lk.shown(el)) out.fields.push(lk.path(el));
			}
			return out;`, n)))
		// Every marked element of n must still be in the page to be judged.
		if gone := len(before.Shown[n]) - eval[int](tb, fmt.Sprintf(`[...document.querySelectorAll("[data-lh]")].filter((el) => el.dataset.lh.split(" ").includes(%q)).length`, n)); gone > 0 {
			tb.tb.Logf("hide=%s: %d panel(s) were rebuilt, not judged", n, gone)
		}
		if len(c.StillShown) > 0 {
			tb.tb.Errorf("hide=%s leaves %d hideable-%s panel(s) shown:%s", n, len(c.StillShown), n, joinLines(c.StillShown))
		}
		if len(c.Lost) > 0 {
			tb.tb.Errorf("hide=%s also hides other panels:%s", n, joinLines(c.Lost))
		}
		if !c.Canvas {
			tb.tb.Errorf("hide=%s hides the canvas", n)
		}
		if n == "controls" && len(c.Fields) > 0 {
			tb.tb.Errorf("hide=controls leaves %d form field(s) shown in the %s scene's panel:%s", len(c.Fields), sc.name, joinLines(c.Fields))
		}
	}
	eval[bool](tb, `([...document.querySelectorAll("[data-lh]")].forEach((el) => delete el.dataset.lh), true)`)
}

// present opens the scene in presentation mode and checks what style.css
// does for body.present: large type, the side panel (every control), the
// intro's paragraphs and the footer hidden, the canvas larger; then p
// leaves presentation mode.
func present(tb *tab, sc lectureScene) {
	tb.reopenLink(sc.link)
	normal := eval[float64](tb, `document.getElementById("canvas").getBoundingClientRect().height`)
	tb.load(h.base + sc.link + "&present=1")
	type look struct {
		Present  bool     `json:"present"`
		Pressed  string   `json:"pressed"`
		FontSize float64  `json:"fontSize"`
		Shown    []string `json:"shown"`  // what presentation mode must hide, yet shown
		Fields   []string `json:"fields"` // form fields shown outside the top bar
		Canvas   float64  `json:"canvas"` // the canvas's height, 0 when hidden
	}
	const lookJS = `
		const out = { present: document.body.classList.contains("present"), pressed: document.getElementById("present").getAttribute("aria-pressed"),
			fontSize: parseFloat(getComputedStyle(document.body).fontSize), shown: [], fields: [], canvas: 0 };
		for (const el of document.querySelectorAll(".panel, .intro p, .foot")) if (lk.shown(el)) out.shown.push(lk.path(el));
		for (const el of document.querySelectorAll("input, select, textarea")) {
			if (el.closest(".topbar, dialog") || el.type === "hidden") continue;
			if (lk.shown(el)) out.fields.push(lk.path(el));
		}
		const c = document.getElementById("canvas");
		if (lk.shown(c)) out.canvas = c.getBoundingClientRect().height;
		return out;`
	l := eval[look](tb, lectureJS(lookJS))
	if !l.Present {
		tb.tb.Errorf("present=1: body has no class present")
	}
	if l.Pressed != "true" {
		tb.tb.Errorf("present=1: the Present button has aria-pressed=%q", l.Pressed)
	}
	if l.FontSize < 20 {
		tb.tb.Errorf("present=1: the text is %v px, not large", l.FontSize)
	}
	if len(l.Shown) > 0 {
		tb.tb.Errorf("present=1 leaves shown what presentation mode hides:%s", joinLines(l.Shown))
	}
	if len(l.Fields) > 0 {
		tb.tb.Errorf("present=1 leaves %d control(s) shown:%s", len(l.Fields), joinLines(l.Fields))
	}
	if l.Canvas <= normal {
		tb.tb.Errorf("present=1: the canvas is %.0f px high, %.0f px without presentation mode", l.Canvas, normal)
	}
	tb.focusBody()
	tb.do("pressing p", chromedp.KeyEvent("p"))
	tb.waitFor("p to leave presentation mode", `!document.body.classList.contains("present") && headlab.state().present === false && !location.hash.includes("present=1")`)
	l = eval[look](tb, lectureJS(lookJS))
	if len(l.Fields) == 0 {
		tb.tb.Errorf("after leaving presentation mode no control is shown")
	}
}

// contrastJS lists the text in root that fails WCAG AA contrast: 4.5:1,
// or 3:1 for large text (24 px, or 18.66 px bold). The text's colour is
// blended over its background, found by walking up to the first opaque
// background colour and compositing the translucent ones on the way.
// Disabled controls and their labels are exempt, as WCAG exempts them.
const contrastJS = `
	const parse = (s) => {
		let m = s.match(/^rgba?\(([^)]+)\)$/);
		if (m) { const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; }
		m = s.match(/^color\(srgb ([^)]+)\)$/);
		if (m) { const p = m[1].split(/[\s\/]+/).filter(Boolean).map(Number); return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1]; }
		return null;
	};
	const over = (top, bottom) => [0, 1, 2].map((i) => top[3] * top[i] + (1 - top[3]) * bottom[i]).concat([1]);
	const lum = (c) => {
		const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
		return 0.2126 * r + 0.7152 * g + 0.0722 * b;
	};
	const hex = (c) => "#" + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
	const tiny = (el) => { for (let e = el; e && e !== document.body; e = e.parentElement) { const r = e.getBoundingClientRect(); if (r.width <= 1 || r.height <= 1) return true; } return false; };
	const fieldTypes = /^(text|number|search|url|email|tel|password)$/;
	const out = { checked: 0, skipped: [], bad: [] };
	for (const el of root.querySelectorAll("*")) {
		if (el instanceof SVGElement || /^(OPTION|SCRIPT|STYLE|TEMPLATE|NOSCRIPT)$/.test(el.tagName)) continue;
		const isField = (el.tagName === "INPUT" && fieldTypes.test(el.type) && el.value !== "") || el.tagName === "SELECT";
		const text = isField ? (el.tagName === "SELECT" ? (el.selectedOptions[0] || {}).text || "" : el.value)
			: [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.data).join("").trim();
		if (!text) continue;
		if (!lk.shown(el) || !el.checkVisibility({ opacityProperty: true }) || tiny(el)) continue;
		if (el.closest(":disabled, [aria-disabled=true]")) continue;
		const lab = el.closest("label");
		if (lab && lab.control && lab.control.disabled) continue;
		const cs = getComputedStyle(el);
		let fg = parse(cs.color);
		// The background: translucent layers down to the first opaque one.
		const layers = [];
		let alpha = 1, image = "", a = el;
		for (; a; a = a.parentElement) {
			const s = getComputedStyle(a);
			if (s.backgroundImage && s.backgroundImage !== "none") { image = lk.path(a); break; }
			const c = parse(s.backgroundColor);
			if (!c) { image = lk.path(a) + " background " + s.backgroundColor; break; }
			if (c[3] > 0) layers.push(c);
			if (c[3] >= 1) break;
			alpha *= parseFloat(s.opacity);
		}
		if (image || !fg) { out.skipped.push(lk.path(el) + ": " + (image ? "background image at " + image : "colour " + cs.color)); continue; }
		let bg = layers.length && layers[layers.length - 1][3] >= 1 ? layers.pop() : [255, 255, 255, 1];
		while (layers.length) bg = over(layers.pop(), bg);
		fg = over([fg[0], fg[1], fg[2], fg[3] * alpha], bg);
		const l1 = lum(fg), l2 = lum(bg);
		const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
		const size = parseFloat(cs.fontSize), bold = parseInt(cs.fontWeight, 10) >= 700;
		const need = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
		out.checked++;
		if (ratio < need) out.bad.push(lk.path(el) + " " + JSON.stringify(text.trim().slice(0, 30)) + ": " + hex(fg) + " on " + hex(bg) +
			" is " + ratio.toFixed(2) + ":1, needs " + need + ":1 (" + size + "px" + (bold ? " bold" : "") + ")");
	}
	return out;`

type contrastResult struct {
	Checked int      `json:"checked"`
	Skipped []string `json:"skipped"`
	Bad     []string `json:"bad"`
}

// contrast checks the text of the page, and of the help dialog, in both themes.
func contrast(tb *tab, sc lectureScene) {
	for _, theme := range []string{"light", "dark"} {
		tb.reopenLink(sc.link + "&theme=" + theme)
		tb.waitFor("the "+theme+" theme", fmt.Sprintf(`document.documentElement.dataset.theme === %q`, theme))
		page := eval[contrastResult](tb, lectureJS("const root = document.body;"+contrastJS))
		// The help dialog, with its class-link section open.
		eval[bool](tb, `(() => {
			document.getElementById("help-open").click();
			const d = document.querySelector("#help details");
			if (d) d.open = true;
			return document.getElementById("help").open;
		})()`)
		help := eval[contrastResult](tb, lectureJS(`const root = document.getElementById("help");`+contrastJS))
		eval[bool](tb, `(document.getElementById("help").close(), true)`)
		tb.tb.Logf("%s theme: %d texts on the page and %d in the help checked; %d skipped", theme, page.Checked, help.Checked, len(page.Skipped)+len(help.Skipped))
		if page.Checked < 10 || help.Checked < 5 {
			tb.tb.Errorf("%s theme: only %d texts on the page and %d in the help were checked", theme, page.Checked, help.Checked)
		}
		if s := append(page.Skipped, help.Skipped...); len(s) > 0 {
			tb.tb.Logf("not judged:%s", joinLines(s))
		}
		if bad := append(page.Bad, help.Bad...); len(bad) > 0 {
			tb.tb.Errorf("%s theme, %s: %d text(s) below WCAG AA contrast:%s", theme, sc.link, len(bad), joinLines(bad))
		}
	}
}

// TestLectureTouch drags a token with a finger on a phone-sized page, and
// checks the token moved and the page did not scroll while dragging, after
// checking that the same finger movement outside the canvas does scroll.
func TestLectureTouch(t *testing.T) {
	tb := newTab(t)
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 360, Height: 640, DeviceScaleFactor: 1, Mobile: true,
	}); err != nil {
		t.Fatalf("sizing the window: %v", err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5}); err != nil {
		t.Fatalf("emulating touch: %v", err)
	}
	tb.load(h.base + "#v=1&scene=attention&H=2&d=2&seed=1")
	if n := eval[int](tb, `navigator.maxTouchPoints`); n != 5 {
		t.Errorf("navigator.maxTouchPoints = %d under touch emulation", n)
	}

	// The control: a finger moving up on text scrolls the page.
	eval[bool](tb, `(scrollTo(0, 0), true)`)
	p := eval[*[2]float64](tb, `(() => {
		for (let y = Math.round(innerHeight * 0.35); y < innerHeight - 100; y += 10) {
			const x = innerWidth / 2, el = document.elementFromPoint(x, y);
			if (el && !el.closest("iframe, a, button, input, select, textarea, summary, label, details, math, .formula")) return [x, y];
		}
		return null;
	})()`)
	if p == nil {
		t.Fatalf("no plain text in the phone's viewport to scroll the page by")
	}
	y0 := eval[float64](tb, `scrollY`)
	tb.swipe(*p, [2]float64{p[0], p[1] - 80}, nil)
	// A touch that lands while the page still flings is not cancelable:
	// wait for the scrolling to end.
	if y1 := tb.settled(); y1 <= y0 {
		t.Errorf("a finger moving up 80 px on the text at (%.0f, %.0f) left scrollY at %v: the no-scroll check below would prove nothing", p[0], p[1], y1)
	}

	// Drag token 0 with a finger.
	eval[bool](tb, `(document.getElementById("canvas").scrollIntoView({block: "center"}), true)`)
	tb.settled()
	before := tb.snap()
	from := tb.point(0)
	box := eval[[6]float64](tb, canvasBoxJS)
	if from[0] < 0 || from[1] < 0 || from[0] > box[4] || from[1] > box[5] {
		t.Fatalf("token 0 at (%.1f, %.1f) is outside the %vx%v viewport", from[0], from[1], box[4], box[5])
	}
	scroll0 := eval[[2]float64](tb, `[scrollX, scrollY]`)
	cx, cy := box[0]+box[2]/2, box[1]+box[3]/2
	dx, dy := math.Copysign(60, cx-from[0]), math.Copysign(60, cy-from[1])
	to := [2]float64{from[0] + dx, from[1] + dy}
	var scrolled []string
	var held [2]float64
	tb.swipe(from, to, func(k int) {
		tb.frames(1)
		if s := eval[[2]float64](tb, `[scrollX, scrollY]`); s != scroll0 {
			scrolled = append(scrolled, fmt.Sprintf("move %d: scroll (%v, %v)", k, s[0], s[1]))
		}
		held = tb.point(0)
	})
	if len(scrolled) > 0 {
		t.Errorf("dragging token 0 with a finger scrolled the page from (%v, %v):%s", scroll0[0], scroll0[1], joinLines(scrolled))
	}
	// The last move may reach the canvas a few frames later on a busy
	// machine: wait for the token to arrive, with a generous deadline.
	for deadline := time.Now().Add(2 * time.Minute); math.Hypot(held[0]-to[0], held[1]-to[1]) > 3 && time.Now().Before(deadline); {
		tb.frames(1)
		held = tb.point(0)
	}
	if off := math.Hypot(held[0]-to[0], held[1]-to[1]); off > 3 {
		t.Errorf("token 0 was dragged by finger from (%.1f, %.1f) to (%.1f, %.1f) but drawn at (%.1f, %.1f), %.1f px away", from[0], from[1], to[0], to[1], held[0], held[1], off)
	}
	tb.waitFor("the new link in the address bar", fmt.Sprintf("location.hash === headlab.link() && location.hash !== %s", jsString(before.Link)))
	after := tb.snap()
	if s := eval[[2]float64](tb, `[scrollX, scrollY]`); s != scroll0 {
		t.Errorf("after the drag the page is scrolled to (%v, %v), from (%v, %v)", s[0], s[1], scroll0[0], scroll0[1])
	}
	st, d := before.State, before.State.D
	if len(after.State.Tok) != len(st.Tok) {
		t.Fatalf("tok has %d numbers after the drag, %d before", len(after.State.Tok), len(st.Tok))
	}
	for j := d; j < len(st.Tok); j++ {
		if after.State.Tok[j] != st.Tok[j] {
			t.Errorf("dragging token 0 changed tok[%d]: %v → %v", j, st.Tok[j], after.State.Tok[j])
		}
	}
	mx, my := after.State.Tok[0]-st.Tok[0], after.State.Tok[1]-st.Tok[1]
	if math.Abs(mx) < 0.05 || math.Signbit(mx) != math.Signbit(dx) || math.Abs(my) < 0.05 || math.Signbit(my) == math.Signbit(dy) {
		t.Errorf("a finger drag of (%+.0f, %+.0f) px moved token 0 by (%v, %v) in the plane", dx, dy, mx, my)
	}
	t.Logf("finger drag of (%+.0f, %+.0f) px moved token 0 by (%.2f, %.2f); scroll stayed at %v", dx, dy, mx, my, scroll0)
	tb.noProblems("touch")
}

// settled waits until the page has not scrolled for ten animation frames
// (or gives up after 600) and returns scrollY.
func (t *tab) settled() float64 {
	t.tb.Helper()
	return eval[float64](t, `new Promise((r) => {
		let last = scrollY, same = 0, n = 0;
		const f = () => {
			if (scrollY === last) same++;
			else { same = 0; last = scrollY; }
			if (same >= 10 || ++n > 600) r(scrollY);
			else requestAnimationFrame(f);
		};
		requestAnimationFrame(f);
	})`)
}

// swipe moves one finger from a to b in six steps, calling each (when not
// nil) after every move with the finger still down.
func (t *tab) swipe(a, b [2]float64, each func(k int)) {
	t.tb.Helper()
	t.touch(input.DispatchTouchEventTypeTouchStart, a)
	t.frames(2)
	const steps = 6
	for k := 1; k <= steps; k++ {
		f := float64(k) / steps
		t.touch(input.DispatchTouchEventTypeTouchMove, [2]float64{a[0] + f*(b[0]-a[0]), a[1] + f*(b[1]-a[1])})
		if each != nil {
			each(k)
		}
	}
	t.frames(2)
	t.touch(input.DispatchTouchEventTypeTouchEnd, b)
}

// touch sends one touch event with one finger at page coordinates.
func (t *tab) touch(typ input.DispatchTouchEventType, p [2]float64) {
	t.tb.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, stepTimeout)
	defer cancel()
	params := input.DispatchTouchEventParams{Type: typ, TouchPoints: []*input.TouchPoint{}}
	if typ == input.DispatchTouchEventTypeTouchStart || typ == input.DispatchTouchEventTypeTouchMove {
		id := 1.0
		params.TouchPoints = []*input.TouchPoint{{X: p[0], Y: p[1], ID: &id}}
	}
	if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, params); err != nil {
		t.tb.Fatalf("touch %s at (%.1f, %.1f): %v", typ, p[0], p[1], err)
	}
}

// overflowJS lists the shown elements that stick out of the viewport
// sideways, outermost first, leaving out those inside a scrolling or
// clipping box that is itself inside the viewport. The viewport's width is
// the root's clientWidth: with a mobile viewport, innerWidth grows to take
// in whatever sticks out (the browser zooms out), so it would hide the
// very overflow looked for.
const overflowJS = `(() => {
	const W = document.documentElement.clientWidth, out = [], seen = new Set();
	for (const el of document.body.querySelectorAll("*")) {
		if (el.getClientRects().length === 0 || !el.checkVisibility({ visibilityProperty: true })) continue;
		const r = el.getBoundingClientRect();
		if (r.width === 0 || r.height === 0 || (r.right <= W + 1 && r.left >= -1)) continue;
		let skip = false;
		for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
			if (seen.has(a)) { skip = true; break; }
			if (/^(auto|hidden|scroll|clip)$/.test(getComputedStyle(a).overflowX)) {
				const ar = a.getBoundingClientRect();
				if (ar.left >= -1 && ar.right <= W + 1) { skip = true; break; }
			}
		}
		if (skip) continue;
		seen.add(el);
		let path = "";
		for (let e = el; e && e !== document.body && path.split(" > ").length < 5; e = e.parentElement) {
			let s = e.tagName.toLowerCase() + (e.id ? "#" + e.id : e.classList.length ? "." + [...e.classList].slice(0, 2).join(".") : "");
			path = path ? s + " > " + path : s;
			if (e.id) break;
		}
		out.push(path + " [" + Math.round(r.left) + ", " + Math.round(r.right) + "]");
	}
	return out;
})()`

// overflowing returns the elements sticking out of the viewport sideways.
func (t *tab) overflowing() []string {
	t.tb.Helper()
	return eval[[]string](t, overflowJS)
}

// jsonOf writes xs as a JavaScript array literal.
func jsonOf(xs []string) string {
	b, _ := json.Marshal(xs)
	return string(b)
}
