package layerimport

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/experiment"
	"headlab/web/link"
)

// python is Debian's interpreter, for which python3-torch installs.
const python = "/usr/bin/python3"

// torchLayer runs numerics/layerfile/testdata/torchlayer.py into a
// temporary folder (skipped without torch, as layerfile's tests are;
// failed when HEADLAB_REQUIRE_TOOLS is set).
func torchLayer(t *testing.T, args ...string) string {
	t.Helper()
	if runtime.GOOS == "js" {
		t.Skip("no processes under GOOS=js")
	}
	if err := exec.Command(python, "-c", "import torch, numpy").Run(); err != nil {
		if os.Getenv("HEADLAB_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s cannot import torch and numpy (apt-get install python3-torch python3-numpy): %v", python, err)
		}
		t.Skipf("%s cannot import torch and numpy: %v", python, err)
	}
	dir := t.TempDir()
	cmd := exec.Command(python, append([]string{"../../numerics/layerfile/testdata/torchlayer.py", "--out", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("torchlayer.py %v: %v\n%s", args, err, out)
	}
	return dir
}

// TestImportTorch imports torch layers, with and without biases, from
// both formats: the state's layer (through its link) answers as torch's
// forward pass did, and the Recovery scene's run of it resolves to the
// file's heads and biases.
func TestImportTorch(t *testing.T) {
	for _, bias := range []bool{false, true} {
		args := []string{"--heads", "2", "--width", "4", "--seed", "3"}
		if bias {
			args = append(args, "--bias")
		}
		dir := torchLayer(t, args...)
		var out struct {
			X [][][]float64
			Y []float64
		}
		b, err := os.ReadFile(filepath.Join(dir, "outputs.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"layer.npz", "layer.safetensors"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			base, _ := link.Parse("#v=1&scene=recovery&seed=9&dup=1&N=5")
			im, err := Import(base, name, data, 0)
			if err != nil {
				t.Fatalf("bias %v %s: %v", bias, name, err)
			}
			if im.Heads != 2 || im.Width != 4 || im.Biased != bias {
				t.Errorf("bias %v %s: %+v", bias, name, im)
			}
			s, notes := link.Parse(im.State.Link())
			if len(notes) > 0 || !s.Equal(im.State) || s.Scene != link.Recovery || s.Src != "attention" || s.Dup != 0 || s.N != 5 || s.Seed != 9 {
				t.Fatalf("bias %v %s: link %s gives notices %v", bias, name, im.State.Link(), notes)
			}
			model := s.Model()
			for k, x := range out.X {
				X := mat.NewDense(len(x), 4, nil)
				for i := range x {
					X.SetRow(i, x[i])
				}
				if y := model.Output(X); math.Abs(y-out.Y[k]) > 1e-12*(1+math.Abs(out.Y[k])) {
					t.Fatalf("bias %v %s: sequence %d: %v, torch %v", bias, name, k, y, out.Y[k])
				}
			}
			r := s.Recovery()
			run, err := experiment.Learn(experiment.Pacer{}, r)
			if err != nil || run.Err != nil {
				t.Fatalf("bias %v %s: the run: %v %v", bias, name, err, run.Err)
			}
			want := model.Canonical(experiment.CanonicalTol)
			if e, err := attention.RelativeError(run.Result.Layer, want.Layer); err != nil || e > 1e-8 {
				t.Errorf("bias %v %s: recovered off by %v (%v)", bias, name, e, err)
			}
			if bias && math.Abs(run.Result.Const-model.Const) > 1e-8*(1+math.Abs(model.Const)) {
				t.Errorf("bias %v %s: C %v, want %v", bias, name, run.Result.Const, model.Const)
			}
		}
	}
}

// TestImportRefused: a file the page cannot use gives an error and no
// state: malformed, truncated, without H, beyond the link's limits, or
// the Transformer's network.
func TestImportRefused(t *testing.T) {
	dir := torchLayer(t, "--heads", "2", "--width", "4", "--seed", "1")
	good, err := os.ReadFile(filepath.Join(dir, "layer.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	wide := torchLayer(t, "--heads", "2", "--width", "20", "--seed", "1")
	wideData, _ := os.ReadFile(filepath.Join(wide, "layer.npz"))
	tr := torchLayer(t, "--heads", "2", "--width", "4", "--seed", "1", "--transformer", "3")
	trData, _ := os.ReadFile(filepath.Join(tr, "layer.npz"))
	base := link.Default()
	for _, c := range []struct {
		what, name string
		data       []byte
		want       string
	}{
		{"truncated", "layer.safetensors", good[:len(good)/2], "layer.safetensors"},
		{"garbage", "x.npz", []byte("<script>alert(1)</script>"), "x.npz"},
		{"not a layer file", "notes.txt", good, "neither"},
		{"too wide for a link", "layer.npz", wideData, "d = 20"},
		{"the transformer", "layer.npz", trData, "Transformer"},
		{"a long name", strings.Repeat("n", 500) + ".npz", []byte("PK"), "…"},
	} {
		im, err := Import(base, c.name, c.data, 0)
		if err == nil {
			t.Errorf("%s: imported %+v", c.what, im)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || len(err.Error()) > 1000 {
			t.Errorf("%s: error %q, want it to say %q", c.what, err, c.want)
		}
	}
	// No H in the file: said so, and given, it imports.
	stripped := []byte(strings.Replace(string(good), `"num_heads"`, `"num_hexds"`, 1))
	if _, err := Import(base, "layer.safetensors", stripped, 0); !IsNoHeads(err) {
		t.Errorf("without num_heads: %v", err)
	}
	if im, err := Import(base, "layer.safetensors", stripped, 2); err != nil || im.Heads != 2 {
		t.Errorf("with H given: %v", err)
	}
}
