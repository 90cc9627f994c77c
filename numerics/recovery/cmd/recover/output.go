package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"time"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/layerfile"
	"headlab/numerics/recovery"
)

// headJSON is one canonical head: W (d rows of d), its query bias c
// (zeros for a layer without biases) and v.
type headJSON struct {
	W [][]float64 `json:"W"`
	C []float64   `json:"c"`
	V []float64   `json:"v"`
}

// layerJSON is what -o writes and -truth reads: the recovered layer and
// how it was learned. Error and ErrorBits are set with -truth: the largest
// relative error of a head after aligning heads (attention.RelativeError),
// and −log₂ of it.
type layerJSON struct {
	Queries   int        `json:"queries"`
	MaxLength int        `json:"maxLength"`
	Heads     []headJSON `json:"heads"`
	C         float64    `json:"C"`
	Mode      string     `json:"mode"`
	Prec      uint       `json:"prec"`
	H         int        `json:"H,omitempty"`
	D         int        `json:"d,omitempty"`
	Seed      uint64     `json:"seed,omitempty"`
	FromLog   int        `json:"fromLog"`
	// Asked counts the distinct queries answered, the calibration's
	// probes included (Queries counts the learner's).
	Asked      int      `json:"asked"`
	Spread     float64  `json:"spread"`
	TokenScale float64  `json:"tokenScale"`
	Biases     bool     `json:"biases"`
	Fallbacks  int      `json:"fallbacks"`
	Residual   float64  `json:"residual"`
	Estimate   float64  `json:"estimate"`
	Seconds    float64  `json:"seconds"`
	Error      *float64 `json:"error,omitempty"`
	ErrorBits  *float64 `json:"errorBits,omitempty"`
}

func makeOutput(res recovery.Result, opt recovery.Options, fromLog int, took time.Duration) *layerJSON {
	out := &layerJSON{
		Queries: res.Queries, MaxLength: res.MaxLength, Mode: opt.Mode.String(), Prec: opt.Precision,
		H: len(res.Layer), D: opt.Width, Seed: opt.Seed, FromLog: fromLog, Fallbacks: res.Fallbacks,
		Residual: res.Residual, Estimate: res.Estimate, Seconds: took.Seconds(), Heads: []headJSON{},
		Spread: opt.Spread, Biases: opt.Biases,
	}
	out.TokenScale = 1
	if res.Calibration != nil {
		out.TokenScale = res.Calibration.TokenScale
	}
	out.C = res.Const
	d := opt.Width
	for k, h := range res.Layer {
		hj := headJSON{W: make([][]float64, d), C: make([]float64, d), V: make([]float64, d)}
		if res.QueryBias != nil {
			copy(hj.C, res.QueryBias[k])
		}
		for i := 0; i < d; i++ {
			hj.W[i] = make([]float64, d)
			for j := 0; j < d; j++ {
				hj.W[i][j] = h.W.At(i, j)
			}
			hj.V[i] = h.V.AtVec(i)
		}
		out.Heads = append(out.Heads, hj)
	}
	return out
}

// modelJSON is a saved layer in the JSON -o writes, as the truth.
func modelJSON(m layerfile.Model) *layerJSON {
	out := &layerJSON{C: m.Const, H: m.Heads(), D: m.Width(), Heads: []headJSON{}}
	d := m.Width()
	for k, h := range m.Layer {
		hj := headJSON{W: make([][]float64, d), C: make([]float64, d), V: make([]float64, d)}
		for i := 0; i < d; i++ {
			hj.W[i] = make([]float64, d)
			for j := 0; j < d; j++ {
				hj.W[i][j] = h.W.At(i, j)
			}
			hj.V[i] = h.V.AtVec(i)
		}
		if m.QueryBias != nil {
			copy(hj.C, m.QueryBias[k])
		}
		out.Heads = append(out.Heads, hj)
	}
	return out
}

// model returns the layer as a layerfile.Model.
func (l *layerJSON) model() (layerfile.Model, error) {
	ly, err := l.layer()
	if err != nil {
		return layerfile.Model{}, err
	}
	m := layerfile.Model{Layer: ly, Const: l.C, Source: "canonical"}
	for _, h := range l.Heads {
		m.QueryBias = append(m.QueryBias, append([]float64(nil), h.C...))
	}
	return m, nil
}

// layer returns the heads as an attention.Layer, checking their shapes.
func (l *layerJSON) layer() (attention.Layer, error) {
	var out attention.Layer
	for k, h := range l.Heads {
		d := len(h.V)
		if len(h.W) != d {
			return nil, fmt.Errorf("head %d: W has %d rows, v %d entries", k, len(h.W), d)
		}
		w := mat.NewDense(d, d, nil)
		for i, row := range h.W {
			if len(row) != d {
				return nil, fmt.Errorf("head %d: W row %d has %d entries, want %d", k, i, len(row), d)
			}
			w.SetRow(i, row)
		}
		if len(h.C) != 0 && len(h.C) != d {
			return nil, fmt.Errorf("head %d: c has %d entries, want %d", k, len(h.C), d)
		}
		out = append(out, attention.Head{W: w, V: mat.NewVecDense(d, append([]float64(nil), h.V...))})
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

// readTruth reads a layer as -o writes it: .json, .npz or .safetensors.
func readTruth(path string) (*layerJSON, error) {
	if _, err := layerfile.FormatOf(path); err == nil {
		m, err := readModel(path, 0)
		if err != nil {
			return nil, err
		}
		return modelJSON(m), nil
	}
	return readLayer(path)
}

// readLayer reads a layer in the JSON -o writes.
func readLayer(path string) (*layerJSON, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l layerJSON
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if _, err := l.layer(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &l, nil
}

// compare sets Error and ErrorBits against the truth: the largest
// relative error of a head's (W_h, v_h) after aligning heads
// (attention.Pairing), of its c_h relative to the larger of |W_h| and
// |c_h|, and of C relative to the largest |v_h|, whichever is largest.
func (l *layerJSON) compare(truth *layerJSON) error {
	got, err := l.layer()
	if err != nil {
		return err
	}
	heads, _ := truth.layer()
	want := attention.Canonical(heads, 1e-12)
	if len(got) != len(want) {
		return fmt.Errorf("recovered %d heads, the truth has %d canonical heads", len(got), len(want))
	}
	e, err := attention.RelativeError(got, want)
	if err != nil {
		return err
	}
	if pair, _, err := attention.Pairing(got, heads); err == nil && len(got) == len(heads) {
		// No heads merged: compare c_h head by head.
		var vmax float64
		for i, g := range pair {
			wc, gc := truth.Heads[i].C, l.Heads[g].C
			scale := maxAbs(heads[i].W.RawMatrix().Data)
			for k := range wc {
				scale = math.Max(scale, math.Abs(wc[k]))
			}
			for k := range wc {
				if k < len(gc) {
					e = math.Max(e, math.Abs(gc[k]-wc[k])/scale)
				}
			}
			vmax = math.Max(vmax, maxAbs(heads[i].V.RawVector().Data))
		}
		e = math.Max(e, math.Abs(l.C-truth.C)/math.Max(vmax, math.Abs(truth.C)))
	}
	bits := -math.Log2(math.Max(e, math.SmallestNonzeroFloat64))
	l.Error, l.ErrorBits = &e, &bits
	return nil
}

// summary is the line printed on success.
func (l *layerJSON) summary() string {
	s := fmt.Sprintf("recovered %d heads of width %d: %d queries (%d asked in all with the calibration, %d from the log), longest %d tokens, %s mode, ", l.H, l.D, l.Queries, l.Asked, l.FromLog, l.MaxLength, l.Mode)
	if l.Prec > 0 {
		s += fmt.Sprintf("%d bits", l.Prec)
	} else {
		s += "float64"
	}
	s += fmt.Sprintf(", self-check residual %.3g, estimated error %.3g, %.2f s", l.Residual, l.Estimate, l.Seconds)
	if l.Error != nil {
		s += fmt.Sprintf("; error against the truth %.3g (%.1f bits)", *l.Error, *l.ErrorBits)
	}
	return s
}

func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// write writes the layer: .json whole, .npz and .safetensors the
// canonical layer (layerfile.Write).
func (l *layerJSON) write(path string) error {
	if f, err := layerfile.FormatOf(path); err == nil {
		m, err := l.model()
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := layerfile.Write(&buf, f, m); err != nil {
			return err
		}
		return os.WriteFile(path, buf.Bytes(), 0o644)
	}
	b, err := json.MarshalIndent(l, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
