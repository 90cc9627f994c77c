package plots

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// venueDocs are the preamble and the title block of an article in each
// class of Venues that Debian ships, and a file of each other Debian
// package the class needs (build.sh's need_figure_tools installs them).
var venueDocs = map[string]struct {
	preamble, title string
	needs           []string
}{
	"IEEEtran": {"", `\title{Figures at natural size}\author{\IEEEauthorblockN{headlab}}\maketitle`,
		[]string{"ptmr8t.tfm"}}, // Times: texlive-fonts-recommended
	"llncs": {"", `\title{Figures at natural size}\author{headlab}\institute{headlab}\maketitle`, nil},
	"acmart": {"", `\title{Figures at natural size}\author{headlab}\affiliation{\institution{headlab}\city{none}\country{none}}\keywords{figures}\maketitle`,
		[]string{"xstring.sty"}}, // the packages acmart loads: texlive-latex-extra
}

// acmartFonts are the font packages acmart asks for (texlive-fonts-extra,
// 1.4 GB installed), by the name its warning gives them.
var acmartFonts = map[string]string{"libertine": "libertine.sty", "inconsolata": "zi4.sty", "newtxmath": "newtxmath.sty"}

// TestVenueWidths compiles, for each class of Venues that Debian ships, an
// article that prints \the\columnwidth and \the\textwidth and places every
// preset of the venue at its natural size (\includegraphics with no width:
// the figure's text stays at the size it was made at) — the column width in
// a figure, the text width in a figure* of a two-column class, two half
// widths side by side — with \hfuzz=0pt, so that a figure wider than its
// column by any amount is reported. pdflatex must exit 0 with no overfull or
// underfull box and no warning; the class must set the widths Venues gives;
// and each figure, measured by \settowidth, must be the preset's width to
// within 0.1 pt and no wider than the room it is placed in. Without
// acmart's fonts (texlive-fonts-extra) acmart falls back to Computer Modern
// and warns that each is missing: only those warnings pass, and only while
// the font is absent; the widths do not depend on the fonts.
// With HEADLAB_VENUES_OUT set, each article's PDF goes there.
func TestVenueWidths(t *testing.T) {
	needTools(t, "pdflatex", "kpsewhich")
	sf := StandardSet()[0]
	runs := runsFor(t, sf)
	for _, v := range Venues() {
		if v.Class == "" {
			continue
		}
		t.Run(v.Class, func(t *testing.T) {
			doc, ok := venueDocs[v.Class]
			if !ok {
				t.Fatalf("no article for the class %s", v.Class)
			}
			for _, f := range append([]string{v.Class + ".cls"}, doc.needs...) {
				needTeXFile(t, f)
			}
			dir := t.TempDir()
			var body strings.Builder
			var presets []Preset
			for _, p := range Presets() {
				if p.Venue.Name != v.Name {
					continue
				}
				presets = append(presets, p)
				o := DefaultOptions()
				o.Format, o.Size = PDF, p.Name
				f, err := sf.Build(sf.State, runs, o)
				if err != nil {
					t.Fatal(err)
				}
				b, err := Render(f, o)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, string(p.Name)+".pdf"), b, 0o644); err != nil {
					t.Fatal(err)
				}
				img := fmt.Sprintf(`\includegraphics{%s.pdf}`, p.Name)
				env, fig := "figure", `\centering`+img
				switch {
				case p.Part == PartText && v.TwoColumns():
					env = "figure*"
				case p.Part == PartHalf:
					fig = img + `\hfill` + img
				}
				fmt.Fprintf(&body, "\\begin{%s}[tbp]%s\n\\Description{A headlab figure at -size %[3]s.}\\caption{At -size %[3]s: %[4]s}\\end{%[1]s}\n", env, fig, p.Name, TeXLabel(f.Title))
				fmt.Fprintf(&body, "\\settowidth{\\headlabw}{%s}\\typeout{HEADLAB %s \\the\\headlabw}\n", img, p.Name)
				body.WriteString(venueFiller)
			}
			tex := fmt.Sprintf("\\documentclass[%s]{%s}\n\\usepackage{graphicx}\n\\providecommand{\\Description}[1]{}\n%s\n\\newlength{\\headlabw}\\hfuzz=0pt\n\\begin{document}\n%s\n"+
				"\\typeout{HEADLAB columnwidth \\the\\columnwidth}\\typeout{HEADLAB textwidth \\the\\textwidth}\n%s%s\\end{document}\n",
				v.Options, v.Class, doc.preamble, doc.title, venueFiller, body.String())
			if err := os.WriteFile(filepath.Join(dir, "venue.tex"), []byte(tex), 0o644); err != nil {
				t.Fatal(err)
			}
			// Twice: hyperref (which acmart loads) settles its outline on the
			// second run.
			runTool(t, dir, nil, "pdflatex", "-interaction=nonstopmode", "-halt-on-error", "venue.tex")
			out := runTool(t, dir, nil, "pdflatex", "-interaction=nonstopmode", "-halt-on-error", "venue.tex")
			if !strings.Contains(out, "Output written on venue.pdf") {
				t.Fatalf("pdflatex wrote no PDF:\n%s", out)
			}
			logb, err := os.ReadFile(filepath.Join(dir, "venue.log"))
			if err != nil {
				t.Fatal(err)
			}
			if bad := venueLogProblems(t, string(logb)); len(bad) > 0 {
				t.Errorf("pdflatex warns (%d lines):\n%s", len(bad), strings.Join(bad, "\n"))
			}
			got := map[string]float64{}
			for _, m := range regexp.MustCompile(`(?m)^HEADLAB (\S+) ([0-9.]+)pt$`).FindAllStringSubmatch(string(logb), -1) {
				got[m[1]], _ = strconv.ParseFloat(m[2], 64)
			}
			for _, d := range []struct {
				name string
				want float64
			}{{"columnwidth", v.Column}, {"textwidth", v.Text}} {
				if g, ok := got[d.name]; !ok || math.Abs(g-d.want) > 1e-5 {
					t.Errorf("%s (%s): \\%s is %v pt, Venues says %v pt", v.Class, v.Source, d.name, g, d.want)
				}
			}
			for _, p := range presets {
				w, ok := got[string(p.Name)]
				room := got["columnwidth"]
				switch p.Part {
				case PartText:
					room = got["textwidth"]
				case PartHalf:
					room = got["textwidth"] / 2
				}
				switch {
				case !ok:
					t.Errorf("%s: the figure's width was not printed", p.Name)
				case math.Abs(w-p.Points) > 0.1:
					t.Errorf("%s: the figure is %.5f pt wide at its natural size, want the %s's %.5f pt ± 0.1", p.Name, w, p.Part, p.Points)
				case w > room:
					t.Errorf("%s: the figure is %.5f pt wide, wider than its room, %.5f pt", p.Name, w, room)
				default:
					t.Logf("%s: %.5f pt wide (%s %.5f pt)", p.Name, w, p.Part, p.Points)
				}
			}
			if dst := os.Getenv("HEADLAB_VENUES_OUT"); dst != "" {
				b, _ := os.ReadFile(filepath.Join(dir, "venue.pdf"))
				if err := os.WriteFile(filepath.Join(dst, v.Class+".pdf"), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

const venueFiller = "The figures of this article were made by headlab's figures command at the widths of this class, and are placed at their natural size, without scaling.\n\n"

// venueLogProblems returns the log's overfull and underfull boxes and its
// warnings, but acmart's about a font that is not installed.
func venueLogProblems(t *testing.T, log string) []string {
	t.Helper()
	missingFont := regexp.MustCompile(`^Class acmart Warning: You do not have the (\w+) `)
	var bad []string
	for _, l := range strings.Split(log, "\n") {
		ll := strings.ToLower(l)
		warning := strings.Contains(ll, "warning") && !strings.HasPrefix(l, "Package: ") // not a package's banner
		if !warning && !strings.HasPrefix(l, "Overfull") && !strings.HasPrefix(l, "Underfull") {
			continue
		}
		if m := missingFont.FindStringSubmatch(l); m != nil && acmartFonts[m[1]] != "" && !texFileExists(acmartFonts[m[1]]) {
			continue
		}
		bad = append(bad, l)
	}
	return bad
}

// needTeXFile skips (or fails, with HEADLAB_REQUIRE_TOOLS) a test that
// needs a TeX file that is not installed.
func needTeXFile(t *testing.T, name string) {
	t.Helper()
	if texFileExists(name) {
		return
	}
	if os.Getenv("HEADLAB_REQUIRE_TOOLS") != "" {
		t.Fatalf("%s is not installed, and HEADLAB_REQUIRE_TOOLS asks for every figure tool", name)
	}
	t.Skipf("%s is not installed (./build.sh test installs it): skipped", name)
}

func texFileExists(name string) bool {
	return exec.Command("kpsewhich", name).Run() == nil
}
