package layerfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/transformer"
)

// Limits on what Read accepts.
const (
	MaxBytes = 64 << 20 // largest file
	MaxWidth = 1024     // largest embedding width E
	MaxHeads = 64       // largest number of heads H
)

// Format is a file format: NPZ or Safetensors.
type Format int

const (
	// NPZ is numpy's .npz, a zip of .npy arrays.
	NPZ Format = iota
	// Safetensors is Hugging Face's .safetensors.
	Safetensors
)

// String returns "npz" or "safetensors".
func (f Format) String() string {
	if f == Safetensors {
		return "safetensors"
	}
	return "npz"
}

// FormatOf returns the format a file name's extension names.
func FormatOf(name string) (Format, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".npz":
		return NPZ, nil
	case ".safetensors":
		return Safetensors, nil
	}
	return 0, fmt.Errorf("layerfile: %q is neither .npz nor .safetensors", name)
}

// Model is a layer in canonical form (the package doc's formulas).
type Model struct {
	// Layer holds the heads (W_h, v_h), one per head of the file, in its
	// order (not merged: attention.Canonical merges).
	Layer attention.Layer
	// QueryBias holds c_h per head; Const is C. Both are zero for a layer
	// without biases.
	QueryBias [][]float64
	Const     float64
	// Network is set, and Layer nil, when the file holds the Transformer
	// scene's class: the attention, then Linear(E, K, bias=False), ReLU
	// and Linear(K, 1, bias=False) (keys ffn.0.weight, ffn.2.weight).
	Network *transformer.Network
	// Source says what the file held: "torch.nn.MultiheadAttention",
	// "torch Transformer" or "canonical".
	Source string
}

// Heads returns the number of heads, Width the token width d.
func (m Model) Heads() int { return len(m.Layer) }

// Width returns the token width d.
func (m Model) Width() int { return m.Layer.Width() }

// Biased reports whether the model has a nonzero c_h or C.
func (m Model) Biased() bool { return m.Full().HasBias() }

// Output returns the model's output on X (rows are tokens, the last the
// query): C + Σ_h Σ_i softmax_i(x_iᵀ(W_h x_N + c_h)) (v_h·x_i).
func (m Model) Output(X *mat.Dense) float64 { return m.Full().Output(X) }

// Full returns the layer with its biases, the form the page and the
// oracles compute F with (attention.Biased).
func (m Model) Full() attention.Biased {
	return attention.Biased{Layer: m.Layer, QueryBias: m.QueryBias, Const: m.Const}
}

// tensor is one array of a file: its shape and its numbers, row-major.
type tensor struct {
	shape []int
	data  []float64
}

// store is what a file holds: named tensors and string metadata.
type store struct {
	tensors map[string]tensor
	meta    map[string]string
}

// Read reads a layer from the file's bytes, name giving its format by
// extension. heads is H, or 0 to take it from the file.
func Read(r io.Reader, name string, heads int) (Model, error) {
	f, err := FormatOf(name)
	if err != nil {
		return Model{}, err
	}
	buf, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return Model{}, fmt.Errorf("layerfile: %s: %w", name, err)
	}
	if len(buf) > MaxBytes {
		return Model{}, fmt.Errorf("layerfile: %s is larger than %d MiB", name, MaxBytes>>20)
	}
	var st store
	switch f {
	case NPZ:
		st, err = readNPZ(bytes.NewReader(buf), int64(len(buf)))
	case Safetensors:
		st, err = readSafetensors(buf)
	}
	if err != nil {
		return Model{}, fmt.Errorf("layerfile: %s: %w", name, err)
	}
	m, err := st.model(heads)
	if err != nil {
		return Model{}, fmt.Errorf("layerfile: %s: %w", name, err)
	}
	return m, nil
}

// ErrNoHeads is the error (wrapped) of a file that does not say its
// number of heads, read without one.
var ErrNoHeads = errors.New("the number of heads is not in the file (a state dict does not record it)")

// errLimit is a tensor too large for a layer.
var errLimit = errors.New("too large for an attention layer")

// checkShape refuses shapes beyond the layer's limits before allocation.
func checkShape(name string, shape []int) error {
	n := 1
	for _, s := range shape {
		if s < 0 || s > 3*MaxWidth {
			return fmt.Errorf("tensor %q: shape %v: %w", name, shape, errLimit)
		}
		n *= s
		if n > 3*MaxWidth*MaxWidth {
			return fmt.Errorf("tensor %q: shape %v: %w", name, shape, errLimit)
		}
	}
	return nil
}

// find returns the tensor whose key is key or ends in "."+key, and
// whether there was one; two candidates are an error.
func (st store) find(key string) (tensor, string, bool, error) {
	var found []string
	for k := range st.tensors {
		if k == key || strings.HasSuffix(k, "."+key) {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 0:
		return tensor{}, "", false, nil
	case 1:
		return st.tensors[found[0]], found[0], true, nil
	}
	return tensor{}, "", false, fmt.Errorf("%d tensors named %q (%s)", len(found), key, strings.Join(found, ", "))
}

// model maps the store's tensors to the canonical heads.
func (st store) model(heads int) (Model, error) {
	for _, t := range st.tensors {
		for _, x := range t.data {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return Model{}, fmt.Errorf("a tensor holds %v", x)
			}
		}
	}
	if _, _, ok, _ := st.find("in_proj_weight"); ok {
		return st.torch(heads)
	}
	if _, ok := st.tensors["W"]; ok {
		return st.canonical()
	}
	for _, k := range []string{"q_proj_weight", "k_proj_weight", "v_proj_weight"} {
		if _, _, ok, _ := st.find(k); ok {
			return Model{}, fmt.Errorf("%s: separate query, key and value widths are not supported (equal widths save in_proj_weight)", k)
		}
	}
	var keys []string
	for k := range st.tensors {
		keys = append(keys, k)
	}
	return Model{}, fmt.Errorf("no attention layer: neither in_proj_weight (torch.nn.MultiheadAttention) nor W (canonical) among %d tensors %s", len(keys), short(keys))
}

// short lists at most 8 names.
func short(keys []string) string {
	if len(keys) > 8 {
		keys = append(keys[:8:8], "…")
	}
	return "[" + strings.Join(keys, " ") + "]"
}

// headsFrom returns H from the argument or the file.
func (st store) headsFrom(heads int) (int, error) {
	if heads > 0 {
		return heads, nil
	}
	if s, ok := st.meta["num_heads"]; ok {
		h, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return 0, fmt.Errorf("metadata num_heads %q is not a number", s)
		}
		heads = h
	} else if t, _, ok, _ := st.find("num_heads"); ok && len(t.data) == 1 {
		heads = int(t.data[0])
		if float64(heads) != t.data[0] {
			return 0, fmt.Errorf("num_heads %v is not a whole number", t.data[0])
		}
	} else {
		return 0, fmt.Errorf("%w: give it (-H)", ErrNoHeads)
	}
	if heads < 1 || heads > MaxHeads {
		return 0, fmt.Errorf("num_heads %d outside 1…%d", heads, MaxHeads)
	}
	return heads, nil
}

// need returns a tensor of the given shape.
func (st store) need(key string, shape ...int) (tensor, error) {
	t, name, ok, err := st.find(key)
	if err != nil {
		return tensor{}, err
	}
	if !ok {
		return tensor{}, fmt.Errorf("no tensor %q", key)
	}
	if !sameShape(t.shape, shape) {
		return tensor{}, fmt.Errorf("tensor %q has shape %v, want %v", name, t.shape, shape)
	}
	return t, nil
}

// optional returns a tensor of the given shape, or nil data when absent.
func (st store) optional(key string, shape ...int) (tensor, error) {
	if _, _, ok, err := st.find(key); err != nil || !ok {
		return tensor{}, err
	}
	return st.need(key, shape...)
}

func sameShape(a, b []int) bool {
	// A scalar may be saved as shape [] or [1].
	if len(b) == 0 {
		return len(a) == 0 || (len(a) == 1 && a[0] == 1)
	}
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// torch maps an nn.MultiheadAttention state dict (the package doc).
func (st store) torch(heads int) (Model, error) {
	in, _, _, _ := st.find("in_proj_weight")
	if len(in.shape) != 2 || in.shape[0] != 3*in.shape[1] {
		return Model{}, fmt.Errorf("in_proj_weight has shape %v, want (3E, E)", in.shape)
	}
	e := in.shape[1]
	if e < 1 || e > MaxWidth {
		return Model{}, fmt.Errorf("embedding width %d outside 1…%d", e, MaxWidth)
	}
	h, err := st.headsFrom(heads)
	if err != nil {
		return Model{}, err
	}
	if e%h != 0 {
		return Model{}, fmt.Errorf("%d heads do not divide the width %d", h, e)
	}
	wo, err := st.need("out_proj.weight", e, e)
	if err != nil {
		return Model{}, err
	}
	if _, _, ok, _ := st.find("readout.weight"); !ok {
		if _, _, ok, _ := st.find("ffn.0.weight"); ok {
			return st.network(in, wo, h)
		}
	}
	u, err := st.need("readout.weight", 1, e)
	if err != nil {
		return Model{}, fmt.Errorf("%w (headlab reads the layer through a scalar readout u·y, saved as readout.weight, 1×E)", err)
	}
	bin, err := st.optional("in_proj_bias", 3*e)
	if err != nil {
		return Model{}, err
	}
	bo, err := st.optional("out_proj.bias", e)
	if err != nil {
		return Model{}, err
	}
	if rb, _, ok, _ := st.find("readout.bias"); ok && len(rb.data) > 0 && rb.data[0] != 0 {
		return Model{}, fmt.Errorf("readout.bias is %v: the readout must be bias-free (fold it into out_proj.bias)", rb.data[0])
	}
	dh := e / h
	at := func(t tensor, r, c int) float64 { return t.data[r*t.shape[1]+c] }
	scale := 1 / math.Sqrt(float64(dh))
	m := Model{Source: "torch.nn.MultiheadAttention"}
	if bo.data != nil {
		for i := 0; i < e; i++ {
			m.Const += float64(u.data[i] * bo.data[i])
		}
	}
	for hh := 0; hh < h; hh++ {
		q0, k0, v0 := hh*dh, e+hh*dh, 2*e+hh*dh
		w := mat.NewDense(e, e, nil)
		for i := 0; i < e; i++ {
			for j := 0; j < e; j++ {
				var acc float64
				for r := 0; r < dh; r++ {
					acc += float64(at(in, k0+r, i) * at(in, q0+r, j))
				}
				w.Set(i, j, acc*scale)
			}
		}
		// uo[r] = (W_o^h)ᵀ u, row r of the head's slice.
		uo := make([]float64, dh)
		for r := 0; r < dh; r++ {
			var acc float64
			for i := 0; i < e; i++ {
				acc += float64(u.data[i] * at(wo, i, hh*dh+r))
			}
			uo[r] = acc
		}
		v := mat.NewVecDense(e, nil)
		for j := 0; j < e; j++ {
			var acc float64
			for r := 0; r < dh; r++ {
				acc += float64(at(in, v0+r, j) * uo[r])
			}
			v.SetVec(j, acc)
		}
		c := make([]float64, e)
		if bin.data != nil {
			for i := 0; i < e; i++ {
				var acc float64
				for r := 0; r < dh; r++ {
					acc += float64(at(in, k0+r, i) * bin.data[q0+r])
				}
				c[i] = acc * scale
			}
			for r := 0; r < dh; r++ {
				m.Const += float64(uo[r] * bin.data[v0+r])
			}
		}
		m.Layer = append(m.Layer, attention.Head{W: w, V: v})
		m.QueryBias = append(m.QueryBias, c)
	}
	return m, nil
}

// network maps the Transformer scene's class: V_h = (W_o^h W_v^h)ᵀ, d×E,
// and the units' b_k (rows of ffn.0.weight) and a_k (ffn.2.weight).
func (st store) network(in, wo tensor, h int) (Model, error) {
	e := in.shape[1]
	for _, k := range []string{"in_proj_bias", "out_proj.bias"} {
		if t, _, ok, _ := st.find(k); ok {
			for _, x := range t.data {
				if x != 0 {
					return Model{}, fmt.Errorf("%s: the Transformer is bias-free (build it with bias=False)", k)
				}
			}
		}
	}
	t0, _, _, err := st.find("ffn.0.weight")
	if err != nil {
		return Model{}, err
	}
	if len(t0.shape) != 2 || t0.shape[1] != e || t0.shape[0] < 1 || t0.shape[0] > transformer.MaxUnits {
		return Model{}, fmt.Errorf("ffn.0.weight has shape %v, want (K, %d) with K ≤ %d", t0.shape, e, transformer.MaxUnits)
	}
	k := t0.shape[0]
	t2, err := st.need("ffn.2.weight", 1, k)
	if err != nil {
		return Model{}, err
	}
	dh := e / h
	at := func(t tensor, r, c int) float64 { return t.data[r*t.shape[1]+c] }
	scale := 1 / math.Sqrt(float64(dh))
	n := &transformer.Network{}
	for hh := 0; hh < h; hh++ {
		q0, k0, v0 := hh*dh, e+hh*dh, 2*e+hh*dh
		w := make([][]float64, e)
		v := make([][]float64, e)
		for i := 0; i < e; i++ {
			w[i] = make([]float64, e)
			v[i] = make([]float64, e)
			for j := 0; j < e; j++ {
				var acc float64
				for r := 0; r < dh; r++ {
					acc += float64(at(in, k0+r, i) * at(in, q0+r, j))
				}
				w[i][j] = acc * scale
			}
			// V_h[i][j] = Σ_r W_o[j][h·dh+r] W_v[h·dh+r][i]
			for j := 0; j < e; j++ {
				var acc float64
				for r := 0; r < dh; r++ {
					acc += float64(at(wo, j, hh*dh+r) * at(in, v0+r, i))
				}
				v[i][j] = acc
			}
		}
		n.Heads = append(n.Heads, transformer.Head{W: w, V: v})
	}
	for u := 0; u < k; u++ {
		n.Units = append(n.Units, transformer.Unit{A: t2.data[u], B: append([]float64(nil), t0.data[u*e:(u+1)*e]...)})
	}
	if err := n.Validate(); err != nil {
		return Model{}, err
	}
	return Model{Network: n, Source: "torch Transformer"}, nil
}

// canonical reads the keys Write writes.
func (st store) canonical() (Model, error) {
	w := st.tensors["W"]
	if len(w.shape) != 3 || w.shape[1] != w.shape[2] || w.shape[0] < 1 || w.shape[0] > MaxHeads || w.shape[1] < 1 || w.shape[1] > MaxWidth {
		return Model{}, fmt.Errorf("tensor W has shape %v, want (H, d, d) with H ≤ %d, d ≤ %d", w.shape, MaxHeads, MaxWidth)
	}
	h, d := w.shape[0], w.shape[1]
	v, err := st.need("v", h, d)
	if err != nil {
		return Model{}, err
	}
	c, err := st.optional("c", h, d)
	if err != nil {
		return Model{}, err
	}
	cc, err := st.optional("C")
	if err != nil {
		return Model{}, err
	}
	m := Model{Source: "canonical"}
	if cc.data != nil {
		m.Const = cc.data[0]
	}
	for hh := 0; hh < h; hh++ {
		m.Layer = append(m.Layer, attention.Head{
			W: mat.NewDense(d, d, append([]float64(nil), w.data[hh*d*d:(hh+1)*d*d]...)),
			V: mat.NewVecDense(d, append([]float64(nil), v.data[hh*d:(hh+1)*d]...)),
		})
		q := make([]float64, d)
		if c.data != nil {
			copy(q, c.data[hh*d:(hh+1)*d])
		}
		m.QueryBias = append(m.QueryBias, q)
	}
	return m, nil
}
