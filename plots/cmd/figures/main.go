// Command figures renders headlab's figures from share links, for papers'
// build scripts: the same figure, byte for byte in SVG, as the page's
// Export panel makes from the same link.
//
//	figures -link '#v=1&scene=attention&H=3&d=2&seed=7' -format pdf -o fig.pdf
//	figures -link '#v=1&scene=transformer&H=2&d=3&m=3&K=5&view=result' -o tf.svg
//	figures -link '…' -csv data.csv            the numbers behind the figure
//	figures -all DIR [-csv]                    the standard set (SVG + PNG at 150 dpi)
//
// Flags: -format svg|pdf|png (default: from -o's extension, else svg),
// -dpi 150|300|600 (PNG), -size one|two (column preset), -font POINTS.
// Without -o the figure goes to standard output.
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
	var (
		lnk    = fs.String("link", "", "share link (the URL, or its fragment starting with #)")
		format = fs.String("format", "", "svg, pdf or png (default: from -o, else svg)")
		out    = fs.String("o", "", "output file (default: standard output)")
		dpi    = fs.Int("dpi", 300, "PNG resolution in dots per inch")
		size   = fs.String("size", "one", "width preset: one (3.25 in) or two (6.75 in) columns")
		font   = fs.Float64("font", 8, "text size in points")
		csvOut = fs.String("csv", "", "write the figure's data as CSV to this file (with -all: any value writes NAME.csv)")
		all    = fs.String("all", "", "render the standard figure set into this directory")
	)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: figures -link LINK [-format svg|pdf|png] [-o FILE] [-dpi N] [-size one|two] [-font PT] [-csv FILE]")
		fmt.Fprintln(stderr, "       figures -all DIR [-size one|two] [-font PT] [-csv yes]")
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
	o := plots.Options{Format: plots.Format(*format), DPI: *dpi, Size: plots.Size(*size), FontSize: *font}
	if *all != "" {
		if *lnk != "" || *out != "" {
			return usageError{"-all does not take -link or -o"}
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
	if *csvOut != "" {
		if err := writeCSV(*csvOut, f); err != nil {
			return err
		}
	}
	return nil
}

func writeCSV(path string, f plots.Figure) error {
	var buf bytes.Buffer
	if err := f.WriteCSV(&buf); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the data: %w", err)
	}
	return nil
}

// renderAll writes NAME.svg and NAME.png (150 dpi) of every standard
// figure into dir, and NAME.csv when csv is set; then the cost per query
// of W_d, measured on this machine (so it differs from run to run).
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
		for _, format := range []plots.Format{plots.SVG, plots.PNG} {
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
				if err := writeCSV(filepath.Join(dir, fg.name+".csv"), f); err != nil {
					return err
				}
			}
		}
		fmt.Fprintf(stderr, "figures: wrote %s\n", filepath.Join(dir, fg.name)+".{svg,png}")
	}
	return nil
}
