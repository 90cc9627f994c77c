package e2e

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// shots are the views the README shows, each in both themes: the chooser
// a page without a link opens on (its theme follows the system's), then
// every scene.
var shots = []struct{ name, link string }{
	{"landing", ""},
	{"attention", "#v=1&scene=attention&H=3&d=2&seed=1"},
	{"atoms", "#v=1&scene=atoms&d=3&seed=1"},
	{"recovery", "#v=1&scene=recovery&H=2&d=2&seed=8&step=9"},
	{"transformer", "#v=1&scene=transformer&H=2&d=3&m=3&K=5&seed=1&step=116"},
}

// TestScreenshots opens every scene in the light and the dark theme at a
// laptop's size, a projector's (1920×1080) and a phone's (with touch),
// checks that the page is ready with no console problem, that neither the
// page nor any element on it is wider than the window, and that the
// screenshot is not blank. With HEADLAB_SHOTS set it writes the PNGs
// there: `./build.sh screenshots` makes the README's pictures this way.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("HEADLAB_SHOTS")
	sizes := []struct {
		name          string
		width, height int64
		mobile        bool
		touch         bool
	}{{"", 1280, 800, false, false}, {"-wide", 1920, 1080, false, false}, {"-phone", 360, 640, true, true}}
	for _, sz := range sizes {
		for _, sh := range shots {
			for _, theme := range []string{"light", "dark"} {
				name := sh.name + "-" + theme + sz.name
				t.Run(name, func(t *testing.T) {
					tb := newTab(t)
					ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
					defer cancel()
					if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
						Width: sz.width, Height: sz.height, DeviceScaleFactor: 1, Mobile: sz.mobile,
					}); err != nil {
						t.Fatalf("sizing the window: %v", err)
					}
					if sz.touch {
						if _, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5}); err != nil {
							t.Fatalf("emulating touch: %v", err)
						}
					}
					url := h.base + sh.link + "&theme=" + theme
					if sh.link == "" {
						url = h.base
						if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
							Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: theme}},
						}); err != nil {
							t.Fatalf("emulating the %s theme: %v", theme, err)
						}
					}
					tb.load(url)
					if sh.link == "" {
						tb.waitFor("the previews", `[...document.querySelectorAll("#landing img.preview")].filter((e) => e.getClientRects().length > 0).every((e) => e.complete && e.naturalWidth > 0)`)
					}
					if sh.link != "" {
						// Every scene that computes (a recovery or Transformer
						// run, the fewer-atoms fit) is shot with its result.
						tb.waitSettled("the screenshot's scene")
					}
					tb.frames(10)
					tb.noProblems("loading " + name)
					if over := eval[float64](tb, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
						t.Errorf("the page is %v px wider than the %d px window", over, sz.width)
					}
					if over := tb.overflowing(); len(over) > 0 {
						t.Errorf("%d element(s) stick out of the %d px window:%s", len(over), sz.width, joinLines(over))
					}
					// A fresh deadline for the capture: the load (and a run) came first.
					shotCtx, shotCancel := context.WithTimeout(tb.ctx, stepTimeout)
					defer shotCancel()
					res, err := chromedp.Call(shotCtx, page.CaptureScreenshot, page.CaptureScreenshotParams{})
					if err != nil {
						t.Fatalf("screenshot: %v", err)
					}
					shot := res.Data
					img, err := png.Decode(bytes.NewReader(shot))
					if err != nil {
						t.Fatalf("screenshot: %v", err)
					}
					if n := colourCount(img); n < 50 {
						t.Errorf("the screenshot has %d colours: blank?", n)
					}
					if dir != "" && sz.name == "" && theme == "light" {
						path := filepath.Join(dir, sh.name+".png")
						if err := os.WriteFile(path, shot, 0o644); err != nil {
							t.Fatal(err)
						}
						t.Logf("wrote %s", path)
					} else if dir != "" {
						path := filepath.Join(dir, name+".png")
						if err := os.WriteFile(path, shot, 0o644); err != nil {
							t.Fatal(err)
						}
					}
				})
			}
		}
	}
}
