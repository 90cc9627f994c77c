package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// A section of ACCURACY.md: its title, its words before and after the
// tables, and the command lines whose tables it shows (the arguments of
// this command, run in order).
type section struct {
	name, title  string
	intro, outro string
	runs         [][]string
}

// docSections returns ACCURACY.md's sections, in order. Their words say
// what a table measures and how to read it, never what it showed once:
// the numbers are the tables', written on each run.
func docSections() []section {
	return []section{
		{name: "torch", title: "Real layers: PyTorch's nn.MultiheadAttention",
			intro: `Torch layers (Debian's python3-torch, float64) written by numerics/layerfile/testdata/torchlayer.py,
seeds 1–10: initialised by torch or trained (300 Adam steps on a toy task), with bias=False or with
biases drawn from N(0, 0.2²) (torch starts them at 0), and a scalar readout. Each goes through
` + "`recover -layer FILE -maxerror 1e-9`" + ` in float64, the token scale calibrated and the biases learned where
the file has them. A cell gives the layers of 10 resolved, each within 1e-8 of the file's (a layer
farther stops the measurement), and in brackets the reference layers' (attention.Random, the same
seeds, saved and read the same way). ` + "`TestTorchLayers`" + ` (numerics/recovery/cmd/recover, in ./build.sh test)
asserts these cells within a few layers of the reference's.`,
			runs: [][]string{{"-torch", "-H", "2,3,4", "-d", "4,6,8", "-modes", "paper,economy,frugal", "-seeds", "10"}},
			outro: `With biases a layer's queries are the schedule's and ` + "`BiasQueries`" + ` more: 1 + 2Hd (paper, economy) or
1 + (H + 1)d (frugal), and as many more unknowns; in paper mode the links on z₁ + z_j carry Q_h[1] as
well (MATH.md §3.8). A layer float64 does not resolve is an error, never a wrong layer; extended
precision (` + "`recover -prec 256`" + `, what ` + "`NeededPrecision`" + ` offers at (4, 8)) is the way past it.`},
		{name: "scale", title: "Scale",
			intro: `The held-out layers with every W scaled by 1/16, 1/4, 4 and 16, float64, paper mode, with
` + "`Options.Calibrate`" + ` (the token scale read from the first answers, MATH.md §3.8) against the default
token scale 1. A scale 4^k times the reference's gets token scale 2^−k and runs as the reference does,
up to the rounding of its answers. ` + "`TestCalibratedScale`" + ` asserts every calibrated cell within one layer of
scale 1's.`,
			runs: [][]string{{"-scales", "0.0625,0.25,1,4,16", "-H", "3,4", "-d", "6,8", "-seeds", "20"}}},
		{name: "float64", title: "Float64, 50 layers per cell (paper and economy)",
			intro: `Exact oracle, 50 held-out layers per cell, a cell's remaining seeds dropped after 120 s (its runs
column says how many ran).`,
			runs: [][]string{{"-j", "2", "-budget", "120s"}},
			outro: `Float64 runs out at H ≥ 5: most runs there end in an error naming the function float64 cannot
resolve; numerics/MATH.md §4 says why (pole separation and the conditioning of the final global
fit), and extended precision is the way past it.`},
		{name: "digits", title: "The precision each size needs (paper and economy, d = 1, 2, 4)",
			intro: `For each cell, the smallest precision (float64 first, where H ≤ MaxHeads, then the listed bit
counts) at which every one of the 20 runs resolved with relative error ≤ 1e-12, the error
max(|ΔW|_max/|W|_max, |Δv|_max/|v|_max) measured in the working precision against the true layer;
"max err" is the worst of the 20 there, s/run the wall time of a run. A precision is abandoned at its
first failing run. The indented lines are ` + "`recovery.MeasuredPrecision`" + `'s table; ` + "`NeededPrecision`" + ` (what the
page offers) adds 64 bits; the figure is plots/figures/recovery-digits.svg. What sets a cell is the
worst of its 20 runs, not the typical one: two heads whose poles nearly coincide in one of the d²
functions, or a pole far from the samples n = 0…2H, which more functions (larger d) meet more often.`,
			runs: [][]string{{"-digits", "-H", "1,2,3,4,5,6,7,8,9,10,11,12", "-d", "1,2,4", "-seeds", "20", "-j", "2",
				"-precisions", "0,64,96,128,160,192,224,256,320,384,448,512,640,768,1024"}}},
		{name: "compare", title: "Frugal against paper and economy",
			intro: `20 held-out layers a cell (10 at d = 8 with 320 bits). "queries (formula)" is the mode's count when
nothing falls back (` + "`PaperQueries`, `EconomyQueries`, `FrugalQueries`" + `); "mean actual" includes every
fallback: economy's links, and frugal's measurements that needed more than their H + 1 samples
("fell back", summed over the runs, ` + "`Result.Fallbacks`" + `). "ratio to bound" is the mean actual count over
the information bound H(d² + d); "median err" is max(|ΔW|_max/|W|_max, |Δv|_max/|v|_max) over the
resolved runs, in the working precision; ms/run is the mean wall time of a run (compare within a
cell's rows: the machine may be shared). How frugal finds its poles, and when it falls back, is
MATH.md §3.4.`,
			runs: [][]string{
				{"-compare", "-H", "1,2,3,4", "-d", "2,4,8", "-modes", "paper,economy,frugal", "-precisions", "0", "-seeds", "20"},
				{"-compare", "-H", "2,4,5,8", "-d", "2,4", "-modes", "paper,economy,frugal", "-precisions", "256", "-seeds", "20"},
				{"-compare", "-H", "2,4", "-d", "8", "-modes", "paper,economy,frugal", "-precisions", "256", "-seeds", "20"},
				{"-compare", "-H", "5,6,8", "-d", "8", "-modes", "paper,economy,frugal", "-precisions", "320", "-seeds", "10"},
			}},
	}
}

// docHeader opens ACCURACY.md.
const docHeader = `# Recovery accuracy: what each size, mode and precision resolves

Written by ` + "`go run ./numerics/recovery/cmd/accuracy -doc numerics/recovery/ACCURACY.md`" + `, which runs every
command line below and writes this file; ` + "`-only NAME,…`" + ` measures those sections again and keeps the
others. Each section gives its date, commit and machine. Layers come from ` + "`attention.Random`" + ` with
seeds 1000000+s, s = 0, 1, …, held out from the tests and from the seeds the solvers were tuned on;
the learner's bases from seed s. A run is *resolved* when it returns a layer without an error, and
*wrong, unflagged* when that layer is off the true one by more than 1e-3; a section that has one
says so in its table.
`

// marker is the comment line that opens a section in the file, so that a
// later run can keep it.
func marker(name string) string { return "<!-- accuracy section " + name + " -->" }

// writeDoc runs -doc FILE [-only NAMES]: every section's command lines (or
// the named ones', keeping the others from FILE), written to FILE.
func writeDoc(args []string) error {
	fs := flag.NewFlagSet("accuracy -doc", flag.ContinueOnError)
	only := fs.String("only", "", "comma-separated sections to measure again (default: all): "+strings.Join(sectionNames(), ", "))
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("usage: accuracy -doc FILE [-only NAMES]")
	}
	path := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	keep := map[string]string{}
	if *only != "" {
		old, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		keep = splitSections(string(old))
		for _, n := range strings.Split(*only, ",") {
			if !slices.Contains(sectionNames(), n) {
				return fmt.Errorf("-only: no section %q (%s)", n, strings.Join(sectionNames(), ", "))
			}
			delete(keep, n)
		}
	}
	var out bytes.Buffer
	if err := doc(&out, docSections(), keep, measure, stampNow); err != nil {
		return err
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}

func sectionNames() []string {
	var out []string
	for _, s := range docSections() {
		out = append(out, s.name)
	}
	return out
}

// doc writes the document: the header, then each section, kept (its text
// in keep) or measured now by run (measure), stamped by stamp with how
// long it took.
func doc(w io.Writer, sections []section, keep map[string]string, run func([]string, io.Writer) error, stamp func(time.Duration) string) error {
	fmt.Fprint(w, docHeader)
	for _, s := range sections {
		if text, ok := keep[s.name]; ok {
			fmt.Fprint(w, "\n"+text)
			continue
		}
		fmt.Fprintf(os.Stderr, "accuracy: measuring section %s\n", s.name)
		var body bytes.Buffer
		start := time.Now()
		for _, args := range s.runs {
			if err := run(args, &body); err != nil {
				return fmt.Errorf("section %s, %s: %v", s.name, strings.Join(args, " "), err)
			}
			body.WriteString("\n")
		}
		var sec strings.Builder
		fmt.Fprintf(&sec, "%s\n## %s\n\n%s\n\n", marker(s.name), s.title, stamp(time.Since(start)))
		for _, args := range s.runs {
			fmt.Fprintf(&sec, "    go run ./numerics/recovery/cmd/accuracy %s\n", strings.Join(args, " "))
		}
		fmt.Fprintf(&sec, "\n%s\n\n%s", s.intro, body.String())
		if s.outro != "" {
			fmt.Fprintf(&sec, "%s\n", s.outro)
		}
		fmt.Fprint(w, "\n"+strings.TrimRight(sec.String(), "\n")+"\n")
	}
	return nil
}

// splitSections returns the text of each marked section of a document,
// from its marker to the next.
func splitSections(doc string) map[string]string {
	out := map[string]string{}
	name := ""
	var b strings.Builder
	flush := func() {
		if name != "" {
			out[name] = strings.TrimRight(b.String(), "\n") + "\n"
		}
		b.Reset()
	}
	sc := bufio.NewScanner(strings.NewReader(doc))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, "<!-- accuracy section "); ok {
			flush()
			name = strings.TrimSuffix(n, " -->")
		}
		if name != "" {
			b.WriteString(line + "\n")
		}
	}
	flush()
	return out
}

// stampNow says when, at which commit and on which machine a section was
// measured, and how long it took.
func stampNow(took time.Duration) string {
	commit := "an unknown commit"
	if b, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = "commit " + strings.TrimSpace(string(b))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
			commit += " with uncommitted changes"
		}
	}
	return fmt.Sprintf("Measured %s at %s on %s, in %s.", time.Now().UTC().Format("2006-01-02"), commit, machine(), took.Round(time.Second))
}

// machine names this machine: its processor and cores, system and
// architecture, and its load when the measurement began.
func machine() string {
	cpu := "an unknown processor"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	s := fmt.Sprintf("%s, %d cores, %s/%s", cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			s += ", load " + f[0]
		}
	}
	return s
}
