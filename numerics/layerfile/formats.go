package layerfile

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"codeberg.org/sbinet/npyio/npz"
	"github.com/nlpodyssey/safetensors"
)

// readNPZ reads the float arrays of an .npz archive (and integer
// scalars, such as num_heads), checking each header's shape first.
func readNPZ(r io.ReaderAt, size int64) (store, error) {
	z, err := npz.NewReader(r, size)
	if err != nil {
		return store{}, fmt.Errorf("not an .npz archive: %w", err)
	}
	st := store{tensors: map[string]tensor{}, meta: map[string]string{}}
	for _, key := range z.Keys() {
		name := strings.TrimSuffix(key, ".npy")
		hdr := z.Header(key)
		if hdr == nil {
			return store{}, fmt.Errorf("array %q has no readable .npy header", name)
		}
		if hdr.Descr.Fortran {
			return store{}, fmt.Errorf("array %q is in Fortran order (save it C-contiguous)", name)
		}
		shape := append([]int(nil), hdr.Descr.Shape...)
		if err := checkShape(name, shape); err != nil {
			return store{}, err
		}
		t := tensor{shape: shape}
		typ := strings.Trim(hdr.Descr.Type, `'"`)
		switch typ {
		case "<f8":
			err = z.Read(key, &t.data)
		case "<f4":
			var f []float32
			if err = z.Read(key, &f); err == nil {
				t.data = widen(f)
			}
		case "<i8", "<i4":
			var n []int64
			if typ == "<i4" {
				var m []int32
				err = z.Read(key, &m)
				for _, x := range m {
					n = append(n, int64(x))
				}
			} else {
				err = z.Read(key, &n)
			}
			for _, x := range n {
				t.data = append(t.data, float64(x))
			}
		default:
			return store{}, fmt.Errorf("array %q has type %s (want float64 <f8 or float32 <f4)", name, typ)
		}
		if err != nil {
			return store{}, fmt.Errorf("array %q: %w", name, err)
		}
		if len(t.data) != elements(shape) {
			return store{}, fmt.Errorf("array %q holds %d numbers, its shape %v says %d", name, len(t.data), shape, elements(shape))
		}
		st.tensors[name] = t
	}
	return st, nil
}

// readSafetensors reads the F64 and F32 tensors and the metadata of a
// .safetensors file.
func readSafetensors(buf []byte) (store, error) {
	_, md, err := safetensors.ReadMetadata(buf)
	if err != nil {
		return store{}, fmt.Errorf("not a .safetensors file: %w", err)
	}
	for name, info := range md.Tensors() {
		shape := make([]int, len(info.Shape))
		for i, s := range info.Shape {
			if s > math.MaxInt32 {
				return store{}, fmt.Errorf("tensor %q: shape %v: %w", name, info.Shape, errLimit)
			}
			shape[i] = int(s)
		}
		if err := checkShape(name, shape); err != nil {
			return store{}, err
		}
	}
	sf, err := safetensors.Deserialize(buf)
	if err != nil {
		return store{}, fmt.Errorf("not a .safetensors file: %w", err)
	}
	st := store{tensors: map[string]tensor{}, meta: md.Metadata()}
	for _, nt := range sf.Tensors() {
		tv := nt.TensorView
		shape := make([]int, len(tv.Shape()))
		for i, s := range tv.Shape() {
			shape[i] = int(s)
		}
		raw := tv.Data()
		t := tensor{shape: shape}
		switch tv.DType() {
		case safetensors.F64:
			for i := 0; i+8 <= len(raw); i += 8 {
				t.data = append(t.data, math.Float64frombits(binary.LittleEndian.Uint64(raw[i:])))
			}
		case safetensors.F32:
			for i := 0; i+4 <= len(raw); i += 4 {
				t.data = append(t.data, float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[i:]))))
			}
		case safetensors.I64:
			for i := 0; i+8 <= len(raw); i += 8 {
				t.data = append(t.data, float64(int64(binary.LittleEndian.Uint64(raw[i:]))))
			}
		default:
			return store{}, fmt.Errorf("tensor %q has type %s (want F64 or F32)", nt.Name, tv.DType())
		}
		if len(t.data) != elements(shape) {
			return store{}, fmt.Errorf("tensor %q holds %d numbers, its shape %v says %d", nt.Name, len(t.data), shape, elements(shape))
		}
		st.tensors[nt.Name] = t
	}
	return st, nil
}

func widen(f []float32) []float64 {
	out := make([]float64, len(f))
	for i, x := range f {
		out[i] = float64(x)
	}
	return out
}

func elements(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// Write writes m in canonical keys (the package doc) in format f, with
// the number of heads and the file's source as metadata.
func Write(w io.Writer, f Format, m Model) error {
	h, d := m.Heads(), m.Width()
	if h == 0 || d == 0 {
		return fmt.Errorf("layerfile: an empty layer")
	}
	W := make([]float64, 0, h*d*d)
	V := make([]float64, 0, h*d)
	C := make([]float64, 0, h*d)
	for k, hd := range m.Layer {
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				W = append(W, hd.W.At(i, j))
			}
		}
		for i := 0; i < d; i++ {
			V = append(V, hd.V.AtVec(i))
		}
		if m.QueryBias != nil {
			C = append(C, m.QueryBias[k]...)
		} else {
			C = append(C, make([]float64, d)...)
		}
	}
	arrays := []struct {
		name  string
		shape []int
		data  []float64
	}{{"W", []int{h, d, d}, W}, {"v", []int{h, d}, V}, {"c", []int{h, d}, C}, {"C", []int{1}, []float64{m.Const}}}
	switch f {
	case NPZ:
		zw := npz.NewWriter(w)
		for _, a := range arrays {
			if err := zw.Write(a.name, nested(a.data, a.shape)); err != nil {
				return fmt.Errorf("layerfile: %w", err)
			}
		}
		if err := zw.Write("num_heads", []int64{int64(h)}); err != nil {
			return fmt.Errorf("layerfile: %w", err)
		}
		return zw.Close()
	case Safetensors:
		views := map[string]safetensors.TensorView{}
		for _, a := range arrays {
			raw := make([]byte, 8*len(a.data))
			for i, x := range a.data {
				binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(x))
			}
			shape := make([]uint64, len(a.shape))
			for i, s := range a.shape {
				shape[i] = uint64(s)
			}
			v, err := safetensors.NewTensorView(safetensors.F64, shape, raw)
			if err != nil {
				return fmt.Errorf("layerfile: %w", err)
			}
			views[a.name] = v
		}
		meta := map[string]string{"num_heads": strconv.Itoa(h), "source": m.Source, "format": "headlab canonical"}
		return safetensors.SerializeToWriter(views, meta, w)
	}
	return fmt.Errorf("layerfile: unknown format %v", f)
}

// nested returns data of the given shape (1 to 3 axes) as nested
// slices, whose shape npz.Writer writes.
func nested(data []float64, shape []int) any {
	switch len(shape) {
	case 2:
		out := make([][]float64, shape[0])
		for i := range out {
			out[i] = data[i*shape[1] : (i+1)*shape[1]]
		}
		return out
	case 3:
		out := make([][][]float64, shape[0])
		n := shape[1] * shape[2]
		for i := range out {
			out[i] = nested(data[i*n:(i+1)*n], shape[1:]).([][]float64)
		}
		return out
	}
	return data
}
