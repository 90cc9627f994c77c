package plots

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
	"gonum.org/v1/plot/vg/vgimg"
)

// The tests in this file check what a journal's production system checks,
// with the tools it uses (pdflatex, pdffonts, pdfimages, pdftoppm,
// rsvg-convert, Python's csv). Without a tool a test skips with one line;
// with HEADLAB_REQUIRE_TOOLS set (./build.sh test sets it, and installs them)
// a missing tool fails it.

// needTools skips (or fails, when HEADLAB_REQUIRE_TOOLS is set) a test whose
// tools are not installed.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("HEADLAB_REQUIRE_TOOLS") != "" {
				t.Fatalf("%s is not installed, and HEADLAB_REQUIRE_TOOLS asks for every figure tool", tool)
			}
			t.Skipf("%s is not installed (./build.sh test installs it): skipped", tool)
		}
	}
}

// journalFigures is the standard set and the cost figure (from fixed
// times), built with o.
func journalFigures(t *testing.T, o Options) []Figure {
	t.Helper()
	var out []Figure
	for _, sf := range StandardSet() {
		f, err := sf.Build(sf.State, runsFor(t, sf), o)
		if err != nil {
			t.Fatalf("%s: %v", sf.Name, err)
		}
		out = append(out, f)
	}
	c := Cost{D: []int{4, 5, 6, 7}, Split: []float64{40, 50, 60, 70}, Fused: []float64{200, 420, 900, 1900}, Formula: []float64{20, 24, 28, 31}}
	f, err := CostFigure(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, f)
}

func runTool(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestMinimumSizes: no text under MinTextSize and no stroked line under
// MinLineWidth, in every figure at every preset and the smallest font size.
func TestMinimumSizes(t *testing.T) {
	sizes := []Size{"3in"}
	for _, p := range Presets() {
		sizes = append(sizes, p.Name)
	}
	for _, size := range sizes {
		for _, pt := range []float64{MinFontSize, 8} {
			o := DefaultOptions()
			o.Size, o.FontSize = size, pt
			for _, f := range journalFigures(t, o) {
				widths := []vg.Length{1}
				for _, a := range record(t, f, o).Actions {
					switch a := a.(type) {
					case *recorder.FillString:
						if a.Size < MinTextSize-1e-9 {
							t.Errorf("%s at %s, %v pt: text %q at %.2f pt", f.Name, size, pt, a.String, a.Size)
						}
					case *recorder.Push:
						widths = append(widths, widths[len(widths)-1])
					case *recorder.Pop:
						widths = widths[:len(widths)-1]
					case *recorder.SetLineWidth:
						widths[len(widths)-1] = a.Width
					case *recorder.Stroke:
						if w := widths[len(widths)-1]; w > 0 && w < MinLineWidth-1e-9 {
							t.Errorf("%s at %s, %v pt: a line %.2f pt wide", f.Name, size, pt, w)
						}
					}
				}
			}
		}
	}
}

// TestGreyscaleLegends draws every legend entry's symbols in grey and checks
// that no two entries of a panel look alike: they must differ in shape
// (dash, marker, hatching), not only in colour.
func TestGreyscaleLegends(t *testing.T) {
	o := DefaultOptions()
	for _, f := range journalFigures(t, o) {
		for _, row := range f.Panels {
			for _, p := range row {
				inks := make([][]bool, len(p.Legend))
				for i, e := range p.Legend {
					inks[i] = thumbInk(f.Style, e)
				}
				for i := range inks {
					for j := i + 1; j < len(inks); j++ {
						if d := inkDifference(inks[i], inks[j]); d < 0.1 {
							t.Errorf("%s: legend entries %q and %q look alike in grey (%.0f%% of their ink differs)", f.Name, p.Legend[i].Label, p.Legend[j].Label, 100*d)
						}
					}
				}
			}
		}
	}
}

// thumbInk draws an entry's symbols at 600 dpi in grey and returns where
// the ink is.
func thumbInk(st Style, e LegendEntry) []bool {
	w, h := legendThumb(st), vg.Points(st.FontSize*0.7)
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(600), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(c)
	for _, th := range e.Thumbs {
		th.Thumbnail(&dc)
	}
	img := c.Image()
	b := img.Bounds()
	ink := make([]bool, 0, b.Dx()*b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			g := color.GrayModel.Convert(img.At(x, y)).(color.Gray)
			ink = append(ink, g.Y < 200)
		}
	}
	return ink
}

// inkDifference is the share of the two symbols' ink where only one of them
// has ink.
func inkDifference(a, b []bool) float64 {
	either, one := 0, 0
	for i := range a {
		if a[i] || b[i] {
			either++
			if a[i] != b[i] {
				one++
			}
		}
	}
	if either == 0 {
		return 0
	}
	return float64(one) / float64(either)
}

// TestSVGIsThePDF renders every figure's SVG with librsvg on a machine with
// no fonts (an empty fontconfig) and its PDF with poppler, and bounds the
// share of pixels that differ: the SVG's text is outlines of the PDF's
// embedded fonts, so it reads the same everywhere. An SVG whose text needs
// an installed font (as gonum's own does) renders none of it here: 4.0% of
// a rational-fit figure's pixels differed so (0.04% with its font
// installed); the worst figure now: 0.18% (2026-12-03).
func TestSVGIsThePDF(t *testing.T) {
	needTools(t, "rsvg-convert", "pdftoppm")
	dir := t.TempDir()
	conf := filepath.Join(dir, "fonts.conf")
	os.WriteFile(conf, []byte("<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n<fontconfig></fontconfig>\n"), 0o644)
	env := []string{"FONTCONFIG_FILE=" + conf, "FONTCONFIG_PATH=" + dir, "XDG_CACHE_HOME=" + dir}
	worst := 0.0
	for _, font := range []Typeface{Serif, LatinModern} {
		o := DefaultOptions()
		o.Font = font
		for _, f := range journalFigures(t, o) {
			name := f.Name + "-" + string(font)
			svg, err := Render(f, o)
			if err != nil {
				t.Fatal(err)
			}
			po := o
			po.Format = PDF
			pdf, err := Render(f, po)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, name+".svg"), svg, 0o644)
			os.WriteFile(filepath.Join(dir, name+".pdf"), pdf, 0o644)
			runTool(t, dir, env, "rsvg-convert", "-d", "144", "-p", "144", "-b", "white", "-o", name+"-svg.png", name+".svg")
			runTool(t, dir, nil, "pdftoppm", "-r", "144", "-png", "-singlefile", name+".pdf", name+"-pdf")
			a, b := readPNG(t, filepath.Join(dir, name+"-svg.png")), readPNG(t, filepath.Join(dir, name+"-pdf.png"))
			if a.Bounds().Size() != b.Bounds().Size() {
				t.Errorf("%s: SVG renders %v, PDF %v", name, a.Bounds().Size(), b.Bounds().Size())
				continue
			}
			d := pixelDifference(a, b)
			worst = max(worst, d)
			if d > 0.005 {
				t.Errorf("%s: %.2f%% of the pixels of the SVG (librsvg, no fonts installed) and the PDF (poppler) differ; want ≤ 0.5%%", name, 100*d)
			}
		}
	}
	t.Logf("largest share of differing pixels, SVG against PDF at 144 dpi: %.3f%%", 100*worst)
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// pixelDifference is the share of pixels of a (or b), averaged over 2×2
// blocks, whose grey level differs by more than a quarter of the range from
// every block within one block of it in the other image: the renderers'
// ways with thin lines (librsvg anti-aliases a 0.5 pt line over two pixels,
// poppler snaps it to one) and half-pixel shifts pass, a missing or
// misplaced glyph does not.
func pixelDifference(a, b image.Image) float64 {
	grey := func(img image.Image) [][]uint8 {
		r := img.Bounds()
		g := make([][]uint8, r.Dy()/2)
		for y := range g {
			g[y] = make([]uint8, r.Dx()/2)
			for x := range g[y] {
				sum := 0
				for d := range 4 {
					sum += int(color.GrayModel.Convert(img.At(r.Min.X+2*x+d%2, r.Min.Y+2*y+d/2)).(color.Gray).Y)
				}
				g[y][x] = uint8(sum / 4)
			}
		}
		return g
	}
	ga, gb := grey(a), grey(b)
	count := func(p, q [][]uint8) int {
		n := 0
		for y := range p {
			for x := range p[y] {
				near := false
				for dy := -1; dy <= 1 && !near; dy++ {
					for dx := -1; dx <= 1 && !near; dx++ {
						yy, xx := y+dy, x+dx
						if yy >= 0 && yy < len(q) && xx >= 0 && xx < len(q[yy]) && math.Abs(float64(p[y][x])-float64(q[yy][xx])) <= 64 {
							near = true
						}
					}
				}
				if !near {
					n++
				}
			}
		}
		return n
	}
	n := max(count(ga, gb), count(gb, ga))
	return float64(n) / float64(len(ga)*len(ga[0]))
}

// TestPDFFontsAndImages: every font of every PDF is embedded and
// subset-tagged with its real name; no PDF holds a raster image; none
// declares a transparency group.
func TestPDFFontsAndImages(t *testing.T) {
	needTools(t, "pdffonts", "pdfimages")
	dir := t.TempDir()
	tagged := regexp.MustCompile(`^[A-Z]{6}\+(LiberationSerif|LMRoman10)`)
	for _, font := range []Typeface{Serif, LatinModern} {
		o := DefaultOptions()
		o.Format, o.Font = PDF, font
		for _, f := range journalFigures(t, o) {
			b, err := Render(f, o)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte("/Transparency")) {
				t.Errorf("%s (%s): the PDF declares a transparency group", f.Name, font)
			}
			path := filepath.Join(dir, f.Name+".pdf")
			os.WriteFile(path, b, 0o644)
			lines := strings.Split(strings.TrimSpace(runTool(t, dir, nil, "pdffonts", path)), "\n")[2:]
			if font == Serif && len(lines) == 0 {
				t.Errorf("%s: no fonts in the PDF", f.Name)
			}
			for _, l := range lines {
				fs := strings.Fields(l)
				// name type… encoding emb sub uni object ID
				if n := len(fs); n < 7 || fs[n-5] != "yes" || fs[n-4] != "yes" || !tagged.MatchString(fs[0]) {
					t.Errorf("%s: font not embedded as a tagged subset: %s", f.Name, l)
				}
			}
			if imgs := strings.Split(strings.TrimSpace(runTool(t, dir, nil, "pdfimages", "-list", path)), "\n"); len(imgs) > 2 {
				t.Errorf("%s: %d raster images in the PDF", f.Name, len(imgs)-2)
			}
		}
	}
}

// TestArticle puts the figures into a two-column LaTeX article as a paper
// would — every figure as PDF at \columnwidth, one at \textwidth, three as
// TeX (PGF) — and requires pdflatex to take it without a single warning.
// With HEADLAB_ARTICLE_OUT set, the article's PDF and its pages as PNG go
// there, its second page as article.png (./build.sh figures: the picture
// in plots/FIGURES.md).
func TestArticle(t *testing.T) {
	needTools(t, "pdflatex", "pdftoppm")
	dir := t.TempDir()
	var body strings.Builder
	o := DefaultOptions()
	o.Format = PDF
	figs := journalFigures(t, o)
	for i, f := range figs {
		b, err := Render(f, o)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f.Name+".pdf"), b, 0o644)
		fmt.Fprintf(&body, "\\begin{figure}[tbp]\\centering\\includegraphics[width=\\columnwidth]{%s.pdf}\n\\caption{%s}\\end{figure}\n", f.Name, TeXLabel(f.Title))
		if i == 1 {
			wide := o
			wide.Size = "acm-wide"
			sf := StandardSet()[i]
			fw, err := sf.Build(sf.State, runsFor(t, sf), wide)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Render(fw, wide)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "wide.pdf"), b, 0o644)
			fmt.Fprintf(&body, "\\begin{figure*}[tbp]\\centering\\includegraphics[width=\\textwidth]{wide.pdf}\n\\caption{At the text width: %s}\\end{figure*}\n", TeXLabel(fw.Title))
		}
		if i%4 == 3 {
			body.WriteString("\\lipsum\\clearpage\n")
		}
	}
	// Three figures as TeX, laid out for the article's column (3.1 in).
	to := DefaultOptions()
	to.Format, to.Size = TeX, "3.1in"
	for _, name := range []string{"attention-weights", "rational-fit", "recovery-noise"} {
		var f Figure
		for _, sf := range StandardSet() {
			if sf.Name == name {
				var err error
				if f, err = sf.Build(sf.State, runsFor(t, sf), to); err != nil {
					t.Fatal(err)
				}
			}
		}
		b, err := Render(f, to)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("% link: "+f.Link)) {
			t.Errorf("%s: the TeX does not carry the link", name)
		}
		os.WriteFile(filepath.Join(dir, name+"-pgf.tex"), b, 0o644)
		fmt.Fprintf(&body, "\\begin{figure}[tbp]\\centering\\input{%s-pgf.tex}\n\\caption{Set by \\LaTeX: %s}\\end{figure}\n", name, TeXLabel(f.Title))
	}
	doc := "\\documentclass[twocolumn,10pt]{article}\n\\usepackage{graphicx}\n\\usepackage{pgf}\n" +
		"\\newcommand{\\lipsum}{The figures of this page were made by headlab's figures command from share links; each is a PDF included at the column width, or PGF code set by this document. }\n" +
		"\\begin{document}\n\\title{headlab's figures in a two-column article}\\author{}\\date{}\\maketitle\n\\lipsum\n" + body.String() + "\\lipsum\n\\end{document}\n"
	os.WriteFile(filepath.Join(dir, "article.tex"), []byte(doc), 0o644)
	out := runTool(t, dir, nil, "pdflatex", "-interaction=nonstopmode", "-halt-on-error", "article.tex")
	logb, _ := os.ReadFile(filepath.Join(dir, "article.log"))
	var bad []string
	for _, l := range strings.Split(string(logb), "\n") {
		if ll := strings.ToLower(l); strings.Contains(ll, "warning") || strings.HasPrefix(l, "Overfull") || strings.HasPrefix(l, "Underfull") {
			bad = append(bad, l)
		}
	}
	if len(bad) > 0 {
		t.Errorf("pdflatex warns (%d lines):\n%s", len(bad), strings.Join(bad, "\n"))
	}
	if !strings.Contains(out, "Output written on article.pdf") {
		t.Fatalf("pdflatex wrote no PDF:\n%s", out)
	}
	if dst := os.Getenv("HEADLAB_ARTICLE_OUT"); dst != "" {
		b, _ := os.ReadFile(filepath.Join(dir, "article.pdf"))
		if err := os.WriteFile(filepath.Join(dst, "article.pdf"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		runTool(t, dst, nil, "pdftoppm", "-r", "80", "-png", "-f", "2", "-l", "2", "-singlefile", filepath.Join(dst, "article.pdf"), filepath.Join(dst, "article"))
	}
}

// TestCSVLoads writes every table of every figure and reads it back with
// Python's csv module (encoding/csv without python3): every row has the
// header's number of fields; every numeric column names its unit.
func TestCSVLoads(t *testing.T) {
	dir := t.TempDir()
	n := 0
	for _, f := range journalFigures(t, DefaultOptions()) {
		files, err := f.CSVFiles()
		if err != nil {
			t.Fatal(err)
		}
		for i, file := range files {
			n++
			os.WriteFile(filepath.Join(dir, file.Name), file.Data, 0o644)
			tab := f.Data[i]
			for c, col := range tab.Columns {
				numeric := len(tab.Rows) > 0
				for _, r := range tab.Rows {
					if _, err := strconv.ParseFloat(r[c], 64); err != nil && r[c] != "" {
						numeric = false
					}
				}
				if numeric && !regexp.MustCompile(`\(.+\)$`).MatchString(col) {
					t.Errorf("%s: numeric column %q has no unit", file.Name, col)
				}
			}
			if slices.Contains(tab.Columns, "") {
				t.Errorf("%s: a column without a name", file.Name)
			}
		}
	}
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("HEADLAB_REQUIRE_TOOLS") != "" {
			t.Fatal("python3 is not installed, and HEADLAB_REQUIRE_TOOLS asks for every figure tool")
		}
		t.Skip("python3 is not installed: the CSV files were checked by the table's own rules only")
	}
	const script = `
import csv, glob, sys
bad, files, rows = 0, 0, 0
for path in sorted(glob.glob(sys.argv[1] + "/*.csv")):
    with open(path, newline="", encoding="utf-8") as f:
        r = list(csv.reader(f))
    files += 1
    header = r[0]
    for i, row in enumerate(r[1:], 2):
        rows += 1
        if len(row) != len(header):
            bad += 1
            print(f"{path}:{i}: {len(row)} fields, header has {len(header)}")
print(f"{files} files, {rows} rows, {bad} bad")
sys.exit(1 if bad else 0)
`
	out := runTool(t, dir, nil, "python3", "-c", script, dir)
	if !strings.Contains(out, fmt.Sprintf("%d files", n)) {
		t.Errorf("python read %q, want %d files", strings.TrimSpace(out), n)
	}
	t.Logf("python3 csv: %s", strings.TrimSpace(out))
}
