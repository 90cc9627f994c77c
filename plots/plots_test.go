package plots

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/recorder"

	"headlab/numerics/experiment"
	"headlab/numerics/fusion"
	"headlab/web/link"
)

// forLink runs the experiments a state's figure needs, as the figures
// command does, and builds the figure.
func forLink(s link.State, o Options) (Figure, error) {
	runs, err := experiment.RunFigure(experiment.Pacer{}, Needs(s))
	if err != nil {
		return Figure{}, err
	}
	return ForLink(s, runs, o)
}

// standardRuns holds the experiments each standard figure draws, run once
// per test binary: the figure tests build every figure at several options.
var standardRuns sync.Map // figure name → experiment.FigureRuns

// runsFor runs (once) the experiments the standard figure sf needs, as the
// figures command does.
func runsFor(t *testing.T, sf Standard) experiment.FigureRuns {
	t.Helper()
	if r, ok := standardRuns.Load(sf.Name); ok {
		return r.(experiment.FigureRuns)
	}
	runs, err := experiment.RunFigure(experiment.Pacer{}, Needs(sf.State))
	if err != nil {
		t.Fatalf("%s: %v", sf.Name, err)
	}
	standardRuns.Store(sf.Name, runs)
	return runs
}

// builtStandard builds every standard figure once per options.
func builtStandard(t *testing.T, o Options) map[string]Figure {
	t.Helper()
	out := map[string]Figure{}
	for _, sf := range StandardSet() {
		f, err := sf.Build(sf.State, runsFor(t, sf), o)
		if err != nil {
			t.Fatalf("%s: %v", sf.Name, err)
		}
		out[sf.Name] = f
	}
	return out
}

// want lists, per standard figure, the legend entries of its panel and
// words of its axis labels.
var want = map[string]struct {
	legend       int
	xlabel, ylab string
}{
	"attention-weights": {3, "token", "attention weight"},
	"atom-explosion":    {7, "heads", "atoms"},
	"atom-mass":         {2, "size", "attention mass"},
	"rational-fit":      {6, "copies", "answer"},
	// median, each run, error = ε, and the mark of unresolved runs (the
	// standard sweep, H = 2, d = 2, has some at ε = 1e-4 and in the scan).
	"recovery-noise":   {4, "oracle accuracy", "largest relative error"},
	"recovery-heads":   {3, "heads", "largest relative error"},
	"recovery-queries": {5, "token width", "queries"},
	// the true F, the pieces, five kinks, the local solves, the side queries
	"transformer-units": {9, "line", "single tokens"},
	// two heads, the units, the diagonal
	"transformer-result": {4, "true", "recovered"},
	"recovery-digits":    {8, "heads", "digits needed"},
}

func TestStandardSVG(t *testing.T) {
	figs := builtStandard(t, DefaultOptions())
	if len(figs) != len(want) {
		t.Fatalf("%d standard figures, want %d", len(figs), len(want))
	}
	for name, f := range figs {
		w, ok := want[name]
		if !ok {
			t.Errorf("unexpected standard figure %s", name)
			continue
		}
		if got := len(f.Panels[0][0].Legend); got != w.legend {
			t.Errorf("%s: %d legend entries, want %d", name, got, w.legend)
		}
		b, err := Render(f, DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_, paths := parseSVG(t, name, b)
		all := strings.Join(drawnTexts(t, f, DefaultOptions()), "")
		for _, word := range []string{w.xlabel, w.ylab} {
			if !strings.Contains(all, word) {
				t.Errorf("%s: no text %q in the SVG", name, word)
			}
		}
		for _, e := range f.Panels[0][0].Legend {
			first := parse(e.Label)[0].s
			if !strings.Contains(all, first) {
				t.Errorf("%s: legend entry %q (%q) not drawn", name, e.Label, first)
			}
		}
		if paths < w.legend {
			t.Errorf("%s: only %d paths", name, paths)
		}
		for _, bad := range []string{"NaN", "Inf"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s: %s in the SVG", name, bad)
			}
		}
		if !bytes.Contains(b, []byte(xmlEscape(f.Link))) || f.Link == "" {
			t.Errorf("%s: the SVG does not carry the link %q", name, f.Link)
		}
		again, _ := Render(f, DefaultOptions())
		if !bytes.Equal(b, again) {
			t.Errorf("%s: two renderings differ", name)
		}
		if files, err := f.CSVFiles(); err != nil || len(files) == 0 {
			t.Errorf("%s: CSV %d files, %v", name, len(files), err)
		}
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func xmlEscape(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// drawnTexts returns the strings a figure draws (SVG draws them as
// outlines), recorded by gonum's recorder canvas.
func drawnTexts(t *testing.T, f Figure, o Options) []string {
	t.Helper()
	var out []string
	for _, a := range record(t, f, o).Actions {
		if fs, ok := a.(*recorder.FillString); ok {
			out = append(out, fs.String)
		}
	}
	return out
}

// record draws f on gonum's recorder canvas.
func record(t *testing.T, f Figure, o Options) *recorder.Canvas {
	t.Helper()
	w, h := f.Size(o.Size)
	c := &sizedRecorder{Canvas: &recorder.Canvas{}, w: w, h: h}
	if err := drawFigure(c, f); err != nil {
		t.Fatal(err)
	}
	return c.Canvas
}

type sizedRecorder struct {
	*recorder.Canvas
	w, h vg.Length
}

func (c *sizedRecorder) Size() (vg.Length, vg.Length) { return c.w, c.h }

// parseSVG checks that b is well-formed XML and returns its texts and the
// number of path elements; every number in a path's d is finite.
func parseSVG(t *testing.T, name string, b []byte) (texts []string, paths int) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	inText := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: SVG does not parse: %v", name, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
			if e.Name.Local == "path" {
				paths++
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(e))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return texts, paths
}

func TestPNGSizeAndDPI(t *testing.T) {
	f, err := forLink(link.Default(), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		size Size
		dpi  int
	}{{OneColumn, 150}, {TwoColumn, 300}, {OneColumn, 600}} {
		o := DefaultOptions()
		o.Format, o.Size, o.DPI = PNG, c.size, c.dpi
		b, err := Render(f, o)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%v dpi: %v", c.dpi, err)
		}
		w, h := f.Size(c.size)
		wantW, wantH := w.Dots(float64(c.dpi)), h.Dots(float64(c.dpi))
		if got := img.Bounds().Dx(); math.Abs(float64(got)-wantW) > 1 {
			t.Errorf("%s column, %d dpi: %d px wide, want %.1f", c.size, c.dpi, got, wantW)
		}
		if got := img.Bounds().Dy(); math.Abs(float64(got)-wantH) > 1 {
			t.Errorf("%s column, %d dpi: %d px high, want %.1f", c.size, c.dpi, got, wantH)
		}
		ppm, src := pngChunks(t, b)
		if want := math.Round(float64(c.dpi) / 0.0254); float64(ppm) != want {
			t.Errorf("%d dpi: pHYs %d px/m, want %v", c.dpi, ppm, want)
		}
		if src != f.Link {
			t.Errorf("PNG Source %q, want the link %q", src, f.Link)
		}
	}
}

// pngChunks returns the pHYs resolution and the iTXt Source of a PNG.
func pngChunks(t *testing.T, b []byte) (ppm uint32, source string) {
	for i := 8; i+8 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[i:]))
		typ := string(b[i+4 : i+8])
		data := b[i+8 : i+8+n]
		switch typ {
		case "pHYs":
			ppm = binary.BigEndian.Uint32(data)
		case "iTXt": // keyword, NUL, compression flag and method, language, NUL, translated keyword, NUL, UTF-8 text
			if k, v, _ := strings.Cut(string(data), "\x00"); k == "Source" && len(v) >= 4 && v[:4] == "\x00\x00\x00\x00" {
				source = v[4:]
			}
		}
		i += 12 + n
	}
	return ppm, source
}

func TestPDF(t *testing.T) {
	o := DefaultOptions()
	o.Format = PDF
	dir := t.TempDir()
	figs := builtStandard(t, o)
	for _, name := range []string{"rational-fit", "recovery-noise"} {
		f := figs[name]
		b, err := Render(f, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.HasPrefix(b, []byte("%PDF-")) {
			t.Fatalf("%s: PDF starts %q", name, b[:min(8, len(b))])
		}
		again, _ := Render(f, o)
		if !bytes.Equal(b, again) {
			t.Errorf("%s: two PDF renderings differ", name)
		}
		if _, err := exec.LookPath("pdftoppm"); err != nil {
			t.Logf("pdftoppm not installed: %s checked for its header only", name)
			continue
		}
		path := filepath.Join(dir, name+".pdf")
		os.WriteFile(path, b, 0o644)
		if out, err := exec.Command("pdftoppm", "-r", "72", "-png", "-singlefile", path, filepath.Join(dir, name)).CombinedOutput(); err != nil {
			t.Fatalf("%s: pdftoppm: %v\n%s", name, err, out)
		}
		pf, err := os.Open(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(pf)
		pf.Close()
		if err != nil {
			t.Fatal(err)
		}
		w, h := f.Size(OneColumn)
		if dx, dy := img.Bounds().Dx(), img.Bounds().Dy(); math.Abs(float64(dx)-w.Points()) > 1.5 || math.Abs(float64(dy)-h.Points()) > 1.5 {
			t.Errorf("%s: page renders at %d×%d, want %.0f×%.0f", name, dx, dy, w.Points(), h.Points())
		}
		// Non-blank: a fair share of dark pixels (axes, text, curves).
		dark := 0
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if r+g+bl < 3*0x8000 {
					dark++
				}
			}
		}
		if frac := float64(dark) / float64(img.Bounds().Dx()*img.Bounds().Dy()); frac < 0.01 {
			t.Errorf("%s: rendered page is %.2f%% dark: blank?", name, 100*frac)
		}
		if info, err := exec.Command("pdfinfo", path).Output(); err == nil && !strings.Contains(string(info), f.Link) {
			t.Errorf("%s: pdfinfo does not show the link:\n%s", name, info)
		}
	}
}

func TestForLinkScenes(t *testing.T) {
	for _, c := range []struct {
		fragment string
		panels   int
	}{
		{"#v=1&scene=attention&H=2&d=3&seed=5&N=9", 1},
		{"#v=1&scene=atoms&H=3&d=7&seed=2", 2},
	} {
		s, notes := link.Parse(c.fragment)
		if len(notes) > 0 {
			t.Fatalf("%s: %v", c.fragment, notes)
		}
		for _, size := range []Size{OneColumn, TwoColumn} {
			o := DefaultOptions()
			o.Size = size
			f, err := forLink(s, o)
			if err != nil {
				t.Fatalf("%s: %v", c.fragment, err)
			}
			n := 0
			for _, row := range f.Panels {
				n += len(row)
			}
			if n != c.panels {
				t.Errorf("%s: %d panels, want %d", c.fragment, n, c.panels)
			}
			if f.Link != s.Link() {
				t.Errorf("figure link %q, want %q", f.Link, s.Link())
			}
		}
	}
	rec := link.Default()
	rec.Scene, rec.H, rec.D = "recovery", 2, 2
	for _, view := range []link.View{link.Steps, link.Result, link.Sweep, link.Modes} {
		rec.View = view
		if _, err := forLink(rec, DefaultOptions()); err != nil {
			t.Errorf("recovery view %s: %v", view, err)
		}
	}
}

func TestOptionsRefused(t *testing.T) {
	for _, o := range []Options{
		{Format: "eps", DPI: 300, Size: OneColumn, FontSize: 8},
		{Format: PNG, DPI: 10, Size: OneColumn, FontSize: 8},
		{Format: SVG, DPI: 300, Size: "three", FontSize: 8},
		{Format: SVG, DPI: 300, Size: OneColumn, FontSize: math.NaN()},
		{Format: SVG, DPI: 300, Size: OneColumn, FontSize: 40},
	} {
		if _, err := forLink(link.Default(), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	big := link.Default()
	big.Scene, big.View, big.H, big.D = "recovery", "sweep", 4, 8
	if _, err := forLink(big, DefaultOptions()); err == nil || !strings.Contains(err.Error(), fmt.Sprint(experiment.SweepCostLimit)) {
		t.Errorf("a sweep over the limit gave %v, want a refusal naming the limit", err)
	}
}

func TestPoissonBinomial(t *testing.T) {
	// Against the brute-force sum over the 2^d atoms.
	p := []float64{0.1, 0.7, 0.35, 0.9, 0.5}
	got := fusion.PoissonBinomial(p)
	want := make([]float64, len(p)+1)
	for s := 0; s < 1<<len(p); s++ {
		w, k := 1.0, 0
		for j := range p {
			if s>>j&1 == 1 {
				w *= p[j]
				k++
			} else {
				w *= 1 - p[j]
			}
		}
		want[k] += w
	}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-15 {
			t.Errorf("P(|S| = %d) = %v, want %v", k, got[k], want[k])
		}
	}
}

func TestMarkup(t *testing.T) {
	for _, c := range []struct {
		in   string
		runs int
	}{
		{"plain", 1}, {"*d*", 1}, {"2^{*d*} atoms", 3}, {"x_{1", 1}, {"}{^", 1}, {"", 0},
	} {
		if got := len(parse(c.in)); got != c.runs {
			t.Errorf("parse(%q): %d runs, want %d", c.in, got, c.runs)
		}
	}
}

func TestCostPerQuery(t *testing.T) {
	c := Cost{D: []int{4, 5, 6}, Split: []float64{40, 50, 60}, Fused: []float64{200, 420, 900}, Formula: []float64{20, 24, 28}}
	f, err := CostFigure(c, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.Panels[0][0].Legend); got != 3 {
		t.Fatalf("%d legend entries, want 3", got)
	}
	b, err := Render(f, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	parseSVG(t, "atom-cost", b)
	if all := strings.Join(drawnTexts(t, f, DefaultOptions()), ""); !strings.Contains(all, "time per query") || !strings.Contains(all, "width") {
		t.Fatalf("axis labels missing from %q", all)
	}
	if len(f.Data[0].Rows) != 3 {
		t.Fatalf("%d data rows", len(f.Data[0].Rows))
	}
	c.Fused[1] = math.NaN()
	if _, err := CostFigure(c, DefaultOptions()); err == nil {
		t.Fatal("a NaN time was plotted")
	}
}

// TestSweepMarksUnresolved: an ε at which a run was unresolved gets the
// mark and its legend entry, and the CSV counts it; a sweep without one
// has neither.
func TestSweepMarksUnresolved(t *testing.T) {
	nan := math.NaN()
	st := experiment.SweepState{Points: []experiment.SweepPoint{
		{X: 1e-12, Errors: []float64{1e-10, 2e-10}, Median: 1.4e-10},
		{X: 1e-8, Errors: []float64{1e-6, nan}, Median: 1e-6, Unresolved: 1},
		{X: 1e-4, Errors: []float64{nan, nan}, Median: nan, Unresolved: 2},
	}}
	s := link.Default()
	s.Scene, s.View, s.H, s.D = "recovery", "sweep", 2, 2
	for _, marked := range []bool{true, false} {
		in := NoiseSweep(st, s)
		if !marked {
			in.Series[0].Unresolved = []int{0, 0, 0}
		}
		f, err := ErrorVsNoise(in, DefaultOptions().style())
		if err != nil {
			t.Fatal(err)
		}
		has := false
		for _, e := range f.Panels[0][0].Legend {
			has = has || strings.Contains(e.Label, "unresolved")
		}
		if has != marked {
			t.Errorf("unresolved runs %v: legend entry %v", marked, has)
		}
		var b bytes.Buffer
		if err := f.Data[0].WriteCSV(&b); err != nil {
			t.Fatal(err)
		}
		if marked && !strings.Contains(b.String(), "0.0001,paper,,0,2\n") {
			t.Errorf("CSV does not count the unresolved runs at 1e-4:\n%s", b.String())
		}
		if marked && !strings.Contains(f.Panels[0][0].Legend[0].Label, "1 of 2 at 10^{−8}") {
			t.Errorf("legend %q does not say the median at 1e-8 is of 1 run of 2", f.Panels[0][0].Legend[0].Label)
		}
	}
}
