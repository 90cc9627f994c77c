package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"headlab/numerics/layerfile"
	"headlab/web/link"
)

// TestBiases opens layers with biases (bias=1): the Attention scene's
// output includes C and its table shows c_h and C; the Recovery scene's
// steps show F(0) and the column on −z_1, and its result the recovered
// biases against the true ones. Screenshots in light and dark (with
// HEADLAB_SHOTS).
func TestBiases(t *testing.T) {
	tb := newTab(t)
	const frag = "#v=1&scene=attention&H=2&d=2&seed=4&bias=1"
	s, _ := link.Parse(frag)
	want := s.Model().Output(s.Sequence())
	for _, theme := range []string{"light", "dark"} {
		tb.load(h.base + frag + "&theme=" + theme)
		tb.waitSettled("attention with biases")
		var f struct {
			Output    float64     `json:"output"`
			Const     float64     `json:"const"`
			QueryBias [][]float64 `json:"queryBias"`
		}
		if err := json.Unmarshal(eval[json.RawMessage](tb, "headlab.facts()"), &f); err != nil {
			t.Fatal(err)
		}
		if math.Abs(f.Output-want) > 1e-12 || f.Const != s.Const[0] || len(f.QueryBias) != 2 || f.QueryBias[1][1] != s.QBias[3] {
			t.Errorf("facts output %v (want %v), C %v, c %v", f.Output, want, f.Const, f.QueryBias)
		}
		n := eval[int](tb, `document.querySelectorAll('#heads [data-list="c"]').length + document.querySelectorAll('#heads [data-list="C"]').length`)
		if n != 5 {
			t.Errorf("the heads table has %d bias fields, want 2·2 + 1", n)
		}
		eval[bool](tb, `(document.getElementById("heads-details").open = true)`)
		tb.frames(2)
		tb.shoot("biases-attention-" + theme)
		eval[bool](tb, `(document.getElementById("heads-details").scrollIntoView(), true)`)
		tb.frames(2)
		tb.shoot("biases-attention-table-" + theme)
		eval[bool](tb, `(scrollTo(0, 0), true)`)

		rec := "#v=1&scene=recovery&H=2&d=2&seed=4&bias=1&theme=" + theme
		f0 := recoveryOpen(tb, rec+"&step=1")
		names := map[string]bool{}
		var shotBias bool
		for step := 1; step <= f0.Steps; step++ {
			recoveryOpen(tb, fmt.Sprintf("%s&step=%d", rec, step))
			var g struct {
				RF struct {
					Name string `json:"name"`
					Kind string `json:"kind"`
				} `json:"rf"`
			}
			json.Unmarshal(eval[json.RawMessage](tb, "headlab.facts()"), &g)
			names[g.RF.Name] = true
			if g.RF.Kind == "constant" {
				tb.frames(2)
				tb.shoot("biases-recovery-constant-" + theme)
				if d := eval[string](tb, "document.getElementById('canvas-alt').textContent"); !strings.Contains(d, "zero token alone") {
					t.Errorf("F(0)'s step is described as %q", d)
				}
			}
			if strings.Contains(g.RF.Name, "−z_1") && !shotBias {
				shotBias = true
				tb.frames(2)
				tb.shoot("biases-recovery-bias-column-" + theme)
			}
		}
		if !names["F(0)"] || !names["RF(−z_1, u_1)"] {
			t.Errorf("the steps show %v, without F(0) or RF(−z_1, u_1)", names)
		}
		recoveryOpen(tb, rec+"&view=result")
		var r struct {
			Biases struct {
				C              float64     `json:"C"`
				RecoveredConst *float64    `json:"recoveredConst"`
				Error          *float64    `json:"error"`
				RecoveredC     [][]float64 `json:"recoveredC"`
			} `json:"biases"`
		}
		json.Unmarshal(eval[json.RawMessage](tb, "headlab.facts()"), &r)
		b := r.Biases
		if b.RecoveredConst == nil || math.Abs(*b.RecoveredConst-s.Const[0]) > 1e-8 || b.Error == nil || *b.Error > 1e-7 || len(b.RecoveredC) != 2 {
			t.Errorf("result view biases %+v", b)
		}
		tb.frames(2)
		tb.shoot("biases-recovery-result-" + theme)
	}
	tb.noProblems("biases")
}

// torchFiles writes a torch layer with biases (2 heads, d = 4) as .npz
// and .safetensors with numerics/layerfile/testdata/torchlayer.py and
// Debian's python3-torch (skipped without it, failed when
// HEADLAB_REQUIRE_TOOLS is set, as layerfile's tests are).
func torchFiles(t *testing.T) string {
	t.Helper()
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import torch, numpy").Run(); err != nil {
		if os.Getenv("HEADLAB_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s cannot import torch and numpy (apt-get install python3-torch python3-numpy): %v", python, err)
		}
		t.Skipf("%s cannot import torch and numpy: %v", python, err)
	}
	dir := t.TempDir()
	cmd := exec.Command(python, "../../numerics/layerfile/testdata/torchlayer.py", "--out", dir, "--heads", "2", "--width", "4", "--seed", "3", "--bias")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("torchlayer.py: %v\n%s", err, out)
	}
	return dir
}

// TestImportLayer opens a torch file through the Attention scene's file
// input: the scene's layer is the file's (W, v, c, C in the state, its
// output on the tokens), the link carries it, the Recovery scene recovers
// it to the file's heads and biases; a hostile file gives a notice and
// changes nothing.
func TestImportLayer(t *testing.T) {
	dir := torchFiles(t)
	tb := newTab(t)
	tb.load(h.base + "#v=1&scene=attention&seed=2&theme=light")
	for _, name := range []string{"layer.safetensors", "layer.npz"} {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := layerfile.Read(bytes.NewReader(data), name, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := m.Full()
		tb.do("opening "+name, chromedp.SetUploadFiles(chromedp.CSS("#layer-file"), []string{path}))
		tb.waitFor(name+" opened", `document.getElementById("layer-status").textContent.startsWith("Opened")`)
		tb.waitSettled(name)
		var st struct {
			H, D   int
			W, Val []float64
			QB     []float64 `json:"qb"`
			Const  float64   `json:"k"`
			Bias   bool      `json:"bias"`
			Src    string    `json:"src"`
		}
		raw := eval[json.RawMessage](tb, `(() => { const s = headlab.state(); return {H: s.H, D: s.d, W: s.W, Val: s.val, qb: s.c, k: s.C, bias: s.bias, src: s.src}; })()`)
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		if st.H != 2 || st.D != 4 || !st.Bias || st.Src != "attention" || st.Const != want.Const {
			t.Fatalf("%s: state %s", name, raw)
		}
		for hd := range want.Layer {
			for i := 0; i < 4; i++ {
				for j := 0; j < 4; j++ {
					if st.W[hd*16+i*4+j] != want.Layer[hd].W.At(i, j) {
						t.Fatalf("%s: W of head %d differs from the file's", name, hd+1)
					}
				}
				if st.Val[hd*4+i] != want.Layer[hd].V.AtVec(i) || st.QB[hd*4+i] != want.QueryBias[hd][i] {
					t.Fatalf("%s: v or c of head %d differs from the file's", name, hd+1)
				}
			}
		}
		lnk := eval[string](tb, "headlab.link()")
		s, notes := link.Parse(lnk)
		if len(notes) > 0 || eval[string](tb, "location.hash") != lnk {
			t.Fatalf("%s: link %s: notices %v", name, shorten(lnk, 200), notes)
		}
		if out := eval[float64](tb, "headlab.facts().output"); math.Abs(out-want.Output(s.Sequence())) > 1e-12*(1+math.Abs(out)) {
			t.Errorf("%s: the scene's output %v, the file's layer %v", name, out, want.Output(s.Sequence()))
		}
		tb.shoot("import-attention-" + strings.TrimPrefix(filepath.Ext(name), "."))

		s.Scene, s.View = link.Recovery, link.Result
		f := recoveryOpen(tb, s.Link())
		if f.Failed != nil || f.Error == nil || *f.Error > 1e-8 {
			t.Fatalf("%s: the recovery: failed %v error %v", name, f.Failed, f.Error)
		}
		var b struct {
			Biases struct {
				Error          *float64 `json:"error"`
				RecoveredConst *float64 `json:"recoveredConst"`
			} `json:"biases"`
		}
		json.Unmarshal(eval[json.RawMessage](tb, "headlab.facts()"), &b)
		if b.Biases.Error == nil || *b.Biases.Error > 1e-8 || math.Abs(*b.Biases.RecoveredConst-want.Const) > 1e-8 {
			t.Errorf("%s: the biases recovered: %+v", name, b.Biases)
		}
		tb.frames(2)
		tb.shoot("import-recovery-" + strings.TrimPrefix(filepath.Ext(name), "."))
		tb.load(h.base + "#v=1&scene=attention&seed=2&theme=light")
	}

	// A hostile file: a notice, the state unchanged, nothing rendered as markup.
	bad := filepath.Join(t.TempDir(), "<img src=x onerror=alert(1)>.npz")
	if err := os.WriteFile(bad, []byte("PK\x03\x04<b>not a zip</b>"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := eval[string](tb, "headlab.link()")
	tb.do("opening a hostile file", chromedp.SetUploadFiles(chromedp.CSS("#layer-file"), []string{bad}))
	tb.waitFor("the hostile file's notice", `document.getElementById("layer-status").textContent.includes("nothing changed")`)
	if after := eval[string](tb, "headlab.link()"); after != before {
		t.Errorf("a hostile file changed the link: %s", after)
	}
	if n := eval[int](tb, `document.querySelectorAll("#notice-list img, #layer-status img").length`); n != 0 {
		t.Errorf("a file's name was rendered as markup")
	}
	if !strings.Contains(eval[string](tb, `document.getElementById("notice-list").textContent`), "nothing changed") {
		t.Errorf("no notice for the hostile file")
	}
	tb.shoot("import-hostile")
	tb.noProblems("importing layers")
}
