package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"time"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
)

// headJSON is one canonical head: W (d rows of d), its bias term c (zeros:
// bias-free layers only for now) and v.
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
	Fallbacks int        `json:"fallbacks"`
	Residual  float64    `json:"residual"`
	Estimate  float64    `json:"estimate"`
	Seconds   float64    `json:"seconds"`
	Error     *float64   `json:"error,omitempty"`
	ErrorBits *float64   `json:"errorBits,omitempty"`
}

func makeOutput(res recovery.Result, opt recovery.Options, fromLog int, took time.Duration) *layerJSON {
	out := &layerJSON{
		Queries: res.Queries, MaxLength: res.MaxLength, Mode: opt.Mode.String(), Prec: opt.Precision,
		H: len(res.Layer), D: opt.Width, Seed: opt.Seed, FromLog: fromLog, Fallbacks: res.Fallbacks,
		Residual: res.Residual, Estimate: res.Estimate, Seconds: took.Seconds(), Heads: []headJSON{},
	}
	d := opt.Width
	for _, h := range res.Layer {
		hj := headJSON{W: make([][]float64, d), C: make([]float64, d), V: make([]float64, d)}
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
		for _, c := range h.C {
			if c != 0 {
				return nil, fmt.Errorf("head %d: a bias term c ≠ 0, not yet supported", k)
			}
		}
		out = append(out, attention.Head{W: w, V: mat.NewVecDense(d, append([]float64(nil), h.V...))})
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
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

// compare sets Error and ErrorBits against the truth.
func (l *layerJSON) compare(truth *layerJSON) error {
	got, err := l.layer()
	if err != nil {
		return err
	}
	want, _ := truth.layer()
	if len(got) != len(want) {
		return fmt.Errorf("recovered %d heads, the truth has %d", len(got), len(want))
	}
	e, err := attention.RelativeError(got, want)
	if err != nil {
		return err
	}
	bits := -math.Log2(math.Max(e, math.SmallestNonzeroFloat64))
	l.Error, l.ErrorBits = &e, &bits
	return nil
}

// summary is the line printed on success.
func (l *layerJSON) summary() string {
	s := fmt.Sprintf("recovered %d heads of width %d: %d queries (%d from the log), longest %d tokens, %s mode, ", l.H, l.D, l.Queries, l.FromLog, l.MaxLength, l.Mode)
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

func (l *layerJSON) write(path string) error {
	b, err := json.MarshalIndent(l, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
