package layerfile

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
	"headlab/numerics/transformer"
)

// python is Debian's interpreter, for which python3-torch installs.
const python = "/usr/bin/python3"

// needTorch skips the test when Debian's python3 cannot import torch and
// numpy, and fails it instead when HEADLAB_REQUIRE_TOOLS is set.
func needTorch(t *testing.T) {
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
}

// torchLayer runs testdata/torchlayer.py and returns its folder.
func torchLayer(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(python, append([]string{"testdata/torchlayer.py", "--out", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("torchlayer.py %v: %v\n%s", args, err, out)
	}
	return dir
}

// outputs is testdata/torchlayer.py's record of torch's forward pass.
type outputs struct {
	X [][][]float64
	Y []float64
}

func readOutputs(t *testing.T, dir string) outputs {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "outputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var o outputs
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

func readFile(t *testing.T, path string, heads int) (Model, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Read(f, path, heads)
}

func rows(x [][]float64) *mat.Dense {
	m := mat.NewDense(len(x), len(x[0]), nil)
	for i, r := range x {
		m.SetRow(i, r)
	}
	return m
}

// TestTorchForward: a torch layer saved as .npz and as .safetensors gives
// torch's forward pass on random sequences to within 1e-14 relative, with
// and without biases, initialised and trained.
func TestTorchForward(t *testing.T) {
	needTorch(t)
	for _, args := range [][]string{
		{"--heads", "2", "--width", "4", "--seed", "1"},
		{"--heads", "4", "--width", "8", "--seed", "2", "--bias"},
		{"--heads", "3", "--width", "6", "--seed", "3", "--bias", "--train", "100"},
		{"--heads", "1", "--width", "3", "--seed", "4", "--train", "50"},
	} {
		dir := torchLayer(t, args...)
		want := readOutputs(t, dir)
		bias := strings.Contains(strings.Join(args, " "), "--bias")
		for _, name := range []string{"layer.npz", "layer.safetensors"} {
			m, err := readFile(t, filepath.Join(dir, name), 0)
			if err != nil {
				t.Fatalf("%v %s: %v", args, name, err)
			}
			if m.Biased() != bias {
				t.Errorf("%v %s: Biased() = %v", args, name, m.Biased())
			}
			var scale, worst float64
			for _, y := range want.Y {
				scale = max(scale, math.Abs(y))
			}
			for i, x := range want.X {
				worst = max(worst, math.Abs(m.Output(rows(x))-want.Y[i]))
			}
			if worst > 1e-14*scale {
				t.Errorf("%v %s: largest difference from torch %.3g, %.3g relative", args, name, worst, worst/scale)
			}
		}
	}
}

// TestTorchTransformer: the Transformer scene's class saved by torch
// gives torch's forward pass through transformer's exact oracle.
func TestTorchTransformer(t *testing.T) {
	needTorch(t)
	dir := torchLayer(t, "--heads", "2", "--width", "4", "--seed", "5", "--transformer", "3", "--train", "50")
	want := readOutputs(t, dir)
	for _, name := range []string{"layer.npz", "layer.safetensors"} {
		m, err := readFile(t, filepath.Join(dir, name), 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Network == nil || m.Layer != nil {
			t.Fatalf("%s: read as %s, not a Transformer", name, m.Source)
		}
		o, err := transformer.NewOracle(*m.Network, 256)
		if err != nil {
			t.Fatal(err)
		}
		var scale, worst float64
		for _, y := range want.Y {
			scale = max(scale, math.Abs(y))
		}
		for i, x := range want.X {
			X := make([][]*big.Float, len(x))
			for r, row := range x {
				for _, v := range row {
					X[r] = append(X[r], new(big.Float).SetPrec(256).SetFloat64(v))
				}
			}
			y, err := o.Eval(X)
			if err != nil {
				t.Fatal(err)
			}
			f, _ := y.Float64()
			worst = max(worst, math.Abs(f-want.Y[i]))
		}
		if worst > 1e-14*scale {
			t.Errorf("%s: largest difference from torch %.3g, %.3g relative", name, worst, worst/scale)
		}
	}
}

// TestRoundTrip: Write then Read gives the model back bit for bit, in
// both formats.
func TestRoundTrip(t *testing.T) {
	m := Model{Layer: attention.Random(3, 4, 7), Const: -0.3, Source: "canonical"}
	for h := 0; h < 3; h++ {
		m.QueryBias = append(m.QueryBias, []float64{float64(h), 0.5, -1e-300, math.Pi})
	}
	for _, f := range []Format{NPZ, Safetensors} {
		var buf bytes.Buffer
		if err := Write(&buf, f, m); err != nil {
			t.Fatal(err)
		}
		got, err := Read(bytes.NewReader(buf.Bytes()), "x."+f.String(), 0)
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		if got.Heads() != 3 || got.Width() != 4 || math.Float64bits(got.Const) != math.Float64bits(m.Const) {
			t.Fatalf("%v: %d heads, width %d, C %v", f, got.Heads(), got.Width(), got.Const)
		}
		for h := range m.Layer {
			if !mat.Equal(got.Layer[h].W, m.Layer[h].W) || !mat.Equal(got.Layer[h].V, m.Layer[h].V) {
				t.Errorf("%v: head %d differs", f, h)
			}
			for i, c := range m.QueryBias[h] {
				if math.Float64bits(got.QueryBias[h][i]) != math.Float64bits(c) {
					t.Errorf("%v: c[%d][%d] = %v, want %v", f, h, i, got.QueryBias[h][i], c)
				}
			}
		}
	}
}

// safetensorsFile builds a .safetensors file from a header and data.
func safetensorsFile(header string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

// npzFile builds an .npz holding one array with the given header dict.
func npzFile(name, dict string, data []byte) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	w, _ := z.Create(name)
	hdr := dict + strings.Repeat(" ", (64-(10+len(dict)+1)%64)%64) + "\n"
	w.Write([]byte("\x93NUMPY\x01\x00"))
	binary.Write(w, binary.LittleEndian, uint16(len(hdr)))
	w.Write([]byte(hdr))
	w.Write(data)
	z.Close()
	return b.Bytes()
}

// TestHostile: malformed and hostile files get an error naming the
// problem, never a layer or a panic.
func TestHostile(t *testing.T) {
	var good bytes.Buffer
	if err := Write(&good, Safetensors, Model{Layer: attention.Random(2, 3, 1)}); err != nil {
		t.Fatal(err)
	}
	var goodNPZ bytes.Buffer
	if err := Write(&goodNPZ, NPZ, Model{Layer: attention.Random(2, 3, 1)}); err != nil {
		t.Fatal(err)
	}
	f64 := func(xs ...float64) []byte {
		var b []byte
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
		return b
	}
	nanW := safetensorsFile(`{"W":{"dtype":"F64","shape":[1,1,1],"data_offsets":[0,8]},"v":{"dtype":"F64","shape":[1,1],"data_offsets":[8,16]}}`, f64(math.NaN(), 1))
	for _, tc := range []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"empty", "x.safetensors", nil, "not a .safetensors"},
		{"truncated safetensors", "x.safetensors", good.Bytes()[:good.Len()-7], "not a .safetensors"},
		{"truncated npz", "x.npz", goodNPZ.Bytes()[:goodNPZ.Len()/2], "npz"},
		{"garbage npz", "x.npz", []byte("PK\x03\x04 not a zip at all"), "not an .npz"},
		{"wrong extension", "x.pt", good.Bytes(), "neither .npz nor .safetensors"},
		{"billion-element header", "x.safetensors", safetensorsFile(`{"W":{"dtype":"F64","shape":[1000,1000,1000],"data_offsets":[0,8]}}`, f64(1)), "offsets"},
		{"billion-element npz", "x.npz", npzFile("W.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1000, 1000, 1000), }", f64(1)), "too large"},
		{"huge header length", "x.safetensors", append(binary.LittleEndian.AppendUint64(nil, 1<<62), '{', '}'), "not a .safetensors"},
		{"NaN", "x.safetensors", nanW, "NaN"},
		{"not attention", "x.safetensors", safetensorsFile(`{"fc.weight":{"dtype":"F64","shape":[2,2],"data_offsets":[0,32]}}`, f64(1, 2, 3, 4)), "no attention layer"},
		{"wrong in_proj shape", "x.safetensors", safetensorsFile(`{"in_proj_weight":{"dtype":"F64","shape":[2,2],"data_offsets":[0,32]}}`, f64(1, 2, 3, 4)), "want (3E, E)"},
		{"no heads", "x.safetensors", safetensorsFile(`{"in_proj_weight":{"dtype":"F64","shape":[3,1],"data_offsets":[0,24]}}`, f64(1, 2, 3)), "number of heads"},
		{"no readout", "x.safetensors", safetensorsFile(`{"__metadata__":{"num_heads":"1"},"in_proj_weight":{"dtype":"F64","shape":[3,1],"data_offsets":[0,24]},"out_proj.weight":{"dtype":"F64","shape":[1,1],"data_offsets":[24,32]}}`, f64(1, 2, 3, 4)), "readout.weight"},
		{"heads do not divide", "x.safetensors", safetensorsFile(`{"__metadata__":{"num_heads":"2"},"in_proj_weight":{"dtype":"F64","shape":[3,1],"data_offsets":[0,24]}}`, f64(1, 2, 3)), "do not divide"},
		{"string type", "x.safetensors", safetensorsFile(`{"W":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, []byte{1}), "type"},
	} {
		m, err := Read(bytes.NewReader(tc.data), tc.file, 0)
		if err == nil {
			t.Errorf("%s: read a layer of %d heads", tc.name, m.Heads())
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q does not say %q", tc.name, err, tc.want)
		}
	}
	if _, err := Read(bytes.NewReader(make([]byte, MaxBytes+1)), "x.npz", 0); err == nil || !strings.Contains(err.Error(), strconv.Itoa(MaxBytes>>20)+" MiB") {
		t.Errorf("oversized file: %v", err)
	}
}

// torchLayerIn runs testdata/torchlayer.py into dir.
func torchLayerIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(python, append([]string{"testdata/torchlayer.py", "--out", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("torchlayer.py %v: %v\n%s", args, err, out)
	}
}

// TestOracleRecovers: the in-process black box of a biased model answers
// alike in float64 and at 192 bits, and recovery learns the model's
// heads, c_h and C through it in both.
func TestOracleRecovers(t *testing.T) {
	m := Model{Layer: attention.Random(2, 3, 4), Const: 0.7, QueryBias: [][]float64{{0.3, -0.2, 0.1}, {-0.4, 0, 0.25}}}
	X := [][]float64{{0.1, -1, 2}, {1, 0.5, -0.3}, {-0.7, 0.2, 0.9}}
	var bx [][]*big.Float
	for _, r := range X {
		var br []*big.Float
		for _, v := range r {
			br = append(br, new(big.Float).SetPrec(192).SetFloat64(v))
		}
		bx = append(bx, br)
	}
	f := m.Output(rows(X))
	b, _ := m.BigOutput(bx).Float64()
	if math.Abs(f-b) > 1e-15*math.Abs(b) {
		t.Fatalf("float64 %v, 192 bits %v", f, b)
	}
	for _, prec := range []uint{0, 192} {
		opt := recovery.DefaultOptions(2, 3)
		opt.Biases, opt.Precision = true, prec
		res, err := recovery.Recover(context.Background(), Oracle(m), opt)
		if err != nil {
			t.Fatalf("%d bits: %v", prec, err)
		}
		if e, _ := attention.RelativeError(res.Layer, m.Layer); e > 1e-9 || math.Abs(res.Const-m.Const) > 1e-12 {
			t.Errorf("%d bits: error %.3g, C %v", prec, e, res.Const)
		}
	}
}
