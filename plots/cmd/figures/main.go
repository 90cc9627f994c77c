// Command figures renders headlab's figures from share links, for papers'
// build scripts: the same figure, byte for byte in SVG, as the page's
// Export panel makes from the same link.
//
//	figures -link '#v=1&scene=attention&H=3&d=2&seed=7' -format pdf -o fig.pdf
//	figures -link '#v=1&scene=transformer&H=2&d=3&m=3&K=5&view=result' -size ieee -o tf.svg
//	figures -link '…' -format tex -o fig.tex       PGF for \input (labels set by the paper's LaTeX)
//	figures -link '…' -format csv -o data.csv      the numbers behind the figure (see below)
//	figures -link '…' -csv-dir DIR                 every table of the figure as DIR/NAME-TABLE.csv
//	figures -all DIR [-csv]                        the standard set (SVG + PNG at 150 dpi, and PDF)
//
// Flags: -format svg|pdf|png|tex|csv (default: from -o's extension, else
// svg), -dpi 150|300|600 (PNG), -size PRESET or a width such as 4.5in (see
// -h for the presets), -font serif|lm (Liberation Serif or Latin Modern;
// default: the link's font key), -fontsize POINTS (-font also takes a
// number, read as -fontsize, so that scripts that give the size there
// keep working). Without -o the figure goes to standard output.
//
// CSV is tidy: one table per file. A figure with one table writes it to
// -o; a figure with several writes one file per table beside -o, named
// after it (data-curve.csv, data-poles.csv …), and lists them on standard
// error; without -o it asks for -o or -csv-dir.
//
// Exit status: 0 on success, 1 when a figure cannot be made or written
// (the message says which and why), 2 on a usage error. Notices about a
// link that was adjusted (see package link) are printed to standard error
// prefixed "figures: notice:", and do not change the exit status.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"headlab/numerics/experiment"
	"headlab/plots"
	"headlab/web/link"
)

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	var ue usageError
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "figures: %s (see figures -h)\n", ue.msg)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "figures: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("figures", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var presets []string
	for _, p := range plots.Presets() {
		presets = append(presets, fmt.Sprintf("%s (%s)", p.Name, p.Doc))
	}
	var (
		lnk      = fs.String("link", "", "share link (the URL, or its fragment starting with #)")
		format   = fs.String("format", "", "svg, pdf, png, tex or csv (default: from -o, else svg)")
		out      = fs.String("o", "", "output file (default: standard output)")
		dpi      = fs.Int("dpi", 300, "PNG resolution in dots per inch")
		size     = fs.String("size", "one", "width: a preset or inches such as 4.5in; presets: "+strings.Join(presets, ", "))
		font     = fs.String("font", "", "typeface: serif (Liberation Serif) or lm (Latin Modern); default: the link's font key, else serif")
		fontSize = fs.Float64("fontsize", 8, "text size in points")
		csvOut   = fs.String("csv", "", "also write the figure's data as CSV to this file (several tables: one file each beside it); with -all: any value writes NAME-TABLE.csv")
		csvDir   = fs.String("csv-dir", "", "also write every table of the figure's data into this directory as NAME-TABLE.csv")
		all      = fs.String("all", "", "render the standard figure set into this directory")
	)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: figures -link LINK [-format svg|pdf|png|tex|csv] [-o FILE] [-dpi N] [-size PRESET|Nin] [-font serif|lm] [-fontsize PT] [-csv FILE] [-csv-dir DIR]")
		fmt.Fprintln(stderr, "       figures -all DIR [-size PRESET|Nin] [-font serif|lm] [-fontsize PT] [-csv yes]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	o := plots.Options{Format: plots.Format(strings.ToLower(*format)), DPI: *dpi, Size: plots.Size(*size), FontSize: *fontSize}
	if v, err := strconv.ParseFloat(*font, 64); err == nil {
		o.FontSize = v // -font POINTS: the size, as -fontsize
	} else {
		o.Font = plots.Typeface(*font)
	}
	if *all != "" {
		if *lnk != "" || *out != "" {
			return usageError{"-all does not take -link or -o"}
		}
		if o.Format == "" {
			o.Format = plots.SVG
		}
		if err := o.Validate(); err != nil {
			return usageError{err.Error()}
		}
		return renderAll(*all, o, *csvOut != "", stderr)
	}
	if *lnk == "" {
		return usageError{"give -link or -all"}
	}
	if o.Format == "" {
		o.Format = plots.SVG
		if ext := strings.TrimPrefix(filepath.Ext(*out), "."); ext != "" {
			o.Format = plots.Format(strings.ToLower(ext))
		}
	}
	if err := o.Validate(); err != nil {
		return usageError{err.Error()}
	}
	frag := *lnk
	if i := strings.IndexByte(frag, '#'); i >= 0 {
		frag = frag[i:]
	}
	s, notes := link.Parse(frag)
	for _, n := range notes {
		fmt.Fprintf(stderr, "figures: notice: %s\n", n)
	}
	if err := o.Validate(); err != nil {
		return err
	}
	runs, err := experiment.RunFigure(experiment.Pacer{}, plots.Needs(s))
	if err != nil {
		return err
	}
	f, err := plots.ForLink(s, runs, o)
	if err != nil {
		return err
	}
	if o.Format == plots.CSV {
		if *out == "" && len(f.Data) > 1 {
			return usageError{fmt.Sprintf("figure %s has %d tables, one CSV file each: give -o FILE.csv (they go beside it) or -csv-dir DIR", f.Name, len(f.Data))}
		}
		if *out == "" {
			return f.WriteCSV(stdout)
		}
		if err := writeCSVBeside(*out, f, stderr); err != nil {
			return err
		}
	} else {
		b, err := plots.Render(f, o)
		if err != nil {
			return err
		}
		if *out == "" {
			if _, err := stdout.Write(b); err != nil {
				return fmt.Errorf("writing the figure: %w", err)
			}
		} else if err := os.WriteFile(*out, b, 0o644); err != nil {
			return fmt.Errorf("writing the figure: %w", err)
		}
	}
	if *csvOut != "" {
		if err := writeCSVBeside(*csvOut, f, stderr); err != nil {
			return err
		}
	}
	if *csvDir != "" {
		if err := writeCSVDir(*csvDir, f, stderr); err != nil {
			return err
		}
	}
	return nil
}

// writeCSVBeside writes the figure's one table to path, or each of its
// several tables to path's stem + "-" + what it holds + ".csv".
func writeCSVBeside(path string, f plots.Figure, stderr io.Writer) error {
	if len(f.Data) == 1 {
		var buf bytes.Buffer
		if err := f.WriteCSV(&buf); err != nil {
			return err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing the data: %w", err)
		}
		return nil
	}
	stem := strings.TrimSuffix(path, filepath.Ext(path))
	for _, t := range f.Data {
		var buf bytes.Buffer
		if err := t.WriteCSV(&buf); err != nil {
			return err
		}
		name := stem + "-" + strings.TrimPrefix(t.Name, f.Name+"-") + ".csv"
		if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing the data: %w", err)
		}
		fmt.Fprintf(stderr, "figures: wrote %s\n", name)
	}
	return nil
}

// writeCSVDir writes every table of the figure into dir as NAME.csv.
func writeCSVDir(dir string, f plots.Figure, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	files, err := f.CSVFiles()
	if err != nil {
		return err
	}
	for _, file := range files {
		path := filepath.Join(dir, file.Name)
		if err := os.WriteFile(path, file.Data, 0o644); err != nil {
			return fmt.Errorf("writing the data: %w", err)
		}
		fmt.Fprintf(stderr, "figures: wrote %s\n", path)
	}
	return nil
}

// renderAll writes NAME.svg, NAME.pdf and NAME.png (150 dpi) of every
// standard figure into dir, and NAME-TABLE.csv when csv is set; then the
// cost per query of W_d, measured on this machine (so it differs from run
// to run).
func renderAll(dir string, o plots.Options, csv bool, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	type figure struct {
		name  string
		build func(plots.Options) (plots.Figure, error)
	}
	var figs []figure
	for _, sf := range plots.StandardSet() {
		var runs *experiment.FigureRuns // run once, for every format
		figs = append(figs, figure{sf.Name, func(o plots.Options) (plots.Figure, error) {
			if runs == nil {
				r, err := experiment.RunFigure(experiment.Pacer{}, plots.Needs(sf.State))
				if err != nil {
					return plots.Figure{}, err
				}
				runs = &r
			}
			return sf.Build(sf.State, *runs, o)
		}})
	}
	var cost *plots.Cost
	figs = append(figs, figure{"atom-cost", func(o plots.Options) (plots.Figure, error) {
		if cost == nil {
			m, err := experiment.MeasureCostCurve(4, experiment.MaxTimingWidth, 20*time.Millisecond, 1)
			if err != nil {
				return plots.Figure{}, err
			}
			cost = &plots.Cost{D: m.D, Split: m.Split, Fused: m.Fused, Formula: m.Formula,
				Machine: "measured natively by ./build.sh figures"}
		}
		return plots.CostFigure(*cost, o)
	}})
	for _, fg := range figs {
		for _, format := range []plots.Format{plots.SVG, plots.PDF, plots.PNG} {
			fo := o
			fo.Format, fo.DPI = format, 150
			f, err := fg.build(fo)
			if err != nil {
				return fmt.Errorf("%s: %w", fg.name, err)
			}
			b, err := plots.Render(f, fo)
			if err != nil {
				return fmt.Errorf("%s: %w", fg.name, err)
			}
			path := filepath.Join(dir, fg.name+"."+string(format))
			if err := os.WriteFile(path, b, 0o644); err != nil {
				return fmt.Errorf("writing %s: %w", path, err)
			}
			if csv && format == plots.SVG {
				if err := writeCSVDir(dir, f, io.Discard); err != nil {
					return err
				}
			}
		}
		fmt.Fprintf(stderr, "figures: wrote %s\n", filepath.Join(dir, fg.name)+".{svg,pdf,png}")
	}
	return nil
}
