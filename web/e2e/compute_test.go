package e2e

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"headlab/numerics/experiment"
	"headlab/wasm/scene"
	"headlab/web/link"
	"headlab/web/server"
)

// computeTimeout bounds a wait for the compute worker: generous, because a
// busy two-core machine can make a run of a second take a minute.
const computeTimeout = 3 * time.Minute

// computeJS reads the compute worker's client in the canvas's frame
// (static/compute.js).
const computeJS = `document.getElementById("canvas").contentWindow.headlabCompute`

// canvasBuildJS names the build of the canvas the page booted: "full" or
// "lean" (static/canvas.js).
const canvasBuildJS = `document.getElementById("canvas").contentWindow.headlabCanvasBuild`

// computeEntry is one job in the client's log.
type computeEntry struct {
	ID       int     `json:"id"`
	Key      string  `json:"key"`
	Kind     string  `json:"kind"`
	Op       string  `json:"op"`
	Fraction float64 `json:"fraction"`
	Ms       float64 `json:"ms"`
	Error    string  `json:"error"`
}

func computeLog(tb *tab) []computeEntry {
	tb.tb.Helper()
	return eval[[]computeEntry](tb, computeJS+".log")
}

// startJob starts a job through the worker's client as the canvas does
// (experiment.EncodeJob's bytes in a Uint8Array) and returns its id.
func startJob(tb *tab, key string, j experiment.Job) int {
	tb.tb.Helper()
	b, err := experiment.EncodeJob(j)
	if err != nil {
		tb.tb.Fatal(err)
	}
	bytes := make([]string, len(b))
	for i, c := range b {
		bytes[i] = strconv.Itoa(int(c))
	}
	return eval[int](tb, fmt.Sprintf(`%s.start(%s, new Uint8Array([%s]), %s)`, computeJS, jsString(key), strings.Join(bytes, ","), jsString(string(j.Kind))))
}

// pollFor waits until the predicate holds in the page, up to computeTimeout.
func (t *tab) pollFor(what, predicate string) {
	t.tb.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, computeTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool]("!!("+predicate+")",
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(computeTimeout))); err != nil {
		t.tb.Fatalf("waiting for %s (%s): %v\npage: %s", what, predicate, err, t.describe())
	}
}

// nativeFacts is the Recovery scene of a link computed here, natively, by a
// lab that runs its jobs at once: what the page must show once its worker
// has answered. The measured time is left out.
func nativeFacts(tb *tab, frag string) map[string]any {
	tb.tb.Helper()
	s, notes := link.Parse(frag)
	if len(notes) > 0 {
		tb.tb.Fatalf("%s: %v", frag, notes)
	}
	r, err := scene.NewRecovery(s, scene.NewLocalLab(experiment.Run))
	if err != nil {
		tb.tb.Fatal(err)
	}
	r.Compute()
	b, err := json.Marshal(r.Facts())
	if err != nil {
		tb.tb.Fatal(err)
	}
	return factsMap(tb, string(b))
}

// canvasFacts is the canvas's facts as it writes them (its JSON, not
// re-encoded by the page), the measured time left out.
func canvasFacts(tb *tab) map[string]any {
	tb.tb.Helper()
	return factsMap(tb, eval[string](tb, `document.getElementById("canvas").contentWindow.headlabCanvas.facts()`))
}

func factsMap(tb *tab, s string) map[string]any {
	tb.tb.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		tb.tb.Fatalf("facts %s: %v", shorten(s, 300), err)
	}
	delete(m, "learnMs")
	return m
}

// sameFacts reports the keys whose values differ between the page and the
// native computation.
func sameFacts(page, native map[string]any) []string {
	var diff []string
	for k, v := range native {
		if !reflect.DeepEqual(page[k], v) {
			diff = append(diff, fmt.Sprintf("%s: page %s, native %s", k, shorten(fmt.Sprint(page[k]), 200), shorten(fmt.Sprint(v), 200)))
		}
	}
	for k := range page {
		if _, ok := native[k]; !ok {
			diff = append(diff, k+": only in the page")
		}
	}
	return diff
}

// TestComputeCancel starts a recovery run of seconds, changes the set-up
// while it runs, and checks that the first job is cancelled in the worker,
// that the second is the one shown, and that what the page shows equals the
// same scene computed here natively, bit for bit (every fact but the
// measured time).
func TestComputeCancel(t *testing.T) {
	tb := newTab(t)
	tb.load(h.base + "#v=1&scene=recovery&H=1&d=1")
	const first = "#v=1&scene=recovery&H=4&d=8&seed=7001"  // about a second natively
	const second = "#v=1&scene=recovery&H=3&d=4&seed=7002" // a short run
	t.Logf("first %s, second %s", first, second)
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(first)))
	// The first job is under way in the worker once its progress arrives.
	tb.pollFor("the first run to report progress", computeJS+`.log.some((e) => e.key.includes("seed=7001") && e.op === "running" && e.fraction > 0)`)
	if f := recoveryFactsOf(tb); !f.Computing {
		t.Fatal("the first run finished before the set-up changed: pick a longer one")
	}
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(second)))
	tb.pollFor("the second run to be shown", `!headlab.facts().computing && location.hash === headlab.link() && headlab.link().includes("seed=7002")`)
	tb.pollFor("the first job to end", computeJS+`.log.every((e) => e.op !== "running")`)
	var a, b *computeEntry
	log := computeLog(tb)
	for i := range log {
		switch {
		case strings.Contains(log[i].Key, "seed=7001"):
			a = &log[i]
		case strings.Contains(log[i].Key, "seed=7002"):
			b = &log[i]
		}
	}
	if a == nil || b == nil {
		t.Fatalf("jobs in the log: %+v", log)
	}
	t.Logf("jobs: %+v", log)
	if a.Op != "cancelled" {
		t.Errorf("the first job ended %q, want cancelled", a.Op)
	}
	if b.Op != "done" || b.Kind != string(experiment.KindRecovery) {
		t.Errorf("the second job: %+v", *b)
	}
	if d := sameFacts(canvasFacts(tb), nativeFacts(tb, second)); len(d) > 0 {
		t.Errorf("the page's facts differ from the native run:\n  %s", strings.Join(d, "\n  "))
	}
	tb.noProblems("a recovery run cancelled by a new set-up")
}

// TestComputePace paces the worker (as a drag in the canvas does: static/
// compute.js's pace) before a recovery run starts and toggles it while the
// run is under way: the run must finish in the same worker, and what the
// page shows must equal the native run's, bit for bit. (The worker read a
// job id from every message, and pace has none: each drag during a run
// killed the program.)
func TestComputePace(t *testing.T) {
	tb := newTab(t)
	tb.load(h.base + "#v=1&scene=recovery&H=1&d=1")
	const link = "#v=1&scene=recovery&H=4&d=8&seed=7001" // about a second natively
	eval[bool](tb, `(`+computeJS+`.pace(true), true)`)
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(link)))
	tb.pollFor("the run to report progress", computeJS+`.log.some((e) => e.key.includes("seed=7001") && e.op === "running" && e.fraction > 0)`)
	eval[bool](tb, `(`+computeJS+`.pace(false), `+computeJS+`.pace(true), `+computeJS+`.pace(false), true)`)
	tb.pollFor("the run to end", computeJS+`.log.some((e) => e.key.includes("seed=7001") && e.op !== "running")`)
	log := computeLog(tb)
	t.Logf("jobs: %+v", log)
	for _, e := range log {
		if strings.Contains(e.Key, "seed=7001") && e.Op != "done" {
			t.Fatalf("the paced run ended %q (%s), want done", e.Op, e.Error)
		}
	}
	if n := eval[int](tb, computeJS+`.restarts`); n != 0 {
		t.Errorf("the worker was restarted %d times", n)
	}
	tb.pollFor("the run to be shown", `!headlab.facts().computing`)
	if d := sameFacts(canvasFacts(tb), nativeFacts(tb, link)); len(d) > 0 {
		t.Errorf("the page's facts differ from the native run:\n  %s", strings.Join(d, "\n  "))
	}
	tb.noProblems("a paced recovery run")
}

// TestComputeFault kills the compute worker's program with the test hook
// window.headlabComputeFault = "panic" (static/compute.js): the page shows
// a notice, the scene says the run could not be made, the page stays
// usable, and the next run, in a fresh worker, works and is the native
// run's, bit for bit. The recovery link boots the full canvas, and both
// workers run its compiled module.
func TestComputeFault(t *testing.T) {
	tb := newTab(t)
	tb.load(h.base + "#v=1&scene=recovery&H=1&d=1")
	const broken = "#v=1&scene=recovery&H=2&d=3&seed=8001"
	const next = "#v=1&scene=recovery&H=2&d=3&seed=8002&view=result"
	eval[bool](tb, `(window.headlabComputeFault = "panic", true)`)
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(broken)))
	// The notice quotes the program's panic.
	tb.pollFor("the notice of the stopped worker", `headlab.errors.some((e) => e.includes("compute worker stopped") && e.includes("the test hook asked this job to panic")) && !document.getElementById("notices").hidden`)
	tb.pollFor("the scene to say the run failed", `!headlab.facts().computing && headlab.facts().failed`)
	if f := recoveryFactsOf(tb); f.Failed == nil || !strings.Contains(f.Failed.Message, "could not be run") {
		t.Errorf("the failed run says %+v", f.Failed)
	}
	// The page stays usable: another scene draws.
	eval[json.RawMessage](tb, `headlab.open("#v=1&scene=attention&H=2&d=2&seed=3")`)
	tb.pollFor("the attention scene", `headlab.facts().scene === "attention" && headlab.ready`)
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(next)))
	tb.pollFor("the next run", `!headlab.facts().computing && headlab.link().includes("seed=8002")`)
	if f := recoveryFactsOf(tb); f.Failed != nil || f.Error == nil || *f.Error > 1e-6 {
		t.Errorf("the run after the failure: failed %+v, error %v", f.Failed, f.Error)
	}
	if n := eval[int](tb, computeJS+".restarts"); n != 1 {
		t.Errorf("%d workers started after the failure, want 1", n)
	}
	// Both workers ran the canvas's own compiled module, handed over:
	// neither fetched nor compiled a program of its own.
	if got := eval[string](tb, canvasBuildJS); got != "full" {
		t.Errorf("the recovery link booted the %q canvas, want full", got)
	}
	if n := eval[int](tb, computeJS+".fetched"); n != 0 {
		t.Errorf("%d workers fetched the wasm themselves, want 0 (the canvas hands over its module)", n)
	}
	t.Logf("the workers' start-up, ms from creation to ready: %v", eval[[]float64](tb, computeJS+".startMs"))
	if d := sameFacts(canvasFacts(tb), nativeFacts(tb, next)); len(d) > 0 {
		t.Errorf("the page's facts differ from the native run:\n  %s", strings.Join(d, "\n  "))
	}
	// The worker's own dying words may reach the console; they are expected.
	t.Logf("console: %v", tb.takeProblems())
}

// TestCanvasBuilds checks the page's choice between the canvas's two builds
// (wasm/README.md, "Two builds of the canvas"): the chooser and the
// Attention scene boot the build without the compute loop, a scene that
// computes at once the full one. A page that boots the lean build and then
// computes has its first worker fetch wasm/computeworker, and every worker
// after that one run its compiled module: a killed worker's successor
// fetches nothing, and the run it makes is the native run's, bit for bit.
func TestCanvasBuilds(t *testing.T) {
	tb := newTab(t)
	for _, v := range []struct{ link, want string }{
		{"", "lean"},
		{"#v=1&scene=attention&H=2&d=2", "lean"},
		{"#v=1&scene=atoms", "full"},
		{"#v=1&scene=recovery&H=1&d=1", "full"},
		{"#v=1&scene=transformer", "full"},
		{"#v=1&scene=nosuchscene", "lean"}, // opens Attention
		{"#v=1&run=AAAA", "full"},          // a run opens Recovery's replay (this one is refused)
	} {
		tb.load(h.base + v.link)
		if got := eval[string](tb, canvasBuildJS); got != v.want {
			t.Errorf("%q booted the %q canvas, want %q", v.link, got, v.want)
		}
	}
	// The chooser, then a recovery run whose worker is killed, then the next.
	tb.load(h.base)
	const broken = "#v=1&scene=recovery&H=2&d=3&seed=8101"
	const next = "#v=1&scene=recovery&H=2&d=3&seed=8102&view=result"
	eval[bool](tb, `(window.headlabComputeFault = "panic", true)`)
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(broken)))
	tb.pollFor("the notice of the stopped worker", `headlab.errors.some((e) => e.includes("compute worker stopped")) && !headlab.facts().computing && headlab.facts().failed`)
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(next)))
	tb.pollFor("the next run", `!headlab.facts().computing && headlab.link().includes("seed=8102")`)
	if f := recoveryFactsOf(tb); f.Failed != nil || f.Error == nil || *f.Error > 1e-6 {
		t.Errorf("the run after the failure: failed %+v, error %v", f.Failed, f.Error)
	}
	if got := eval[string](tb, canvasBuildJS); got != "lean" {
		t.Errorf("the chooser booted the %q canvas, want lean", got)
	}
	if n := eval[int](tb, computeJS+".restarts"); n != 1 {
		t.Errorf("%d workers started after the failure, want 1", n)
	}
	if n := eval[int](tb, computeJS+".fetched"); n != 1 {
		t.Errorf("%d workers fetched the compute program themselves, want 1 (the first; it posts its module back)", n)
	}
	if got := eval[[]string](tb, computeJS+".programs"); !slices.Equal(got, []string{"computeworker"}) {
		t.Errorf("the workers that fetched ran %q, want [computeworker]", got)
	}
	if d := sameFacts(canvasFacts(tb), nativeFacts(tb, next)); len(d) > 0 {
		t.Errorf("the page's facts differ from the native run:\n  %s", strings.Join(d, "\n  "))
	}
	t.Logf("console: %v", tb.takeProblems())
}

// TestCanvasFallback serves the site without what the offline copy leaves
// out (web/cmd/site -online): first without the lean canvas, and the
// chooser boots the full one; then without the compute worker's own
// program, and a page that booted the lean canvas computes all the same,
// its worker running the full canvas's wasm, with the native run's numbers
// bit for bit.
func TestCanvasFallback(t *testing.T) {
	tb := newTab(t)
	tb.load(serveSite(t, h.site, "/canvas-lean."))
	if got := eval[string](tb, canvasBuildJS); got != "full" {
		t.Errorf("the chooser without the lean canvas booted the %q canvas, want full", got)
	}
	tb.load(serveSite(t, h.site, "/computeworker.") + "#v=1&scene=attention&H=2&d=2")
	if got := eval[string](tb, canvasBuildJS); got != "lean" {
		t.Fatalf("the attention link booted the %q canvas, want lean", got)
	}
	const next = "#v=1&scene=recovery&H=2&d=3&seed=8201&view=result"
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(next)))
	tb.pollFor("the run", `!headlab.facts().computing && headlab.link().includes("seed=8201")`)
	if f := recoveryFactsOf(tb); f.Failed != nil || f.Error == nil || *f.Error > 1e-6 {
		t.Errorf("the run without the compute program: failed %+v, error %v", f.Failed, f.Error)
	}
	if got := eval[[]string](tb, computeJS+".programs"); !slices.Equal(got, []string{"canvas"}) {
		t.Errorf("the workers ran %q, want [canvas] (the compute program is missing)", got)
	}
	if d := sameFacts(canvasFacts(tb), nativeFacts(tb, next)); len(d) > 0 {
		t.Errorf("the page's facts differ from the native run:\n  %s", strings.Join(d, "\n  "))
	}
	t.Logf("console: %v", tb.takeProblems())
}

// serveSite serves the site folder dir as the suite's server does (with
// the stand-in service worker), answering 404 for every path that starts
// with hide (nothing, if hide is empty), and returns its address.
func serveSite(tb testing.TB, dir, hide string) string {
	tb.Helper()
	handler, err := server.New(dir, server.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(withoutServiceWorker(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hide != "" && strings.HasPrefix(r.URL.Path, hide) {
			http.NotFound(w, r)
			return
		}
		handler.ServeHTTP(w, r)
	})))
	tb.Cleanup(srv.Close)
	return srv.URL + "/"
}

// csvTable returns the rows (header first) of the table named name among a
// figure's tables (headlab.figures.csv(): file name → CSV text, one tidy
// table each).
func csvTable(t testing.TB, tables map[string]string, name string) [][]string {
	t.Helper()
	text, ok := tables[name+".csv"]
	if !ok {
		t.Fatalf("no table %s.csv among the figure's tables %v", name, slices.Sorted(maps.Keys(tables)))
	}
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("table %s does not parse (%v):\n%s", name, err, shorten(text, 2000))
	}
	return rows
}

// cell writes a fact as the CSV writes a number (strconv 'g', −1; empty
// for none).
func cell(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

// TestSweepFigureIsTheCanvas runs a noise sweep in the page, then exports
// its figure's data: the CSV holds, number for number, the ε, the seeds'
// errors, the medians and the unresolved counts the canvas shows, and the
// scan over H. The same for the general-fusion count of the atoms scene
// against the explosion figure's measured counts.
func TestSweepFigureIsTheCanvas(t *testing.T) {
	tb := newTab(t)
	tb.load(h.base + "#v=1&scene=recovery&H=1&d=1")
	const frag = "#v=1&scene=recovery&H=2&d=2&seed=9001&view=sweep"
	eval[json.RawMessage](tb, fmt.Sprintf("headlab.open(%s)", jsString(frag)))
	tb.pollFor("the sweep", `headlab.facts().sweep && headlab.facts().sweep.done && location.hash === headlab.link()`)
	var f struct {
		Sweep struct {
			Eps         []float64    `json:"eps"`
			Median      []*float64   `json:"median"`
			Errors      [][]*float64 `json:"errors"`
			TriedH      []int        `json:"triedH"`
			HeadsMedian []*float64   `json:"headsMedian"`
			HeadsErrors [][]*float64 `json:"headsErrors"`
		} `json:"sweep"`
	}
	if err := json.Unmarshal(eval[json.RawMessage](tb, "headlab.facts()"), &f); err != nil {
		t.Fatal(err)
	}
	tables := eval[map[string]string](tb, "headlab.figures.csv()")
	// The tidy tables: the medians with the runs each is the median of
	// (resolved, all), and every run's error, number for number.
	check := func(table string, xs []string, med []*float64, errs [][]*float64) {
		rows := csvTable(t, tables, table+"-median")
		runs := csvTable(t, tables, table+"-runs")
		if len(rows) != len(xs)+1 {
			t.Fatalf("%s: %d rows for %d points:\n%v", table, len(rows)-1, len(xs), rows)
		}
		var wantRuns [][]string
		for i, x := range xs {
			resolved := 0
			for k, e := range errs[i] {
				wantRuns = append(wantRuns, []string{x, "paper", strconv.Itoa(k + 1), cell(e)})
				if e != nil {
					resolved++
				}
			}
			want := []string{x, "paper", cell(med[i]), strconv.Itoa(resolved), strconv.Itoa(len(errs[i]))}
			if !reflect.DeepEqual(rows[i+1], want) {
				t.Errorf("%s row %d: CSV %v, canvas %v", table, i+1, rows[i+1], want)
			}
		}
		if !reflect.DeepEqual(runs[1:], wantRuns) {
			t.Errorf("%s: the runs' table differs from the canvas's runs:\nCSV    %v\ncanvas %v", table, runs[1:], wantRuns)
		}
	}
	var eps, hs []string
	for _, e := range f.Sweep.Eps {
		eps = append(eps, strconv.FormatFloat(e, 'g', -1, 64))
	}
	for _, H := range f.Sweep.TriedH {
		hs = append(hs, strconv.Itoa(H))
	}
	if len(eps) != len(experiment.SweepNoise) || len(hs) == 0 {
		t.Fatalf("the canvas's sweep: %+v", f.Sweep)
	}
	check("recovery-noise", eps, f.Sweep.Median, f.Sweep.Errors)
	check("recovery-heads", hs, f.Sweep.HeadsMedian, f.Sweep.HeadsErrors)

	// General fusion: the scene's merged count is the figure's measured one.
	eval[json.RawMessage](tb, `headlab.open("#v=1&scene=atoms&d=3&H=3&m=3&keys=random&seed=9002")`)
	tb.pollFor("the atoms scene", `headlab.facts().scene === "atoms" && location.hash === headlab.link()`)
	merged := eval[int](tb, "headlab.facts().general.merged")
	rows := csvTable(t, eval[map[string]string](tb, "headlab.figures.csv()"), "atom-explosion")
	col := -1
	for i, c := range rows[0] {
		if c == "measured atoms, random keys (count)" {
			col = i
		}
	}
	if col < 0 || len(rows) < 4 || rows[3][col] != strconv.Itoa(merged) {
		t.Errorf("general fusion of 3 heads: the scene merges to %d atoms, the figure's row H = 3 says %v (columns %v)", merged, rows[min(3, len(rows)-1)], rows[0])
	}
}
