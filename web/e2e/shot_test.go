package e2e

import (
	"context"
	"os"
	"path/filepath"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// shoot writes a screenshot of the tab as name.png into HEADLAB_SHOTS, when
// that is set, for a person to look at; otherwise it does nothing.
func (t *tab) shoot(name string) {
	t.tb.Helper()
	dir := os.Getenv("HEADLAB_SHOTS")
	if dir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(t.ctx, stepTimeout)
	defer cancel()
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{})
	if err != nil {
		t.tb.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, res.Data, 0o644); err != nil {
		t.tb.Fatal(err)
	}
	t.tb.Logf("wrote %s", path)
}
