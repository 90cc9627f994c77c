package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"golang.org/x/image/webp"

	"headlab/web/link"
)

// Preview sizes: the landing's cards show each scene's canvas at its
// embedded default, PreviewWidth×PreviewHeight pixels, drawn at 440×280
// CSS pixels (1.5× for sharp screens).
const (
	previewWidth  = 660
	previewHeight = 420
)

var previewScenes = []string{"attention", "atoms", "recovery", "transformer"}

// previewLinks are the keys a scene's preview (and its card's link) adds
// to its default: the Transformer's card opens the run of its tour, whose
// phase B the preview shows.
var previewLinks = map[string]string{"transformer": "&H=2&d=3&m=3&K=5&step=116"}

// TestPreviews checks the landing's preview images: one per scene and
// theme, decodable WebP of the size the page lays out. With
// HEADLAB_PREVIEWS set to a folder (`./build.sh screenshots` sets it to
// web/static/previews) it first makes them anew from the scenes at their
// defaults.
func TestPreviews(t *testing.T) {
	dir := os.Getenv("HEADLAB_PREVIEWS")
	if dir != "" {
		for _, scene := range previewScenes {
			for _, theme := range []string{"light", "dark"} {
				makePreview(t, scene, theme, filepath.Join(dir, scene+"-"+theme+".webp"))
			}
		}
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, scene := range previewScenes {
		for _, theme := range []string{"light", "dark"} {
			path := filepath.Join(root, "web", "static", "previews", scene+"-"+theme+".webp")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("preview: %v (make them with ./build.sh screenshots)", err)
				continue
			}
			img, err := webp.Decode(bytes.NewReader(b))
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			if sz := img.Bounds().Size(); sz != (image.Point{previewWidth, previewHeight}) {
				t.Errorf("%s is %v, want %dx%d", path, sz, previewWidth, previewHeight)
			}
			if n := colourCount(img); n < 20 {
				t.Errorf("%s has %d colours: blank?", path, n)
			}
		}
	}
}

// makePreview opens scene at its default in theme and writes the top of
// its canvas as a WebP preview.
func makePreview(t *testing.T, scene, theme, path string) {
	tb := newTab(t)
	defer tb.close()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 1280, Height: 1000, DeviceScaleFactor: 1,
	}); err != nil {
		t.Fatalf("sizing the window: %v", err)
	}
	tb.load(h.base + "#v=1&scene=" + scene + previewLinks[scene] + "&theme=" + theme)
	if scene == "transformer" {
		transformerWait(tb, "the preview's run")
	}
	tb.frames(20)
	eval[bool](tb, `(document.getElementById("canvas").scrollIntoView(), true)`)
	tb.frames(2)
	box := eval[[6]float64](tb, canvasBoxJS)
	scrollY := eval[float64](tb, `scrollY`) // the clip is in the document's coordinates
	scale := previewWidth / box[2]
	clip := page.Viewport{X: box[0], Y: box[1] + scrollY, Width: box[2], Height: previewHeight / scale, Scale: scale}
	if box[1]+clip.Height > box[5] || clip.Height > box[3] {
		t.Fatalf("the canvas %v does not hold a %dx%d preview in the window", box, previewWidth, previewHeight)
	}
	quality := int64(82)
	// A fresh deadline for the capture: the load and a run came first.
	shotCtx, shotCancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer shotCancel()
	res, err := chromedp.Call(shotCtx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatWebp, Quality: &quality, Clip: &clip,
	})
	if err != nil {
		t.Fatalf("preview of %s: %v", scene, err)
	}
	if err := os.WriteFile(path, res.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", path, len(res.Data))
}

// colourCount counts the distinct colours of a sample of img's pixels.
func colourCount(img image.Image) int {
	seen := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[r>>8<<16|g>>8<<8|bl>>8] = true
		}
	}
	return len(seen)
}

// landingState is what the landing tests read of the page.
type landingState struct {
	Landing   bool     // the chooser is shown
	Workspace bool     // the canvas and its panel are displayed
	Hash      string   // location.hash
	Scene     string   // the canvas's scene
	Tour      int      // the state's tour step
	Cards     []string // the cards' titles
	Previews  []int    // naturalWidth of the previews shown
	TourShown bool
	TourCount string
	Title     string
}

const landingJS = `(() => {
	const vis = (e) => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
	const st = window.headlab.state();
	return {
		landing: vis(document.getElementById("landing")),
		workspace: vis(document.querySelector(".workspace")),
		hash: location.hash,
		scene: st ? st.scene : "",
		tour: st ? st.tour : -1,
		cards: [...document.querySelectorAll("#landing .card-title")].filter(vis).map((e) => e.textContent),
		previews: [...document.querySelectorAll("#landing img.preview")].filter(vis).map((e) => e.complete ? e.naturalWidth : -1),
		tourShown: vis(document.getElementById("tour")),
		tourCount: document.getElementById("tour-count").textContent,
		title: document.title,
	};
})()`

func (t *tab) landing() landingState {
	t.tb.Helper()
	return eval[landingState](t, landingJS)
}

// click sends a real mouse click to the middle of the element sel names.
func (t *tab) click(sel string) {
	t.tb.Helper()
	p := eval[*[2]float64](t, fmt.Sprintf(`(() => {
		const e = document.querySelector(%s);
		if (!e) return null;
		e.scrollIntoView({block: "center"});
		const r = e.getBoundingClientRect();
		return [r.left + r.width / 2, r.top + r.height / 2];
	})()`, jsString(sel)))
	if p == nil {
		t.tb.Fatalf("no element %s to click", sel)
	}
	t.mouse(input.DispatchMouseEventTypeMouseMoved, p[0], p[1], false)
	t.mouse(input.DispatchMouseEventTypeMousePressed, p[0], p[1], true)
	t.mouse(input.DispatchMouseEventTypeMouseReleased, p[0], p[1], false)
}

// TestLanding opens the page without a link: the chooser of scenes shows
// a card per scene with its preview while the canvas loads behind it; a
// card opens its scene, the browser's Back returns to the chooser, the
// brand link leads there from any scene, and a tour walks through its
// steps, each a link.
func TestLanding(t *testing.T) {
	tb := newTab(t)
	tb.load(h.base)
	tb.waitFor("the previews", `[...document.querySelectorAll("#landing img.preview")].filter((e) => e.getClientRects().length > 0).every((e) => e.complete)`)
	s := tb.landing()
	if !s.Landing || s.Workspace || s.Hash != "" {
		t.Fatalf("a page opened without a link: chooser shown %v, canvas shown %v, hash %q", s.Landing, s.Workspace, s.Hash)
	}
	if strings.Join(s.Cards, "|") != "Attention|Atom explosion|Recovery|Transformer" {
		t.Errorf("cards %q", s.Cards)
	}
	if len(s.Previews) != len(previewScenes) {
		t.Errorf("%d previews shown, want %d (one per card, in the page's theme)", len(s.Previews), len(previewScenes))
	}
	for i, w := range s.Previews {
		if w <= 0 {
			t.Errorf("preview %d did not load (naturalWidth %d)", i+1, w)
		}
	}
	tb.noProblems("the chooser")

	t.Run("keyboard-only", func(t *testing.T) { keyboardOnly(tb.in(t), lectureScene{name: "landing"}) })
	t.Run("contrast", func(t *testing.T) {
		tb := tb.in(t)
		for range 2 { // t switches the theme, and back
			tb.focusBody()
			theme := eval[string](tb, `document.documentElement.dataset.theme`)
			res := eval[contrastResult](tb, lectureJS("const root = document.body;"+contrastJS))
			if res.Checked < 10 {
				t.Errorf("%s theme: only %d texts checked", theme, res.Checked)
			}
			if len(res.Bad) > 0 {
				t.Errorf("%s theme: %d text(s) below WCAG AA contrast:%s", theme, len(res.Bad), joinLines(res.Bad))
			}
			tb.do("pressing t", chromedp.KeyEvent("t"))
			tb.waitFor("the other theme", fmt.Sprintf(`document.documentElement.dataset.theme !== %q`, theme))
		}
		if s := tb.landing(); !s.Landing || s.Hash != "" {
			t.Errorf("switching the theme left the chooser: shown %v, hash %q", s.Landing, s.Hash)
		}
	})

	t.Run("card", func(t *testing.T) {
		tb := tb.in(t)
		tb.click(`#landing .card:nth-child(2) .card-open`)
		tb.waitFor("the atoms scene", `window.headlab.state().scene === "atoms" && location.hash.startsWith("#v=1&scene=atoms")`)
		tb.frames(5)
		s := tb.landing()
		if s.Landing || !s.Workspace {
			t.Errorf("after choosing a card: chooser shown %v, canvas shown %v", s.Landing, s.Workspace)
		}
		if !strings.HasPrefix(s.Title, "Atom explosion") {
			t.Errorf("title %q does not name the scene", s.Title)
		}
		if st := tb.snap(); st.Link != st.Hash {
			t.Errorf("the address bar holds %q, the link is %q", st.Hash, st.Link)
		}
		eval[bool](tb, `(history.back(), true)`)
		tb.waitFor("the chooser after Back", `!document.getElementById("landing").hidden`)
		if s := tb.landing(); !s.Landing || s.Workspace || s.Hash != "" {
			t.Errorf("after Back: chooser shown %v, canvas shown %v, hash %q", s.Landing, s.Workspace, s.Hash)
		}
	})

	t.Run("top-bar", func(t *testing.T) {
		tb := tb.in(t)
		// A theme chosen on the chooser goes with it into the scene; p
		// (presentation mode) is not taken there.
		tb.focusBody()
		before := eval[string](tb, `document.documentElement.dataset.theme`)
		tb.do("pressing t, p", chromedp.KeyEvent("t"), chromedp.KeyEvent("p"))
		tb.waitFor("the other theme", fmt.Sprintf(`document.documentElement.dataset.theme !== %q`, before))
		theme := eval[string](tb, `document.documentElement.dataset.theme`)
		if eval[bool](tb, `document.body.classList.contains("present")`) {
			t.Errorf("p on the chooser turned presentation mode on")
		}
		tb.click(`#scenes button[data-target="recovery"]`)
		tb.waitFor("the recovery scene", `window.headlab.state().scene === "recovery" && location.hash.startsWith("#v=1&scene=recovery")`)
		if s := tb.landing(); s.Landing || !s.Workspace {
			t.Errorf("after the Recovery button: chooser shown %v, canvas shown %v", s.Landing, s.Workspace)
		}
		if got := eval[string](tb, `window.headlab.state().theme`); got != theme {
			t.Errorf("the %s theme chosen on the chooser became %q in the scene", theme, got)
		}
		if f := eval[string](tb, `document.activeElement.id`); f != "title-recovery" {
			t.Errorf("the focus is on %q, not the scene's title", f)
		}
		eval[bool](tb, `(history.back(), true)`)
		tb.waitFor("the chooser after Back", `!document.getElementById("landing").hidden`)
		if s := tb.landing(); !s.Landing || s.Hash != "" {
			t.Errorf("Back after the Recovery button: chooser shown %v, hash %q", s.Landing, s.Hash)
		}
		tb.do("pressing t", chromedp.KeyEvent("t")) // the theme as it was
	})

	t.Run("brand", func(t *testing.T) {
		tb := tb.in(t)
		eval[bool](tb, `(window.headlab.open("#v=1&scene=recovery&H=2&d=2"), true)`)
		if s := tb.landing(); s.Landing || s.Scene != "recovery" {
			t.Fatalf("open() from the chooser: chooser shown %v, scene %s", s.Landing, s.Scene)
		}
		tb.click(`#home`)
		tb.waitFor("the chooser", `!document.getElementById("landing").hidden`)
		if s := tb.landing(); !s.Landing || s.Workspace || s.Hash != "" {
			t.Errorf("after the brand link: chooser shown %v, canvas shown %v, hash %q", s.Landing, s.Workspace, s.Hash)
		}
	})

	t.Run("tour", func(t *testing.T) {
		tb := tb.in(t)
		tb.click(`#landing .card:nth-child(1) .card-tour`)
		tb.waitFor("step 1", `window.headlab.state().tour === 1`)
		s := tb.landing()
		if !s.TourShown || s.TourCount != "Tour of Attention · step 1 of 5" || s.Scene != "attention" {
			t.Fatalf("tour step 1: shown %v, %q, scene %s", s.TourShown, s.TourCount, s.Scene)
		}
		tb.click(`#tour-next`)
		tb.waitFor("step 2", `window.headlab.state().tour === 2`)
		if st := tb.snap(); !strings.Contains(st.Link, "heat=2") {
			t.Errorf("step 2's link %q does not show head 2's heat map", st.Link)
		}
		// → outside a field goes on with the tour in a scene without steps of its own.
		tb.do("pressing →", chromedp.KeyEvent(kb.ArrowRight))
		tb.waitFor("step 3", `window.headlab.state().tour === 3`)
		if s := tb.landing(); s.TourCount != "Tour of Attention · step 3 of 5" || s.Hash != tb.snap().Link {
			t.Errorf("step 3: %q, hash %q", s.TourCount, s.Hash)
		}
		// Every step is a link: reopening one in a new tab shows the same step.
		link := tb.snap().Link
		other := newTab(t)
		other.load(h.base + link)
		tours := other.landing()
		if !tours.TourShown || tours.TourCount != "Tour of Attention · step 3 of 5" {
			t.Errorf("the link of step 3 reopens %q (shown %v)", tours.TourCount, tours.TourShown)
		}
		other.close()
		// Moving on from the step's view offers the way back to it.
		if eval[bool](tb, `!document.getElementById("tour-moved").hidden`) {
			t.Errorf("the tour says the view moved on before it did")
		}
		eval[bool](tb, `(window.headlab.open(location.hash.replace("seed=1", "seed=2")), true)`)
		tb.waitFor("the way back", `!document.getElementById("tour-moved").hidden`)
		tb.click(`#tour-back`)
		tb.waitFor("the step's view again", `document.getElementById("tour-moved").hidden && window.headlab.state().seed === 1`)
		tb.click(`#tour-end`)
		tb.waitFor("the end of the tour", `window.headlab.state().tour === 0`)
		if s := tb.landing(); s.TourShown {
			t.Errorf("the tour is still shown after End")
		}
		// A step past a scene's tour is refused with a notice.
		eval[bool](tb, `(window.headlab.open("#v=1&scene=atoms&tour=12"), true)`)
		tb.waitFor("the notice", `window.headlab.errors.some((e) => e.includes("tour"))`)
		if s := tb.landing(); s.TourShown || s.Tour != 0 {
			t.Errorf("tour=12 in a 5-step tour: shown %v, state tour %d", s.TourShown, s.Tour)
		}
	})
	tb.noProblems("after the landing's steps")
}

// TestLandingWithoutCanvas opens the page without a link while the canvas
// cannot load: the chooser shows all the same, and so does the reason.
func TestLandingWithoutCanvas(t *testing.T) {
	tb := newTab(t)
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("watching the network: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{
		URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/*.wasm", Block: true}},
	}); err != nil {
		t.Fatalf("blocking the wasm: %v", err)
	}
	if _, err := tb.loadErr(h.base, `document.readyState === "complete"`); err != nil {
		t.Fatal(err)
	}
	tb.waitFor("the notice that the canvas could not start", `window.headlab.errors.some((e) => e.includes("canvas"))`)
	s := tb.landing()
	if !s.Landing || s.Workspace || len(s.Cards) != len(previewScenes) {
		t.Errorf("without the canvas: chooser shown %v, canvas shown %v, cards %q", s.Landing, s.Workspace, s.Cards)
	}
	if shown := eval[[]string](tb, `[...document.querySelectorAll(".intro")].filter((e) => e.getClientRects().length > 0).map((e) => e.id)`); len(shown) > 0 {
		t.Errorf("scene intros shown on the chooser: %q", shown)
	}
	tb.takeProblems() // the blocked requests and the failed start are expected here
}

// firstPaintJS runs in the top page before its scripts (through
// Page.addScriptToEvaluateOnNewDocument) and snapshots, at
// DOMContentLoaded, what is shown: the ids of the chooser, intros and scene
// panels on screen, and the canvas frame's box.
const firstPaintJS = `(() => {
	if (window !== window.top || location.protocol === "about:") return;
	document.addEventListener("DOMContentLoaded", () => { window.__firstPaint = (` + shownJS + `)(); }, { once: true });
})()`

// shownJS returns what shownState holds.
// The scene's panel is laid out from the start but unseen until the canvas
// first answers (style.css), so "shown" means laid out, for the landing
// (whose workspace is hidden behind it) the elements seen.
const shownJS = `() => {
	const vis = (e) => e.getClientRects().length > 0 && (e.classList.contains("scene-panel") || getComputedStyle(e).visibility !== "hidden");
	const f = document.getElementById("canvas").getBoundingClientRect();
	return {
		shown: [...document.querySelectorAll("#landing, .intro, .scene-panel")].filter(vis).map((e) => e.id),
		frame: [f.left, f.top, f.width, f.height],
		ready: !!(window.headlab && window.headlab.ready),
	};
}`

// shownState is what the page shows at a moment.
type shownState struct {
	Shown []string
	Frame [4]float64
	Ready bool
}

// TestFirstPaint opens the page without a link and with a link to each
// scene, each in a fresh browser context: at DOMContentLoaded, long before
// the canvas is ready, the page already shows the link's intro and panel
// (the chooser without a link) and the canvas frame at its final size and
// place, and once the canvas is ready the same elements show with the frame
// where it was: nothing jumps. With app.js blocked, static/boot.js and the
// style sheet alone still show the right view, so even a paint before the
// deferred scripts run is the right scene.
func TestFirstPaint(t *testing.T) {
	views := []struct{ name, link string }{{"landing", ""}}
	// Every scene a link can name (web/link's Scenes): static/boot.js and
	// the style sheet list them again, for the paint before any script.
	for _, s := range link.Scenes {
		l := "#v=1&scene=" + string(s)
		if s == "recovery" {
			l += "&theme=dark"
		}
		views = append(views, struct{ name, link string }{string(s), l})
	}
	for _, v := range views {
		want := []string{"intro-" + v.name, "panel-" + v.name}
		if v.link == "" {
			want = []string{"landing"}
		}
		t.Run(v.name, func(t *testing.T) {
			tb := newTab(t, chromedp.WithNewBrowserContext())
			ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
			defer cancel()
			if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: firstPaintJS}); err != nil {
				t.Fatalf("installing the hook: %v", err)
			}
			tb.load(h.base + v.link)
			first := eval[shownState](tb, `window.__firstPaint || null`)
			if first.Ready {
				t.Errorf("the canvas was ready at DOMContentLoaded: the test proves nothing")
			}
			if fmt.Sprint(first.Shown) != fmt.Sprint(want) {
				t.Errorf("at DOMContentLoaded the page shows %q, want %q", first.Shown, want)
			}
			after := eval[shownState](tb, "("+shownJS+")()")
			if fmt.Sprint(after.Shown) != fmt.Sprint(want) {
				t.Errorf("once ready the page shows %q, want %q", after.Shown, want)
			}
			if v.link != "" {
				if first.Frame[3] < 100 {
					t.Errorf("at DOMContentLoaded the canvas frame is %v px high: no placeholder", first.Frame[3])
				}
				for i, what := range []string{"left", "top", "width", "height"} {
					if math.Abs(first.Frame[i]-after.Frame[i]) > 1 {
						t.Errorf("the canvas frame's %s moved from %.1f at DOMContentLoaded to %.1f once ready", what, first.Frame[i], after.Frame[i])
					}
				}
				if v.name == "recovery" {
					if th := eval[string](tb, `document.documentElement.dataset.theme`); th != "dark" {
						t.Errorf("theme=dark: the page's theme is %q", th)
					}
				}
			}
			tb.noProblems("loading " + v.name)

			// The first paint without app.js: boot.js and the styles alone.
			ctx, cancel = context.WithTimeout(tb.ctx, stepTimeout)
			defer cancel()
			if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
				t.Fatalf("watching the network: %v", err)
			}
			if _, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{
				URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/static/app.js", Block: true}},
			}); err != nil {
				t.Fatalf("blocking app.js: %v", err)
			}
			if _, err := tb.loadErr(h.base+v.link, `document.readyState === "complete" && window.__firstPaint`); err != nil {
				t.Fatal(err)
			}
			if got := eval[shownState](tb, `window.__firstPaint`); fmt.Sprint(got.Shown) != fmt.Sprint(want) {
				t.Errorf("without app.js the page shows %q, want %q", got.Shown, want)
			}
			tb.takeProblems() // the blocked script is expected here
		})
	}
}
