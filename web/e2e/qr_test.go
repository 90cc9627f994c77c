package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// requireTool returns the path of a command-line tool a test needs. When
// it is missing the test is skipped with one line, unless
// HEADLAB_REQUIRE_TOOLS is set (./build.sh test sets it, having installed
// them), where it fails.
func requireTool(tb testing.TB, name, pkg string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("HEADLAB_REQUIRE_TOOLS") != "" {
		tb.Fatalf("%s is missing (Debian's %s; ./build.sh test installs it)", name, pkg)
	}
	tb.Skipf("%s is missing (Debian's %s)", name, pkg)
	return ""
}

// scanQR screenshots the QR dialog's code and decodes it with zbarimg.
func scanQR(tb *tab, zbar string) string {
	tb.tb.Helper()
	r := eval[[4]float64](tb, `(() => { const b = document.querySelector("#qr-code svg").getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; })()`)
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Clip: &page.Viewport{X: r[0], Y: r[1], Width: r[2], Height: r[3], Scale: 1},
	})
	if err != nil {
		tb.tb.Fatalf("screenshot of the QR code: %v", err)
	}
	path := filepath.Join(tb.tb.TempDir(), "qr.png")
	if d := os.Getenv("HEADLAB_SHOTS"); d != "" {
		path = filepath.Join(d, "qr-code.png")
	}
	if err := os.WriteFile(path, res.Data, 0o644); err != nil {
		tb.tb.Fatal(err)
	}
	out, err := exec.Command(zbar, "--raw", "-q", path).Output()
	if err != nil {
		tb.tb.Fatalf("zbarimg could not read the QR code: %v", err)
	}
	return strings.TrimRight(string(out), "\n")
}

// TestQR shows the link as a QR code with the key q, decodes it, and
// checks that it follows the state and warns about a local address.
func TestQR(t *testing.T) {
	zbar := requireTool(t, "zbarimg", "zbar-tools")
	tb := newTab(t)
	tb.load(h.base + "#v=1&scene=recovery&H=2&d=2&seed=8&step=3&present=1")
	tb.waitSettled("the run")
	tb.do("pressing q", chromedp.KeyEvent("q"))
	tb.waitFor("the QR code", `document.getElementById("qr").open && document.querySelector("#qr-code svg")`)
	tb.shoot("qr")
	want := eval[string](tb, `location.href.split("#")[0] + headlab.link()`)
	if got := scanQR(tb, zbar); got != want {
		t.Errorf("the QR code reads %q, want %q", got, want)
	}
	tb.shoot("qr")
	if url := eval[string](tb, `document.getElementById("qr-url").textContent`); !strings.HasSuffix(url, eval[string](tb, "headlab.link()")) {
		t.Errorf("the text under the code is %q", url)
	}
	warn := eval[string](tb, `document.getElementById("qr-warn").hidden ? "" : document.getElementById("qr-warn").textContent`)
	if !strings.Contains(warn, "./build.sh serve -addr") || !strings.Contains(warn, "./build.sh dist") {
		t.Errorf("no warning about the local address %s: %q", h.base, warn)
	}
	// A step with the dialog open: the code follows.
	tb.do("pressing →", chromedp.KeyEvent(kb.ArrowRight))
	tb.waitFor("step 4", `headlab.state().step === 4 && document.querySelector("#qr-code svg").dataset.url.endsWith(headlab.link())`)
	want = eval[string](tb, `location.href.split("#")[0] + headlab.link()`)
	if got := scanQR(tb, zbar); got != want {
		t.Errorf("after a step the QR code reads %q, want %q", got, want)
	}
	tb.do("pressing q", chromedp.KeyEvent("q"))
	tb.waitFor("the dialog closed", `!document.getElementById("qr").open`)
	tb.noProblems("the QR code")
}
