package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// replayFacts is what TestReplay reads of the page's facts.
type replayFacts struct {
	Steps     int `json:"steps"`
	Recovered []struct {
		W [][]float64 `json:"W"`
		V []float64   `json:"v"`
	} `json:"recovered"`
	Replay struct {
		Name     string `json:"name"`
		Sha256   string `json:"sha256"`
		Oracle   string `json:"oracle"`
		FromLink bool   `json:"fromLink"`
	} `json:"replay"`
	Truth []any `json:"truth"`
}

func replayFactsOf(t *testing.T, tb *tab) replayFacts {
	t.Helper()
	var f replayFacts
	if err := json.Unmarshal([]byte(eval[string](tb, `JSON.stringify(headlab.facts())`)), &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestReplay records a torch run with the recover command (its example
// oracle, H = 2, d = 4, -log), opens the log in the page through the
// Recovery scene's file input, steps to the end, and checks that the page
// recovers the heads the command wrote, bit for bit through JSON; a file
// that is not a run log gets a notice and changes nothing. The replay's
// link, opened alone in a fresh tab, replays the run to the same heads.
func TestReplay(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import torch").Run(); err != nil {
		if os.Getenv("HEADLAB_REQUIRE_TOOLS") != "" {
			t.Fatalf("python3 cannot import torch: %v", err)
		}
		t.Skipf("python3 cannot import torch: %v", err)
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	logPath, out := filepath.Join(dir, "torch-run.jsonl"), filepath.Join(dir, "out.json")
	cmd := exec.Command("go", "run", "./numerics/recovery/cmd/recover",
		"-oracle", "/usr/bin/python3 numerics/recovery/cmd/recover/torch_oracle.py --heads 2 --width 4 --seed 1",
		"-H", "2", "-d", "4", "-mode", "paper", "-log", logPath, "-o", out, "-progress", "none")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("recover: %v\n%s", err, b)
	}
	var want struct {
		Queries int `json:"queries"`
		Heads   []struct {
			W [][]float64 `json:"W"`
			V []float64   `json:"v"`
		} `json:"heads"`
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil || len(want.Heads) != 2 {
		t.Fatalf("recover -o: %v, %d heads", err, len(want.Heads))
	}
	bad := filepath.Join(dir, "notes.log")
	os.WriteFile(bad, []byte("hello, <b>world</b>\n"), 0o644)

	tb := newTab(t)
	tb.load(h.base + "#v=1&scene=recovery&H=1&d=2")
	before := eval[string](tb, `headlab.link()`)
	tb.do("open a file that is not a run log", chromedp.SetUploadFiles("#rec-runlog", []string{bad}))
	tb.waitFor("a notice on the bad file", `document.getElementById("rec-runlog-status").textContent.includes("not a run log")`)
	if got := eval[string](tb, `headlab.link()`); got != before {
		t.Errorf("a bad file changed the link: %s, was %s", got, before)
	}
	if n := eval[int](tb, `document.querySelectorAll("#notices b").length`); n != 0 {
		t.Errorf("the notice rendered the file's text as markup")
	}

	tb.do("open the run log", chromedp.SetUploadFiles("#rec-runlog", []string{logPath}))
	tb.waitFor("the replay", `(() => { const f = headlab.facts(); return f && f.replay && !f.computing })()`)
	eval[string](tb, `document.getElementById("canvas").contentWindow.headlabCanvas.set("step", "1000000")`)
	tb.waitFor("the last step", `(() => { const f = headlab.facts(); return f && f.recovered && f.step === f.steps })()`)
	got := replayFactsOf(t, tb)
	if got.Replay.Name != "torch-run.jsonl" || len(got.Replay.Sha256) != 64 || !strings.Contains(got.Replay.Oracle, "torch_oracle.py") || got.Replay.FromLink || len(got.Truth) != 0 {
		t.Errorf("replay facts %+v, truth %v", got.Replay, got.Truth)
	}
	if got.Steps != want.Queries || len(got.Recovered) != len(want.Heads) {
		t.Fatalf("the page: %d steps, %d heads; the command: %d queries, %d heads", got.Steps, len(got.Recovered), want.Queries, len(want.Heads))
	}
	worst := 0.0
	for hd := range want.Heads {
		for i, row := range want.Heads[hd].W {
			for j, x := range row {
				worst = math.Max(worst, math.Abs(got.Recovered[hd].W[i][j]-x))
			}
			worst = math.Max(worst, math.Abs(got.Recovered[hd].V[i]-want.Heads[hd].V[i]))
		}
	}
	if worst != 0 {
		t.Errorf("the page's heads differ from the command's by up to %g", worst)
	}
	t.Logf("replayed %d queries; heads equal to the command's bit for bit (through JSON)", got.Steps)
	if shots := os.Getenv("HEADLAB_SHOTS"); shots != "" {
		for _, theme := range []string{"light", "dark"} {
			for _, view := range []string{"steps", "result"} {
				eval[string](tb, `document.getElementById("canvas").contentWindow.headlabCanvas.set("theme", "`+theme+`")`)
				eval[string](tb, `document.getElementById("canvas").contentWindow.headlabCanvas.set("view", "`+view+`")`)
				tb.sleep(1500e6)
				res, err := chromedp.Call(tb.ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(shots, "replay-"+view+"-"+theme+".png"), res.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// A figure of the replay is the replay's, its log named in the file.
	eval[string](tb, `document.getElementById("canvas").contentWindow.headlabCanvas.set("view", "steps")`)
	fig := figureIn(tb, "svg", "{}")
	logData, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(logData)
	if !strings.Contains(fig.Text, "torch-run.jsonl (SHA-256 "+hex.EncodeToString(sum[:])+")") {
		t.Errorf("the replay's SVG does not name its run log and hash: %.400s", fig.Text)
	}
	runLink := eval[string](tb, `headlab.link()`)
	if !strings.Contains(runLink, "scene=recovery") || !strings.Contains(runLink, "&run=") {
		t.Errorf("the replay's link carries no run: %.300s", runLink)
	}
	tb.noProblems("the replay")

	// The link alone, in a fresh tab, replays the run to the same heads.
	lt := newTab(t)
	lt.load(h.base + runLink[strings.Index(runLink, "#"):])
	lt.waitFor("the replay from the link", `(() => { const f = headlab.facts(); return f && f.replay && f.replay.fromLink && !f.computing })()`)
	eval[string](lt, `document.getElementById("canvas").contentWindow.headlabCanvas.set("step", "1000000")`)
	lt.waitFor("the last step", `(() => { const f = headlab.facts(); return f && f.recovered && f.step === f.steps })()`)
	fromLink := replayFactsOf(t, lt)
	b1, _ := json.Marshal(fromLink.Recovered)
	b2, _ := json.Marshal(got.Recovered)
	if fromLink.Steps != got.Steps || !bytes.Equal(b1, b2) || !fromLink.Replay.FromLink || fromLink.Replay.Sha256 != got.Replay.Sha256 {
		t.Errorf("the link's replay: %d steps, heads %s; the file's: %d steps, heads %s", fromLink.Steps, b1, got.Steps, b2)
	}
	if !strings.Contains(figureIn(lt, "svg", "{}").Text, "torch-run.jsonl (SHA-256 "+hex.EncodeToString(sum[:])+")") {
		t.Errorf("the link replay's SVG does not name its run log and hash")
	}
	lt.noProblems("the replay from its link")
}
