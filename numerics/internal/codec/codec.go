// Package codec is a compact binary encoding of Go values between two
// builds of the same program: the canvas and the compute worker, which
// the site always builds from one source. It writes what encoding/gob
// writes of the values experiment sends (exported fields of structs,
// pointers, slices, arrays, strings, numbers, booleans, gonum's Dense and
// VecDense by their elements, and types with a GobEncode method such as
// big.Float) in a fraction of gob's code: in the compute worker, gob with
// the MarshalBinary of gonum's matrices it calls was about 125 kB of the
// wasm's brotli bytes. Nothing describes the types on the wire, so both
// ends must agree on them.
//
// Floats go as their bits (NaN, ±Inf and -0 included); a nil pointer, slice
// or interface stays nil and an empty slice empty; unexported fields and
// fields of func or chan type are skipped, as gob skips them. Maps,
// complex numbers and non-nil interfaces are refused: the values sent
// have none.
package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"

	"gonum.org/v1/gonum/mat"
)

// magic opens every message, so that bytes of another kind (JSON, gob)
// are refused rather than misread.
const magic = "hlc1"

// gobber is a type that encodes itself for gob (big.Float).
type gobber interface {
	GobEncode() ([]byte, error)
}

// ungobber is a type that decodes itself from what its GobEncode wrote.
type ungobber interface {
	GobDecode([]byte) error
}

// Marshal encodes v for Unmarshal.
func Marshal(v any) ([]byte, error) {
	e := encoder{b: []byte(magic)}
	if err := e.value(reflect.ValueOf(v)); err != nil {
		return nil, fmt.Errorf("codec: %w", err)
	}
	return e.b, nil
}

// Unmarshal decodes what Marshal wrote of a value of p's element type
// into *p. Malformed bytes are an error, never a panic.
func Unmarshal(b []byte, p any) (err error) {
	pv := reflect.ValueOf(p)
	if pv.Kind() != reflect.Pointer || pv.IsNil() {
		return fmt.Errorf("codec: Unmarshal into a %T, not a non-nil pointer", p)
	}
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return errors.New("codec: not a codec message")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("codec: malformed message: %v", r)
		}
	}()
	d := decoder{b: b[len(magic):]}
	if err := d.value(pv.Elem()); err != nil {
		return fmt.Errorf("codec: %w", err)
	}
	if len(d.b) != 0 {
		return fmt.Errorf("codec: %d bytes after the value", len(d.b))
	}
	return nil
}

type encoder struct{ b []byte }

// addressable returns v itself if addressable, else an addressable copy,
// so that methods with pointer receivers can be called.
func addressable(v reflect.Value) reflect.Value {
	if v.CanAddr() {
		return v
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

func (e *encoder) bytes(b []byte) {
	e.b = binary.AppendUvarint(e.b, uint64(len(b)))
	e.b = append(e.b, b...)
}

func (e *encoder) float(x float64) {
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x))
}

func (e *encoder) value(v reflect.Value) error {
	if v.Kind() == reflect.Struct {
		switch m := addressable(v).Addr().Interface().(type) {
		case *mat.Dense:
			r, c := 0, 0
			if !m.IsEmpty() {
				r, c = m.Dims()
			}
			e.b = binary.AppendUvarint(binary.AppendUvarint(e.b, uint64(r)), uint64(c))
			for i := range r {
				for j := range c {
					e.float(m.At(i, j))
				}
			}
			return nil
		case *mat.VecDense:
			n := 0
			if !m.IsEmpty() {
				n = m.Len()
			}
			e.b = binary.AppendUvarint(e.b, uint64(n))
			for i := range n {
				e.float(m.AtVec(i))
			}
			return nil
		case gobber:
			b, err := m.GobEncode()
			if err != nil {
				return err
			}
			e.bytes(b)
			return nil
		}
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			e.b = append(e.b, 1)
		} else {
			e.b = append(e.b, 0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.b = binary.AppendVarint(e.b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.b = binary.AppendUvarint(e.b, v.Uint())
	case reflect.Float32, reflect.Float64:
		e.float(v.Float())
	case reflect.String:
		e.b = binary.AppendUvarint(e.b, uint64(v.Len()))
		e.b = append(e.b, v.String()...)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			e.b = append(e.b, 0)
			return nil
		}
		if v.Kind() == reflect.Interface {
			return fmt.Errorf("a non-nil %s", v.Type())
		}
		e.b = append(e.b, 1)
		return e.value(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			e.b = append(e.b, 0)
			return nil
		}
		e.b = binary.AppendUvarint(e.b, uint64(v.Len())+1)
		return parts(v, e.value)
	case reflect.Array, reflect.Struct:
		return parts(v, e.value)
	default:
		return fmt.Errorf("a value of kind %s (%s)", v.Kind(), v.Type())
	}
	return nil
}

// parts calls f on v's parts in the order they are sent: the elements of
// an array or a slice, the sent fields of a struct.
func parts(v reflect.Value, f func(reflect.Value) error) error {
	if v.Kind() != reflect.Struct {
		for i := range v.Len() {
			if err := f(v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	}
	t := v.Type()
	for i := range t.NumField() {
		if skipped(t.Field(i)) {
			continue
		}
		if err := f(v.Field(i)); err != nil {
			return fmt.Errorf("%s.%s: %w", t, t.Field(i).Name, err)
		}
	}
	return nil
}

// skipped reports whether a struct field is not sent: unexported, or of
// func or chan type (as gob skips them).
func skipped(f reflect.StructField) bool {
	k := f.Type.Kind()
	return !f.IsExported() || k == reflect.Func || k == reflect.Chan
}

type decoder struct{ b []byte }

var errShort = errors.New("the message ends early")

func (d *decoder) uvarint() (uint64, error) {
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		return 0, errShort
	}
	d.b = d.b[n:]
	return x, nil
}

func (d *decoder) varint() (int64, error) {
	x, n := binary.Varint(d.b)
	if n <= 0 {
		return 0, errShort
	}
	d.b = d.b[n:]
	return x, nil
}

// take returns the next n bytes.
func (d *decoder) take(n uint64) ([]byte, error) {
	if n > uint64(len(d.b)) {
		return nil, errShort
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b, nil
}

// bytes returns a length-prefixed run of bytes.
func (d *decoder) bytes() ([]byte, error) {
	n, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	return d.take(n)
}

// floats returns the next n floats.
func (d *decoder) floats(n uint64) ([]float64, error) {
	if n > uint64(len(d.b))/8 {
		return nil, errShort
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Float64frombits(binary.LittleEndian.Uint64(d.b[8*i:]))
	}
	d.b = d.b[8*n:]
	return x, nil
}

// value decodes into v, which is settable.
func (d *decoder) value(v reflect.Value) error {
	if v.Kind() == reflect.Struct {
		switch m := v.Addr().Interface().(type) {
		case *mat.Dense:
			r, err := d.uvarint()
			if err != nil {
				return err
			}
			c, err := d.uvarint()
			if err != nil {
				return err
			}
			if r == 0 || c == 0 {
				*m = mat.Dense{}
				return nil
			}
			if r > uint64(len(d.b))/8/c {
				return errShort
			}
			x, err := d.floats(r * c)
			if err != nil {
				return err
			}
			*m = *mat.NewDense(int(r), int(c), x)
			return nil
		case *mat.VecDense:
			n, err := d.uvarint()
			if err != nil {
				return err
			}
			if n == 0 {
				*m = mat.VecDense{}
				return nil
			}
			x, err := d.floats(n)
			if err != nil {
				return err
			}
			*m = *mat.NewVecDense(int(n), x)
			return nil
		case ungobber:
			b, err := d.bytes()
			if err != nil {
				return err
			}
			return m.GobDecode(b)
		}
	}
	switch v.Kind() {
	case reflect.Bool:
		b, err := d.take(1)
		if err != nil {
			return err
		}
		v.SetBool(b[0] != 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, err := d.varint()
		if err != nil {
			return err
		}
		if v.OverflowInt(x) {
			return fmt.Errorf("%d overflows a %s", x, v.Type())
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		x, err := d.uvarint()
		if err != nil {
			return err
		}
		if v.OverflowUint(x) {
			return fmt.Errorf("%d overflows a %s", x, v.Type())
		}
		v.SetUint(x)
	case reflect.Float32, reflect.Float64:
		b, err := d.take(8)
		if err != nil {
			return err
		}
		v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	case reflect.String:
		b, err := d.bytes()
		if err != nil {
			return err
		}
		v.SetString(string(b))
	case reflect.Pointer, reflect.Interface:
		b, err := d.take(1)
		if err != nil {
			return err
		}
		switch {
		case b[0] == 0:
			v.SetZero()
		case v.Kind() == reflect.Interface:
			return fmt.Errorf("a non-nil %s", v.Type())
		default:
			p := reflect.New(v.Type().Elem())
			if err := d.value(p.Elem()); err != nil {
				return err
			}
			v.Set(p)
		}
	case reflect.Slice:
		n, err := d.uvarint()
		if err != nil {
			return err
		}
		if n == 0 {
			v.SetZero()
			return nil
		}
		// Every element takes a byte at least, but one of an empty
		// struct: a length past the message's is malformed.
		if n-1 > uint64(len(d.b)) && v.Type().Elem().Size() > 0 {
			return errShort
		}
		v.Set(reflect.MakeSlice(v.Type(), int(n-1), int(n-1)))
		return parts(v, d.value)
	case reflect.Array, reflect.Struct:
		return parts(v, d.value)
	default:
		return fmt.Errorf("a value of kind %s (%s)", v.Kind(), v.Type())
	}
	return nil
}
