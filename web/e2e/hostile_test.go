package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// hostileLinks are links a stranger could send. Each must leave the page
// working, inside its schema, with a notice, and with nothing injected.
func hostileLinks() []struct{ name, link string } {
	// 10 kB of garbage from a fixed seed: URL syntax, markup, quotes,
	// escapes and non-ASCII text.
	rng := rand.New(rand.NewPCG(7, 0x686f7374696c65)) // "hostile"
	alphabet := []rune("abcHNdW0123456789&&&===%%%<>\"'`;:/?#[]{}()+,.-!~*$@^|\\ \téß漢🙂\u202e")
	var garbage strings.Builder
	garbage.WriteString("#v=1&")
	for garbage.Len() < 10<<10 {
		garbage.WriteRune(alphabet[rng.IntN(len(alphabet))])
	}
	return []struct{ name, link string }{
		{"NaN", "#v=1&scene=attention&H=NaN&d=nan&N=NaN&seed=NaN&heat=NaN"},
		{"1e308-future", "#v=999&scene=attention&H=1e308&d=1e308&N=1e308&seed=18446744073709551616&heat=1e308"},
		{"negative-sizes", "#v=1&scene=attention&H=-1&d=-2&N=-64&heat=-1&seed=-5"},
		{"d-million", "#v=1&scene=attention&d=1000000"},
		{"H-zero", "#v=1&scene=attention&H=0&N=0&d=0"},
		{"script-key", "#v=1&scene=attention&<script>window.__pwned=1</script>=1"},
		{"script-value", "#v=1&scene=<script>window.__pwned=1</script>&mode=<script>window.__pwned=2</script>"},
		{"script-escaped", "#v=1&scene=attention&theme=%3Cscript%3Ewindow.__pwned%3D1%3C%2Fscript%3E"},
		{"img-svg-handlers", `#v=1&scene=javascript:window.__pwned=1&mode=<img src=x onerror="window.__pwned=1">&<img src=x onerror=window.__pwned=1>=2&theme="><svg onload=window.__pwned=1>`},
		{"unicode", "#v=1&scene=attention&mode=模式🙂&ключ=значение&H=٣&theme=\u202edark"},
		{"percent-garbage", "#v=1&scene=attention&H=%ZZ&%E0%A4%A=1&d=%&N=%%%&seed=%00%0D%0A"},
		{"garbage-10kB", garbage.String()},
		{"long-70kB", "#v=1&scene=attention&tok=" + strings.Repeat("1.5,", 70<<10/4)},
		{"duplicate-keys", "#v=1&scene=attention&H=2&H=3&H=2&d=3&d=3&v=1"},
		{"unknown-keys", "#v=1&scene=attention&foo=bar&__proto__=x&constructor=y&toString=z"},
		{"wrong-counts", "#v=1&scene=attention&H=2&d=2&W=1,2,3&val=1,2,3,4,5&tok=1,2"},
		{"inf", "#v=1&scene=attention&N=2&d=2&tok=Inf,-Inf,1e400,2&W=1e309,0,0,1,1,0,0,1,1,0,0,1"},
		{"theme-markup", "#v=1&scene=attention&theme=<b>bold</b>"},
		{"step-noise-heat", "#v=1&scene=attention&step=-1&noise=NaN&mode=economy&H=2&heat=7&present=maybe"},
		{"empty-parts", "#&&&=&==&v&H=&tok=,,,"},
	}
}

// baselineJS counts the elements the page makes itself and that an
// injection would add, in the page and in the canvas's iframe.
const baselineJS = `(() => {
	const tags = ["script", "img", "b", "i", "iframe", "object", "embed", "svg", "math", "style", "link", "meta", "base", "a", "form", "video", "audio", "template", "marquee"];
	const f = document.getElementById("canvas");
	const docs = [document, f && f.contentDocument].filter(Boolean);
	const counts = {};
	docs.forEach((d, k) => tags.forEach((t) => { counts[k + ":" + t] = d.getElementsByTagName(t).length; }));
	const handlers = [];
	for (const d of docs) for (const el of d.querySelectorAll("*")) for (const a of el.attributes)
		if (/^on/i.test(a.name) || /^\s*javascript:/i.test(a.value)) handlers.push(el.tagName + "[" + a.name + "=" + a.value.slice(0, 60) + "]");
	const shown = document.getElementById("notices");
	const items = [...document.querySelectorAll("#notice-list li")];
	return {
		counts, handlers,
		pwned: [window.__pwned, f && f.contentWindow && f.contentWindow.__pwned].some((v) => v !== undefined),
		title: document.title,
		markup: items.filter((li) => li.children.length > 0).map((li) => li.innerHTML.slice(0, 200)),
		noticesShown: !shown.hidden && shown.getClientRects().length > 0 && getComputedStyle(shown).visibility !== "hidden",
		notices: items.map((li) => li.textContent),
	};
})()`

// pageCheck is what baselineJS returns.
type pageCheck struct {
	Counts       map[string]int `json:"counts"`
	Handlers     []string       `json:"handlers"`
	Pwned        bool           `json:"pwned"`
	Title        string         `json:"title"`
	Markup       []string       `json:"markup"`
	NoticesShown bool           `json:"noticesShown"`
	Notices      []string       `json:"notices"`
}

// hostileTabs is how many tabs share the hostile links. Each check waits
// mostly on its tab's renderer, so two tabs finish sooner on two cores.
const hostileTabs = 2

// TestHostileLinks opens each hostile link by navigating to it, then once
// more through headlab.open on the same page, and checks each time that
// the page is ready, shows a notice, holds a state inside the schema,
// writes its canonical link to the address bar, logs no console error and
// has nothing injected.
func TestHostileLinks(t *testing.T) {
	links := hostileLinks()
	for w := range hostileTabs {
		t.Run(fmt.Sprintf("tab%d", w+1), func(t *testing.T) {
			t.Parallel()
			tb := newTab(t)
			tb.load(h.base + "#v=1&scene=attention")
			base := eval[pageCheck](tb, baselineJS)
			tb.noProblems("clean load")
			if len(base.Handlers) > 0 {
				t.Errorf("the clean page already has inline handlers: %q", base.Handlers)
			}
			for i := w; i < len(links); i += hostileTabs {
				c := links[i]
				t.Run(c.name, func(t *testing.T) { hostile(tb.in(t), c.link, base) })
			}
			if w == 0 {
				t.Run("checks-see-injection", func(t *testing.T) { injected(tb.in(t), base) })
			}
		})
	}
}

// injected checks the checks on the page the last link left: markup
// injected into the notices on purpose must be seen by baselineJS, and the
// page's CSP must refuse to run its inline handler, which the console
// watch must see.
func injected(tb *tab, base pageCheck) {
	eval[bool](tb, `(document.getElementById("notice-list").insertAdjacentHTML("afterbegin",
		'<li><b>x</b><img src="data:," onerror="window.__pwned = 1"></li>'), true)`)
	tb.frames(2)
	pc := eval[pageCheck](tb, baselineJS)
	if pc.Counts["0:img"] != base.Counts["0:img"]+1 || pc.Counts["0:b"] != base.Counts["0:b"]+1 {
		tb.tb.Errorf("an injected <img> and <b> were not counted: %v, clean %v", pc.Counts, base.Counts)
	}
	if len(pc.Handlers) == 0 || len(pc.Markup) == 0 {
		tb.tb.Errorf("an injected onerror handler in the notices was not seen: handlers %q, markup %q", pc.Handlers, pc.Markup)
	}
	if pc.Pwned {
		tb.tb.Errorf("the page's CSP let an inline onerror handler run")
	}
	p := tb.takeProblems()
	if !strings.Contains(strings.Join(p, "\n"), "Content Security Policy") {
		tb.tb.Errorf("the console shows no CSP refusal of the injected handler: %q", p)
	}
}

// hostile checks one hostile link, opened by navigation and by open().
func hostile(tb *tab, link string, base pageCheck) {
	start := time.Now()
	tb.load(h.base + link)
	s, pc := tb.checkAll(snapshotJS)
	tb.judge("navigating to", link, s, pc, base)
	tb.tb.Logf("%d notices via navigation, e.g. %q (%v)", len(s.Errors), first(s.Errors), time.Since(start).Round(time.Millisecond))

	// The same link through headlab.open, unencoded by the browser.
	type opened struct {
		Notes []string        `json:"notes"`
		Snap  json.RawMessage `json:"snap"`
		Check pageCheck       `json:"check"`
	}
	o := eval[opened](tb, fmt.Sprintf(`(() => { const notes = headlab.open(%s); return {notes, snap: %s, check: %s}; })()`, jsString(link), snapshotJS, baselineJS))
	if len(o.Notes) == 0 {
		tb.tb.Errorf("headlab.open(%s) returned no notice", shorten(link, 200))
	}
	tb.judge("headlab.open of", link, tb.decodeSnap(o.Snap), o.Check, base)
	tb.sleep(50 * time.Millisecond) // let late messages arrive
	tb.noProblems(shorten(link, 160))
}

// checkAll reads a snapshot and the page check in one round trip.
func (t *tab) checkAll(snap string) (snapshot, pageCheck) {
	t.tb.Helper()
	type both struct {
		Snap  json.RawMessage `json:"snap"`
		Check pageCheck       `json:"check"`
	}
	b := eval[both](t, fmt.Sprintf("({snap: %s, check: %s})", snap, baselineJS))
	return t.decodeSnap(b.Snap), b.Check
}

// decodeSnap decodes a snapshot read as raw JSON.
func (t *tab) decodeSnap(raw json.RawMessage) snapshot {
	t.tb.Helper()
	var s snapshot
	if err := json.Unmarshal(raw, &s); err != nil {
		t.tb.Fatalf("decoding a snapshot %s: %v", shorten(string(raw), 300), err)
	}
	if err := json.Unmarshal(s.StateJSON, &s.State); err != nil {
		t.tb.Fatalf("headlab.state() %s: %v", shorten(string(s.StateJSON), 500), err)
	}
	if err := json.Unmarshal(s.FactsJSON, &s.Facts); err != nil {
		t.tb.Fatalf("headlab.facts() %s: %v", shorten(string(s.FactsJSON), 500), err)
	}
	return s
}

// judge checks one hostile link's outcome.
func (t *tab) judge(how, link string, s snapshot, pc, base pageCheck) {
	t.tb.Helper()
	fail := func(format string, args ...any) {
		t.tb.Errorf("%s %s: %s\n  state: %s\n  notices: %q", how, shorten(link, 160), fmt.Sprintf(format, args...), shorten(string(s.StateJSON), 400), s.Errors)
	}
	if !s.Ready {
		fail("headlab.ready is false")
	}
	if len(s.Errors) == 0 {
		fail("no notice in headlab.errors")
	}
	if !pc.NoticesShown || len(pc.Notices) == 0 {
		fail("the notices are not shown (section shown: %v, %d items)", pc.NoticesShown, len(pc.Notices))
	}
	for _, n := range pc.Notices {
		if strings.TrimSpace(n) == "" {
			fail("an empty notice is shown")
		}
	}
	if pc.Pwned {
		fail("window.__pwned is set: the link's script ran")
	}
	for k, n := range pc.Counts {
		if n != base.Counts[k] {
			fail("%d <%s> elements, %d on a clean page: something was injected", n, k, base.Counts[k])
		}
	}
	if len(pc.Handlers) > 0 {
		fail("inline handlers appeared: %q", pc.Handlers)
	}
	if len(pc.Markup) > 0 {
		fail("notices hold markup: %q", pc.Markup)
	}
	if pc.Title != base.Title {
		fail("the title changed to %q", pc.Title)
	}
	if p := schemaProblems(s); len(p) > 0 {
		fail("state outside the schema:%s", joinLines(p))
	}
	if s.Hash != s.Link {
		fail("location.hash %s ≠ headlab.link() %s", shorten(s.Hash, 200), shorten(s.Link, 200))
	}
	t.noProblems(how + " " + shorten(link, 160))
}

func first(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}
