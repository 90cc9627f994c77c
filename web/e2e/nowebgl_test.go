package e2e

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// startBrowser starts a Chromium of its own for one test, with the
// suite's flags and extra, and returns its context; it stops when tb ends.
func startBrowser(tb testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	tb.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(h.chrome),
		chromedp.NoSandbox,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1024, 900),
	)
	opts = append(opts, extra...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tb.Cleanup(cancelAlloc)
	browser, cancel := chromedp.NewContext(alloc)
	tb.Cleanup(cancel)
	if err := chromedp.Do(browser); err != nil {
		tb.Fatalf("starting a second %s: %v", h.chrome, err)
	}
	return browser
}

// tabIn opens a tab in browser, as newTab does in the suite's browser.
func tabIn(tb testing.TB, browser context.Context) *tab {
	tb.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	tb.Cleanup(cancel)
	t := &tab{tb: tb, ctx: ctx, con: &console{}, cancel: cancel}
	if err := chromedp.Listen(ctx, t.con.record); err != nil {
		tb.Fatalf("opening a tab: %v", err)
	}
	return t
}

// fallbackJS reads what the page shows in the canvas's place without WebGL.
const fallbackJS = `(() => {
	const box = document.getElementById("canvas-fallback");
	const img = document.getElementById("fallback-figure");
	return {
		box: !!box && !box.hidden && box.getBoundingClientRect().height > 0,
		message: box ? box.querySelector(".fallback-message").textContent : "",
		figure: !!img && img.complete && img.naturalWidth > 0,
		link: img ? img.dataset.link || "" : "",
		frameHidden: document.getElementById("canvas").hidden,
		errors: headlab.errors,
		hlLink: headlab.link(),
	};
})()`

type fallbackView struct {
	Box         bool     `json:"box"`
	Message     string   `json:"message"`
	Figure      bool     `json:"figure"`
	Link        string   `json:"link"`
	FrameHidden bool     `json:"frameHidden"`
	Errors      []string `json:"errors"`
	HLLink      string   `json:"hlLink"`
}

// TestNoWebGL opens the page in a Chromium without WebGL: the page says
// why there is no canvas, shows the static figure of the view in its
// place, follows the link with it, and exports figures as usual.
func TestNoWebGL(t *testing.T) {
	browser := startBrowser(t, chromedp.Flag("disable-3d-apis", true), chromedp.Flag("disable-webgl", true))
	tb := tabIn(t, browser)
	lnk := "#v=1&scene=recovery&H=2&d=2&seed=8&step=5"
	tb.load(h.base + lnk)
	tb.waitFor("the static figure of the link", `document.getElementById("fallback-figure") && document.getElementById("fallback-figure").dataset.link === headlab.link()`)
	tb.shoot("nowebgl-recovery")
	v := eval[fallbackView](tb, fallbackJS)
	if !v.Box || !v.Figure || !v.FrameHidden {
		t.Errorf("without WebGL the canvas's place shows box=%v figure=%v (frame hidden %v)", v.Box, v.Figure, v.FrameHidden)
	}
	if !strings.Contains(v.Message, "WebGL 2") || !strings.Contains(v.Message, "another browser") {
		t.Errorf("the message does not say what is missing and what to try: %q", v.Message)
	}
	said := false
	for _, e := range v.Errors {
		said = said || strings.Contains(e, "WebGL")
		if strings.Contains(e, "exited") {
			t.Errorf("headlab.errors: %q", e)
		}
	}
	if !said {
		t.Errorf("headlab.errors does not mention WebGL: %q", v.Errors)
	}

	t.Run("export", func(t *testing.T) {
		tb := tb.in(t)
		for _, f := range []struct{ format, magic string }{{"svg", "<?xml"}, {"pdf", "%PDF-"}, {"png", "\x89PNG"}} {
			b64 := eval[string](tb, `headlab.figure("`+f.format+`").then((v) => {
				const b = typeof v === "string" ? new TextEncoder().encode(v) : v;
				let s = "";
				for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode.apply(null, b.subarray(i, i + 0x8000));
				return btoa(s);
			})`)
			b, err := base64.StdEncoding.DecodeString(b64)
			if err != nil || !strings.HasPrefix(string(b), f.magic) || len(b) < 1000 {
				t.Errorf("%s export: %d bytes starting %q (%v)", f.format, len(b), shorten(string(b), 16), err)
			}
		}
	})

	t.Run("keyboard step", func(t *testing.T) {
		tb := tb.in(t)
		tb.waitSettled("the run")
		tb.do("pressing →", chromedp.KeyEvent(kb.ArrowRight))
		tb.waitFor("step 6, drawn", `headlab.state().step === 6 && document.getElementById("fallback-figure").dataset.link === headlab.link()`)
	})

	t.Run("link change", func(t *testing.T) {
		tb := tb.in(t)
		before := eval[string](tb, `document.getElementById("fallback-figure").src`)
		eval[any](tb, `location.hash = "#v=1&scene=attention&H=3&d=2&seed=4&N=7", null`)
		tb.waitFor("the attention figure", `headlab.state().scene === "attention" && document.getElementById("fallback-figure").dataset.link === headlab.link()`)
		v := eval[fallbackView](tb, fallbackJS)
		after := eval[string](tb, `document.getElementById("fallback-figure").src`)
		if !v.Figure || after == before {
			t.Errorf("the figure was not redrawn for the new link (shown %v, src %q → %q)", v.Figure, before, after)
		}
		tb.shoot("nowebgl-attention")
		if !strings.Contains(v.Link, "scene=attention") {
			t.Errorf("the figure shows %q", v.Link)
		}
	})
	tb.noProblems("without WebGL")
}
