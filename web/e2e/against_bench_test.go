package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// BenchmarkReadyAgainst measures the landing's time to ready (a link-less
// visit: the chooser, with the attention scene loaded behind it) against
// other builds of the site, named by HEADLAB_BASELINE_SITE (built site
// folders, such as an older commit's build/site, separated as PATH is),
// and against the minimal ebiten page (wasm/minimal), all loaded in turn
// in each round, so that a change in the machine's load falls on all of
// them alike. Each page gets a fresh browser context: one first visit
// (empty cache) and three repeat visits (HTTP cache warm). It reports the
// medians (landing-ms, base<i>-ms, minimal-ms, and the first visits'
// *-first-ms) and the landing's time over each other page's, round by
// round, the median of those ratios (vs-base<i>, vs-minimal, and the
// first visits' first-vs-*: a ratio within a round holds when the
// machine's load drifts between rounds, as it does here), and logs
// the phases of the repeat visits (as BenchmarkReady does). Without
// HEADLAB_BASELINE_SITE it is skipped.
func BenchmarkReadyAgainst(b *testing.B) {
	dirs := filepath.SplitList(os.Getenv("HEADLAB_BASELINE_SITE"))
	if len(dirs) == 0 {
		b.Skip("HEADLAB_BASELINE_SITE names no site to compare with")
	}
	type series struct {
		name, url, ready string
		first, warm      []float64
		rounds           []float64 // each round's median of its repeat visits
		ph               []phases
	}
	pages := []*series{{name: "landing", url: h.base, ready: headlabReady}}
	for i, dir := range dirs {
		name := fmt.Sprintf("base%d", i)
		b.Logf("%s: %s", name, dir)
		pages = append(pages, &series{name: name, url: serveSite(b, dir, ""), ready: headlabReady})
	}
	pages = append(pages, &series{name: "minimal", url: serveBaseline(b, minimalPkg, false).url, ready: minimalReady})
	const repeats = 3
	for b.Loop() {
		for _, s := range pages {
			tb := newTab(b, chromedp.WithNewBrowserContext())
			tb.hook()
			s.first = append(s.first, timedLoad(tb, s.url, s.ready).Ready)
			var warm []float64
			for range repeats {
				p := timedLoad(tb, s.url, s.ready)
				warm = append(warm, p.Ready)
				s.ph = append(s.ph, p)
			}
			s.warm = append(s.warm, warm...)
			s.rounds = append(s.rounds, median(warm))
			tb.close()
		}
	}
	land := pages[0]
	for _, s := range pages {
		b.ReportMetric(median(s.warm), s.name+"-ms")
		b.ReportMetric(median(s.first), s.name+"-first-ms")
		if s != land {
			b.ReportMetric(pairedRatio(land.rounds, s.rounds), "vs-"+s.name)
			b.ReportMetric(pairedRatio(land.first, s.first), "first-vs-"+s.name)
		}
		c, i, m := split(s.ph)
		b.Logf("%-8s first visits %v ms; repeat visits %v ms\n"+
			"  repeat visits' medians, ms from navigation: wasm compile starts %4.0f, instantiated %4.0f, Go main %4.0f, ready %4.0f",
			s.name, round(s.first), round(s.warm), median(c), median(i), median(m), median(s.warm))
	}
}

// pairedRatio returns the median of a[i]/b[i].
func pairedRatio(a, b []float64) float64 {
	var r []float64
	for i := range min(len(a), len(b)) {
		r = append(r, a[i]/b[i])
	}
	return median(r)
}
