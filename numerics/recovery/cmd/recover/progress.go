package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows how many queries are answered: a bar on a terminal,
// a line now and then otherwise. Safe for use by several goroutines.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	bar     *progressbar.ProgressBar
	total   int
	n, logN int
	last    time.Time
	step    int // the last tenth printed
	quiet   bool
}

// newProgress chooses the display: kind is auto, bar, lines or none.
func newProgress(kind string, w io.Writer, total int) *progress {
	p := &progress{w: w, total: total, last: time.Now()}
	if kind == "auto" {
		kind = "lines"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			kind = "bar"
		}
	}
	switch kind {
	case "none":
		p.quiet = true
	case "bar":
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("queries"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("queries"),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// add counts n answers, from the log or the oracle.
func (p *progress) add(n int, fromLog bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n += n
	if fromLog {
		p.logN += n
	}
	switch {
	case p.quiet:
	case p.bar != nil:
		if p.n > p.total { // fallbacks ask more than planned
			p.total = p.n
			p.bar.ChangeMax(p.total)
		}
		p.bar.Set(p.n)
	default:
		step := 10 * p.n / max(p.total, 1)
		if step > p.step || time.Since(p.last) > 2*time.Second {
			p.step, p.last = step, time.Now()
			fmt.Fprintf(p.w, "recover: %d of %d planned queries answered (%d from the log)\n", p.n, p.total, p.logN)
		}
	}
}

// count returns the answers counted.
func (p *progress) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// finish ends the display.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish() // and clears it
	}
}
