package e2e

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"headlab/numerics/experiment"
	"headlab/plots"
	"headlab/web/link"
)

// figureLinks are the views whose figures are exported, one per scene the
// link schema has.
func figureLinks() []string {
	links := []string{"#v=1&scene=attention&H=3&d=2&seed=4&N=7"}
	if slices.Contains(link.Scenes, "atoms") {
		links = append(links, "#v=1&scene=atoms&H=3&d=6&seed=2")
	}
	if slices.Contains(link.Scenes, "recovery") {
		links = append(links, "#v=1&scene=recovery&H=2&d=2&seed=8&step=5", "#v=1&scene=recovery&H=2&d=3&seed=1&view=modes")
	}
	if slices.Contains(link.Scenes, "transformer") {
		links = append(links, "#v=1&scene=transformer&H=2&d=3&m=3&K=5&seed=1&step=116", "#v=1&scene=transformer&H=2&d=3&m=3&K=5&seed=1&view=result")
	}
	return links
}

// pageFigure is what the page's headlab.figure gives back, with timings.
type pageFigure struct {
	Text     string  `json:"text"`     // the SVG (format svg)
	Base64   string  `json:"base64"`   // the bytes (pdf, png)
	Ms       float64 `json:"ms"`       // inside Go, in the worker
	RoundMs  float64 `json:"roundMs"`  // the whole round trip
	Link     string  `json:"link"`     // the page's link when asked
	Started  bool    `json:"started"`  // the worker had started before
	Resource int     `json:"resource"` // figures wasm fetches seen before
}

func figureIn(tb *tab, format string, opts string) pageFigure {
	tb.tb.Helper()
	return eval[pageFigure](tb, `(async () => {
		const seen = performance.getEntriesByType("resource").filter((e) => /\/figures\.[0-9a-f]+\.wasm/.test(e.name)).length;
		const started = headlab.figures.started();
		const v = await headlab.figure(`+jsString(format)+`, `+opts+`);
		const last = headlab.figures.last;
		let text = "", b64 = "";
		if (typeof v === "string") text = v;
		else {
			let s = "";
			for (let i = 0; i < v.length; i += 0x8000) s += String.fromCharCode.apply(null, v.subarray(i, i + 0x8000));
			b64 = btoa(s);
		}
		return {text, base64: b64, ms: last.ms, roundMs: last.roundMs, link: headlab.link(), started, resource: seen};
	})()`)
}

func TestFigures(t *testing.T) {
	tb := newTab(t)
	tb.load(h.base + "#v=1&scene=attention")
	t.Run("lazy", func(t *testing.T) {
		tb := tb.in(t)
		// Let the page settle: nothing may fetch the figures program yet.
		tb.sleep(300 * time.Millisecond)
		n := eval[int](tb, `performance.getEntriesByType("resource").filter((e) => /figures[.-]/.test(e.name) && !/figures\.js$/.test(e.name)).length`)
		if n != 0 || eval[bool](tb, "headlab.figures.started()") {
			t.Errorf("the figures worker or wasm was loaded at start-up (%d fetches)", n)
		}
	})
	for _, lnk := range figureLinks() {
		t.Run(strings.TrimPrefix(lnk, "#v=1&"), func(t *testing.T) {
			tb := tb.in(t)
			eval[any](tb, "headlab.open("+jsString(lnk)+"), null")
			for _, format := range []plots.Format{plots.SVG, plots.PDF, plots.PNG, plots.TeX, plots.CSV} {
				opts := `{dpi: 150, size: "two"}`
				got := figureIn(tb, string(format), opts)
				s, _ := link.Parse(got.Link)
				o := plots.Options{Format: format, DPI: 150, Size: plots.TwoColumn, FontSize: 8}
				runs, err := experiment.RunFigure(experiment.Pacer{}, plots.Needs(s))
				if err != nil {
					t.Fatalf("native %s: %v", format, err)
				}
				f, err := plots.ForLink(s, runs, o)
				if err != nil {
					t.Fatalf("native %s: %v", format, err)
				}
				var want []byte
				if format == plots.CSV {
					want, err = f.CSVZip()
				} else {
					want, err = plots.Render(f, o)
				}
				if err != nil {
					t.Fatalf("native %s: %v", format, err)
				}
				var b []byte
				if format == plots.SVG || format == plots.TeX {
					b = []byte(got.Text)
				} else if b, err = base64.StdEncoding.DecodeString(got.Base64); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				switch format {
				case plots.SVG, plots.TeX, plots.CSV:
					if !bytes.Equal(b, want) {
						t.Errorf("the page's %s (%d bytes) differs from the command line's (%d bytes) for %s at byte %d", format, len(b), len(want), got.Link, firstDiff(b, want))
					}
				case plots.PDF:
					if !bytes.HasPrefix(b, []byte("%PDF-")) {
						t.Fatalf("PDF starts %q", b[:min(len(b), 8)])
					}
					if !bytes.Equal(b, want) {
						t.Logf("note: the page's PDF differs from the native one (%d vs %d bytes)", len(b), len(want))
					}
					checkPDF(t, b, f)
				case plots.PNG:
					img, err := png.Decode(bytes.NewReader(b))
					if err != nil {
						t.Fatalf("PNG: %v", err)
					}
					w, hgt := f.Size(plots.TwoColumn)
					if dx, dy := float64(img.Bounds().Dx()), float64(img.Bounds().Dy()); math.Abs(dx-w.Dots(150)) > 1 || math.Abs(dy-hgt.Dots(150)) > 1 {
						t.Errorf("PNG %v×%v px, want %.0f×%.0f (inches × 150 dpi)", dx, dy, w.Dots(150), hgt.Dots(150))
					}
				}
			}
			noProblemsBut(tb, "figures of "+lnk, "favicon.ico")
		})
	}
	t.Run("bad-format", func(t *testing.T) {
		tb := tb.in(t)
		msg := eval[string](tb, `headlab.figure("gif").then(() => "", (e) => String(e.message))`)
		if !strings.Contains(msg, "not svg, pdf, png, tex or csv") {
			t.Errorf("headlab.figure(\"gif\") gave %q", msg)
		}
	})
	t.Run("export-panel", func(t *testing.T) {
		// Each format from the panel's Download button: the file's media
		// type, and the link inside it.
		tb := tb.in(t)
		const lnk = "#v=1&scene=attention&H=2&d=2&seed=5&N=5"
		eval[any](tb, "headlab.open("+jsString(lnk)+"), null")
		wantLink := eval[string](tb, "headlab.link()")
		for _, format := range plots.Formats {
			got := eval[exported](tb, `(async () => {
				const saved = [];
				const orig = URL.createObjectURL;
				URL.createObjectURL = (b) => { saved.push(b); return orig.call(URL, b); };
				try {
					document.querySelector("#export details").open = true;
					const f = document.getElementById("export-format");
					f.value = `+jsString(string(format))+`; f.dispatchEvent(new Event("change"));
					document.getElementById("export-status").textContent = "";
					document.getElementById("export-download").click();
					for (let i = 0; i < 400 && saved.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
					const status = document.getElementById("export-status").textContent;
					if (saved.length === 0) return {status};
					const v = new Uint8Array(await saved[0].arrayBuffer());
					let s = "";
					for (let i = 0; i < v.length; i += 0x8000) s += String.fromCharCode.apply(null, v.subarray(i, i + 0x8000));
					return {status, type: saved[0].type, base64: btoa(s)};
				} finally {
					URL.createObjectURL = orig;
				}
			})()`)
			b, err := base64.StdEncoding.DecodeString(got.Base64)
			if err != nil || len(b) == 0 {
				t.Errorf("%s: nothing downloaded (status %q)", format, got.Status)
				continue
			}
			wantType := format.MIME()
			if format == plots.CSV {
				wantType = "application/zip"
			}
			if got.Type != wantType {
				t.Errorf("%s: downloaded as %q, want %q", format, got.Type, wantType)
			}
			if !containsLink(b, format, wantLink) {
				t.Errorf("%s: the download (%d bytes) does not carry the link %s", format, len(b), wantLink)
			}
		}
		noProblemsBut(tb, "export panel", "favicon.ico")
	})
	t.Run("presets", func(t *testing.T) {
		// The page's size presets are plots.Presets, in its order.
		tb := tb.in(t)
		got := eval[[]string](tb, `headlab.figures.presets.map((p) => p.name + ": " + p.doc)`)
		var want []string
		for _, p := range plots.Presets() {
			want = append(want, string(p.Name)+": "+p.Doc)
		}
		if !slices.Equal(got, want) {
			t.Errorf("the page's presets\n%q\nplots.Presets\n%q", got, want)
		}
	})
	t.Run("timing", func(t *testing.T) {
		// Warm: the worker is running. Medians of 3, the page's figure of the
		// attention scene against the same figure made natively.
		tb := tb.in(t)
		lnk := figureLinks()[0]
		eval[any](tb, "headlab.open("+jsString(lnk)+"), null")
		s, _ := link.Parse(lnk)
		for _, format := range []plots.Format{plots.SVG, plots.PDF, plots.PNG} {
			var nat, worker, rt []float64
			for range 3 {
				got := figureIn(tb, string(format), `{dpi: 300}`)
				worker, rt = append(worker, got.Ms), append(rt, got.RoundMs)
				o := plots.DefaultOptions()
				o.Format = format
				start := time.Now()
				runs, err := experiment.RunFigure(experiment.Pacer{}, plots.Needs(s))
				var f plots.Figure
				if err == nil {
					f, err = plots.ForLink(s, runs, o)
				}
				if err == nil {
					_, err = plots.Render(f, o)
				}
				if err != nil {
					t.Fatal(err)
				}
				nat = append(nat, float64(time.Since(start).Microseconds())/1000)
			}
			n, w, r := median(nat), median(worker), median(rt)
			t.Logf("%s (one column, PNG at 300 dpi): native %.1f ms; in the worker %.1f ms (%.1f× native); page round trip %.1f ms (%.1f×)", format, n, w, w/n, r, r/n)
		}
	})
}

// exported is a file the Export panel downloaded.
type exported struct {
	Status string `json:"status"`
	Type   string `json:"type"`
	Base64 string `json:"base64"`
}

// containsLink reports whether a file carries the link: as text (SVG, TeX,
// the PNG's iTXt, the zip's comment and README) or, in a PDF's document
// information, as UTF-16 (fpdf writes Unicode strings so).
func containsLink(b []byte, format plots.Format, lnk string) bool {
	if bytes.Contains(b, []byte(lnk)) || bytes.Contains(b, []byte(strings.ReplaceAll(lnk, "&", "&amp;"))) {
		return true
	}
	if format == plots.PDF {
		var u []byte
		for _, r := range lnk {
			u = append(u, byte(r>>8), byte(r))
		}
		return bytes.Contains(b, u)
	}
	return false
}

// noProblemsBut is tab.noProblems ignoring problems that mention skip.
func noProblemsBut(tb *tab, where, skip string) {
	tb.tb.Helper()
	var left []string
	for _, p := range tb.takeProblems() {
		if !strings.Contains(p, skip) {
			left = append(left, p)
		}
	}
	if len(left) > 0 {
		tb.tb.Errorf("%s: %d console problem(s):\n  %s", where, len(left), strings.Join(left, "\n  "))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// checkPDF renders the PDF with pdftoppm, when installed, and checks the
// page is the figure's size and not blank.
func checkPDF(t *testing.T, b []byte, f plots.Figure) {
	t.Helper()
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Logf("pdftoppm not installed: the PDF was checked for its header only")
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f.pdf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("pdftoppm", "-r", "72", "-png", "-singlefile", path, filepath.Join(dir, "f")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm cannot render the page's PDF: %v\n%s", err, out)
	}
	pf, err := os.Open(filepath.Join(dir, "f.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	img, err := png.Decode(pf)
	if err != nil {
		t.Fatal(err)
	}
	w, hgt := f.Size(plots.TwoColumn)
	if dx, dy := float64(img.Bounds().Dx()), float64(img.Bounds().Dy()); math.Abs(dx-w.Points()) > 1.5 || math.Abs(dy-hgt.Points()) > 1.5 {
		t.Errorf("the PDF page renders at %v×%v, want %.0f×%.0f", dx, dy, w.Points(), hgt.Points())
	}
	dark := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r+g+bl < 3*0x8000 {
				dark++
			}
		}
	}
	// A blank page has none; the sparsest figure (the square scatter in a
	// wide figure) about 0.9%.
	if frac := float64(dark) / float64(img.Bounds().Dx()*img.Bounds().Dy()); frac < 0.003 {
		t.Errorf("the page's PDF renders %.2f%% dark: blank", 100*frac)
	}
	if out, err := exec.Command("pdftotext", path, "-").Output(); err == nil && !strings.Contains(string(out), "0") {
		t.Errorf("pdftotext finds no tick labels in the page's PDF: %q", shorten(string(out), 200))
	}
}
