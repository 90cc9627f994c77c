package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestPage opens the page once and works through its contract in order:
// a clean start, a drawn canvas, the figure promise, dragging a token and
// the query with real mouse events, reopening the resulting link in a new
// tab, and the HTML controls. Later steps build on earlier ones.
func TestPage(t *testing.T) {
	tb := newTab(t)
	start := time.Now()
	tb.load(h.base + "#v=1&scene=attention") // without a link the page opens on the chooser (TestLanding)
	t.Logf("page start to ready: %v", time.Since(start).Round(time.Millisecond))

	t.Run("ready-clean", func(t *testing.T) { readyClean(tb.in(t)) })
	t.Run("screenshot", func(t *testing.T) { screenshot(tb.in(t)) })
	t.Run("figure", func(t *testing.T) { figure(tb.in(t)) })
	var last snapshot
	t.Run("drag-token", func(t *testing.T) { last = drag(tb.in(t), func(s pageState) int { return 0 }) })
	t.Run("drag-query", func(t *testing.T) { last = drag(tb.in(t), func(s pageState) int { return s.N - 1 }) })
	t.Run("reopen", func(t *testing.T) {
		if last.Link == "" {
			t.Skip("no link: the drags failed")
		}
		reopen(newTab(t), last)
	})
	t.Run("controls", func(t *testing.T) { controls(tb.in(t)) })
	tb.noProblems("after all steps")
}

// readyClean checks the page reached ready with no console problem, no
// notice, a state inside the schema and the link in the address bar.
func readyClean(tb *tab) {
	if len(h.firstLoad) > 0 {
		tb.tb.Errorf("the browser's first visit to the page: %d console problem(s):%s", len(h.firstLoad), joinLines(h.firstLoad))
	}
	tb.sleep(300 * time.Millisecond) // let late messages arrive
	tb.noProblems("loading the page")
	s := tb.snap()
	if !s.Ready {
		tb.tb.Errorf("headlab.ready is false after the wait")
	}
	if len(s.Errors) > 0 {
		tb.tb.Errorf("a page opened on the default link shows notices: %q", s.Errors)
	}
	if hidden := eval[bool](tb, `document.getElementById("notices").hidden`); !hidden {
		tb.tb.Errorf("the notices section is shown on a clean start")
	}
	if p := schemaProblems(s); len(p) > 0 {
		tb.tb.Errorf("state outside the schema:%s\nstate: %s", joinLines(p), s.StateJSON)
	}
	if s.Hash != s.Link {
		tb.tb.Errorf("location.hash = %q, headlab.link() = %q: the address bar does not hold the link", s.Hash, s.Link)
	}
	if !strings.HasPrefix(s.Link, "#v=1&") {
		tb.tb.Errorf("link %q does not start with #v=1&", s.Link)
	}
}

// screenshot checks the canvas is drawn: many pixels differ from the
// corner's colour, there are many colours, and the query's red is there.
func screenshot(tb *tab) {
	eval[bool](tb, `(scrollTo(0, 0), true)`)
	box := eval[[6]float64](tb, canvasBoxJS)
	// The part of the canvas inside the viewport.
	x0, y0 := math.Max(box[0], 0), math.Max(box[1], 0)
	clip := page.Viewport{X: x0, Y: y0, Width: math.Min(box[0]+box[2], box[4]) - x0, Height: math.Min(box[1]+box[3], box[5]) - y0, Scale: 1}
	if clip.Width < 100 || clip.Height < 100 {
		tb.tb.Fatalf("only %.0fx%.0f CSS pixels of the canvas %v are in the %vx%v viewport", clip.Width, clip.Height, box[:4], box[4], box[5])
	}
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng,
		Clip:   &clip,
	})
	if err != nil {
		tb.tb.Fatalf("screenshot of the canvas %+v: %v", clip, err)
	}
	img, err := png.Decode(bytes.NewReader(res.Data))
	if err != nil {
		tb.tb.Fatalf("decoding the screenshot: %v", err)
	}
	st := tb.snap().State
	q := tb.point(st.N - 1)
	qx, qy := int(q[0]-x0), int(q[1]-y0)
	theme := eval[string](tb, `document.documentElement.dataset.theme`)
	// The query's colour in either theme (wasm/scene/palette.go).
	red := map[string][3]uint8{"light": {0xc0, 0x1c, 0x28}, "dark": {0xff, 0x6b, 0x6b}}[theme]

	b := img.Bounds()
	corner := rgb(img, b.Min.X, b.Min.Y)
	differ, reds, redNearQuery := 0, 0, 0
	colours := map[[3]uint8]bool{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := rgb(img, x, y)
			colours[c] = true
			if dist(c, corner) > 12 {
				differ++
			}
			if dist(c, red) <= 24 {
				reds++
				if (x-qx)*(x-qx)+(y-qy)*(y-qy) <= 20*20 {
					redNearQuery++
				}
			}
		}
	}
	total := b.Dx() * b.Dy()
	tb.tb.Logf("canvas %dx%d (%s theme): %.1f%% of pixels differ from the corner %v, %d colours, %d query-red pixels (%d within 20 px of the query)",
		b.Dx(), b.Dy(), theme, 100*float64(differ)/float64(total), corner, len(colours), reds, redNearQuery)
	if float64(differ) < 0.02*float64(total) {
		tb.tb.Errorf("the canvas looks blank: only %d of %d pixels differ from the corner colour %v", differ, total, corner)
	}
	if len(colours) < 16 {
		tb.tb.Errorf("the canvas has only %d colours", len(colours))
	}
	if redNearQuery < 10 {
		tb.tb.Errorf("the query's red %v is missing near the query at (%d, %d): %d such pixels there, %d in all", red, qx, qy, redNearQuery, reds)
	}
}

func rgb(img image.Image, x, y int) [3]uint8 {
	r, g, b, _ := img.At(x, y).RGBA()
	return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
}

func dist(a, b [3]uint8) int {
	d := 0
	for i := range a {
		d = max(d, int(math.Abs(float64(a[i])-float64(b[i]))))
	}
	return d
}

// figure checks headlab.figure("svg") settles: rejected with a message
// while figure export is missing, or resolved with something non-empty.
func figure(tb *tab) {
	type result struct {
		Resolved bool   `json:"resolved"`
		Message  string `json:"message"`
		Size     int    `json:"size"`
	}
	r := eval[result](tb, `(() => {
		let p;
		try { p = headlab.figure("svg"); } catch (e) { return {resolved: false, message: "threw synchronously: " + e}; }
		if (!p || typeof p.then !== "function") return {resolved: false, message: ""};
		return p.then(
			(v) => ({resolved: true, size: v == null ? 0 : (v.size || v.length || String(v).length)}),
			(e) => ({resolved: false, message: String(e && e.message || e)}));
	})()`)
	switch {
	case r.Resolved && r.Size == 0:
		tb.tb.Errorf("headlab.figure(\"svg\") resolved with nothing")
	case r.Resolved:
		tb.tb.Logf("headlab.figure(\"svg\") resolved with %d bytes", r.Size)
	case r.Message == "" || strings.HasPrefix(r.Message, "threw"):
		tb.tb.Errorf("headlab.figure(\"svg\") should return a promise rejected with a message; got %q", r.Message)
	default:
		tb.tb.Logf("headlab.figure(\"svg\") rejected: %s", r.Message)
	}
	tb.noProblems("figure")
}

// drag drags token which(state) with real mouse events, checking that it
// follows the pointer while held and that on release only its coordinates
// changed, the weights changed, and the address bar holds the new link.
func drag(tb *tab, which func(pageState) int) snapshot {
	before := tb.snap()
	st := before.State
	i := which(st)
	d := st.D
	eval[bool](tb, `(document.getElementById("canvas").scrollIntoView({block: "nearest"}), true)`)
	from := tb.point(i)
	box := eval[[6]float64](tb, canvasBoxJS)
	if from[0] < 0 || from[1] < 0 || from[0] > box[4] || from[1] > box[5] {
		tb.tb.Fatalf("token %d at (%.1f, %.1f) is outside the %vx%v viewport", i, from[0], from[1], box[4], box[5])
	}
	// Move 60 px towards the canvas's centre on each axis: the token stays
	// inside the square the view shows, so it is not clamped.
	cx, cy := box[0]+box[2]/2, box[1]+box[3]/2
	dx, dy := math.Copysign(60, cx-from[0]), math.Copysign(60, cy-from[1])
	to := [2]float64{from[0] + dx, from[1] + dy}

	down := input.DispatchMouseEventTypeMousePressed
	move := input.DispatchMouseEventTypeMouseMoved
	up := input.DispatchMouseEventTypeMouseReleased
	tb.mouse(move, from[0], from[1], false)
	tb.frames(2)
	tb.mouse(down, from[0], from[1], true)
	tb.frames(2) // the press is seen on the token
	const steps = 5
	for k := 1; k <= steps; k++ {
		f := float64(k) / steps
		tb.mouse(move, from[0]+f*dx, from[1]+f*dy, true)
		tb.frames(1)
	}
	tb.frames(2)
	held := tb.point(i)
	tb.mouse(up, to[0], to[1], false)
	if off := math.Hypot(held[0]-to[0], held[1]-to[1]); off > 3 {
		tb.tb.Errorf("token %d was dragged from (%.1f, %.1f) to (%.1f, %.1f) but is drawn at (%.1f, %.1f), %.1f px away",
			i, from[0], from[1], to[0], to[1], held[0], held[1], off)
	}
	tb.waitFor("the new link in the address bar", fmt.Sprintf("location.hash === headlab.link() && location.hash !== %s", jsString(before.Link)))
	tb.sleep(100 * time.Millisecond)
	after := tb.snap()

	tb.tb.Logf("dragged token %d of %d by (%+.0f, %+.0f) px; link %s → %s", i, st.N, dx, dy, shorten(before.Link, 80), shorten(after.Link, 80))
	if len(after.State.Tok) != len(st.Tok) {
		tb.tb.Fatalf("tok has %d numbers after the drag, %d before", len(after.State.Tok), len(st.Tok))
	}
	for j := range st.Tok {
		if j/d == i {
			continue
		}
		if after.State.Tok[j] != st.Tok[j] {
			tb.tb.Errorf("dragging token %d changed tok[%d] (token %d): %v → %v", i, j, j/d, st.Tok[j], after.State.Tok[j])
		}
	}
	// Screen x grows with world x; screen y shrinks as world y grows.
	mx := after.State.Tok[i*d] - st.Tok[i*d]
	if math.Abs(mx) < 0.05 || math.Signbit(mx) != math.Signbit(dx) {
		tb.tb.Errorf("token %d's x moved by %v for a drag of %+.0f px", i, mx, dx)
	}
	if d > 1 {
		my := after.State.Tok[i*d+1] - st.Tok[i*d+1]
		if math.Abs(my) < 0.05 || math.Signbit(my) == math.Signbit(dy) {
			tb.tb.Errorf("token %d's y moved by %v for a drag of %+.0f px (screen y points down)", i, my, dy)
		}
	}
	for j := i * d; j < (i+1)*d; j++ {
		if x := after.State.Tok[j]; math.Abs(x*100-math.Round(x*100)) > 1e-6 {
			tb.tb.Errorf("tok[%d] = %v after the drag is not rounded to 0.01", j, x)
		}
	}
	if reflect.DeepEqual(after.Facts.Weights, before.Facts.Weights) {
		tb.tb.Errorf("dragging token %d left facts().weights unchanged: %v", i, after.Facts.Weights)
	}
	if after.Hash != after.Link {
		tb.tb.Errorf("location.hash %q ≠ headlab.link() %q", after.Hash, after.Link)
	}
	if after.Link == before.Link {
		tb.tb.Errorf("the link did not change: %s", after.Link)
	}
	if p := schemaProblems(after); len(p) > 0 {
		tb.tb.Errorf("state outside the schema after the drag:%s", joinLines(p))
	}
	if len(after.Errors) > 0 {
		tb.tb.Errorf("the drag produced notices: %q", after.Errors)
	}
	tb.noProblems("dragging")
	return after
}

// reopen opens a link in a fresh tab and checks it restores the same state
// and facts exactly.
func reopen(tb *tab, want snapshot) {
	tb.load(h.base + want.Link)
	got := tb.snap()
	if !jsonEqual(got.StateJSON, want.StateJSON) {
		tb.tb.Errorf("reopening %s gives another state:%s", want.Link, joinLines(diffState(want.StateJSON, got.StateJSON)))
	}
	if !jsonEqual(got.FactsJSON, want.FactsJSON) {
		tb.tb.Errorf("reopening %s gives other facts:\n  want %s\n  got  %s", want.Link, shorten(string(want.FactsJSON), 600), shorten(string(got.FactsJSON), 600))
	}
	if got.Link != want.Link || got.Hash != want.Link {
		tb.tb.Errorf("reopened %s; link() = %s, location.hash = %s", want.Link, got.Link, got.Hash)
	}
	if len(got.Errors) > 0 {
		tb.tb.Errorf("reopening the page's own link gives notices: %q", got.Errors)
	}
	tb.noProblems("reopening")
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// controls types a new H into its field, presses Add token and checks the
// Copy link button.
func controls(tb *tab) {
	before := tb.snap()
	newH := before.State.H%8 + 2 // 2…9, kept in 2…8 below
	if newH > 8 {
		newH = 2
	}
	eval[bool](tb, `(() => { const el = document.getElementById("ctl-H"); el.scrollIntoView({block: "center"}); el.focus(); el.select(); return document.activeElement === el; })()`)
	tb.do("typing H", chromedp.KeyEvent(fmt.Sprint(newH)), chromedp.KeyEvent(kb.Tab))
	tb.waitFor("H to change", fmt.Sprintf("headlab.state().H === %d && location.hash === headlab.link()", newH))
	s := tb.snap()
	if !strings.Contains(s.Link, fmt.Sprintf("&H=%d&", newH)) {
		tb.tb.Errorf("after typing H = %d the link is %s", newH, s.Link)
	}
	bars := eval[int](tb, `document.querySelectorAll("#bars .bar-row").length`)
	if bars != newH+1 {
		tb.tb.Errorf("H = %d shows %d bars, want %d (one per head and the sum)", newH, bars, newH+1)
	}
	if len(s.Facts.Heads) != newH {
		tb.tb.Errorf("H = %d but facts().heads has %d entries", newH, len(s.Facts.Heads))
	}
	if p := schemaProblems(s); len(p) > 0 {
		tb.tb.Errorf("state outside the schema after setting H:%s", joinLines(p))
	}

	// Add token, with a real click on the button.
	before = s
	c := eval[[2]float64](tb, `(() => { const b = document.getElementById("add-token"); b.scrollIntoView({block: "center"}); const r = b.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
	tb.do("clicking Add token", chromedp.MouseClickXY(c[0], c[1]))
	tb.waitFor("a new token", fmt.Sprintf("headlab.state().N === %d && location.hash === headlab.link()", before.State.N+1))
	s = tb.snap()
	d, n := s.State.D, before.State.N
	if got := eval[string](tb, `document.getElementById("token-count").textContent`); got != fmt.Sprint(n+1) {
		tb.tb.Errorf("the token count shows %q, want %d", got, n+1)
	}
	// The tokens before the query and the query itself are kept.
	if !reflect.DeepEqual(s.State.Tok[:(n-1)*d], before.State.Tok[:(n-1)*d]) || !reflect.DeepEqual(s.State.Tok[n*d:], before.State.Tok[(n-1)*d:]) {
		tb.tb.Errorf("adding a token moved the others:\n  before %v\n  after  %v", before.State.Tok, s.State.Tok)
	}
	if p := schemaProblems(s); len(p) > 0 {
		tb.tb.Errorf("state outside the schema after adding a token:%s", joinLines(p))
	}

	type button struct {
		Tag, Type, Text string
	}
	b := eval[button](tb, `(() => { const b = document.getElementById("copy-link"); return b ? {Tag: b.tagName, Type: b.type, Text: b.textContent.trim()} : {Tag: "", Type: "", Text: ""}; })()`)
	if b.Tag != "BUTTON" || b.Type != "button" || b.Text == "" {
		tb.tb.Errorf("#copy-link is %+v, want a <button type=button> with a label", b)
	}
	if len(s.Errors) > 0 {
		tb.tb.Errorf("the controls produced notices: %q", s.Errors)
	}
	tb.noProblems("controls")
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
