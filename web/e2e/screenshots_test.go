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

// shots are the views the README shows, each in both themes.
var shots = []struct{ name, link string }{
	{"attention", "#v=1&scene=attention&H=3&d=2&seed=1"},
	{"atoms", "#v=1&scene=atoms&d=3&seed=1"},
	{"recovery", "#v=1&scene=recovery&H=2&d=2&seed=8&step=9"},
}

// TestScreenshots opens every scene in the light and the dark theme at a
// laptop's size and a phone's, checks that the page is ready with no
// console problem, that nothing is wider than the window, and that the
// screenshot is not blank. With HEADLAB_SHOTS set it writes the PNGs
// there: `./build.sh screenshots` makes the README's pictures this way.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("HEADLAB_SHOTS")
	sizes := []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"", 1280, 800, false}, {"-phone", 360, 640, true}}
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
					tb.load(h.base + sh.link + "&theme=" + theme)
					tb.frames(10)
					tb.noProblems("loading " + name)
					if over := eval[float64](tb, `document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
						t.Errorf("the page is %v px wider than the %d px window", over, sz.width)
					}
					res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{})
					if err != nil {
						t.Fatalf("screenshot: %v", err)
					}
					shot := res.Data
					img, err := png.Decode(bytes.NewReader(shot))
					if err != nil {
						t.Fatalf("screenshot: %v", err)
					}
					colours := map[uint32]bool{}
					b := img.Bounds()
					for y := b.Min.Y; y < b.Max.Y; y += 3 {
						for x := b.Min.X; x < b.Max.X; x += 3 {
							r, g, bl, _ := img.At(x, y).RGBA()
							colours[r>>8<<16|g>>8<<8|bl>>8] = true
						}
					}
					if len(colours) < 50 {
						t.Errorf("the screenshot has %d colours: blank?", len(colours))
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
