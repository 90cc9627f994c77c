// Package headlabir holds ebiten's three built-in shaders compiled at build
// time, so that the canvas's start-up does not compile them. It is not
// ebiten's: headlab's wasm/ebitenpatch adds it to its patched copy of
// ebiten, runs gen there to write programs.go, and edits internal/atlas's
// init to take its programs instead of compiling the Kage sources (in the
// browser that compilation took about a second of the main thread at every
// page load; headlab's README.md, Performance).
//
// A program crosses as bytes in this package's own form, decoded at init:
// a Go literal of its 900 expressions would be a large function of its
// own to compile and run. gen checks that every program decodes to a value
// reflect.DeepEqual to the compiler's, or writes nothing.
package headlabir

import (
	"encoding/binary"
	"fmt"
	"go/constant"
	"math/big"

	"github.com/hajimehoshi/ebiten/v2/internal/shaderir"
)

// Encode returns p in the form Decode reads. It fails on a constant the
// form does not hold (other than an int64 or a rational). The form holds
// no unexported field (Program's uniform cache, which a new program leaves
// nil), nor any field a later ebiten may add: gen's check that the decoded
// program is reflect.DeepEqual to the compiler's tells either apart.
func Encode(p *shaderir.Program) ([]byte, error) {
	e := &encoder{}
	putSlice(e, p.UniformNames, e.str)
	putSlice(e, p.Uniforms, e.typ)
	e.int(int64(p.TextureCount))
	putSlice(e, p.Attributes, e.typ)
	putSlice(e, p.Varyings, e.typ)
	putSlice(e, p.Funcs, func(f shaderir.Func) {
		e.int(int64(f.Index))
		putSlice(e, f.InParams, e.typ)
		putSlice(e, f.OutParams, e.typ)
		e.typ(f.Return)
		e.block(f.Block)
	})
	e.block(p.VertexFunc.Block)
	e.block(p.FragmentFunc.Block)
	e.buf = append(e.buf, p.SourceID[:]...)
	e.bytes(p.FragmentSource)
	return e.buf, e.err
}

// Decode returns the program Encode wrote into b.
func Decode(b []byte) (p *shaderir.Program, err error) {
	d := &decoder{buf: b}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(decodeError)
			if !ok {
				panic(r)
			}
			p, err = nil, e.error
		}
	}()
	p = &shaderir.Program{}
	p.UniformNames = getSlice(d, d.str)
	p.Uniforms = getSlice(d, d.typ)
	p.TextureCount = int(d.int())
	p.Attributes = getSlice(d, d.typ)
	p.Varyings = getSlice(d, d.typ)
	p.Funcs = getSlice(d, func() shaderir.Func {
		return shaderir.Func{
			Index:     int(d.int()),
			InParams:  getSlice(d, d.typ),
			OutParams: getSlice(d, d.typ),
			Return:    d.typ(),
			Block:     d.block(),
		}
	})
	p.VertexFunc.Block = d.block()
	p.FragmentFunc.Block = d.block()
	copy(p.SourceID[:], d.take(len(p.SourceID)))
	p.FragmentSource = d.bytes()
	if len(d.buf) != 0 {
		return nil, fmt.Errorf("headlabir: %d bytes after the program", len(d.buf))
	}
	return p, nil
}

// The form: integers as (zig-zag) varints; a slice as 0 when nil, else its
// length plus one, then its elements; a pointer to a block as 0 (nil) or
// 1 and the block; a string as a slice of bytes. Fields go in the order of
// their declaration. Go evaluates a composite literal's elements in order,
// so the decoder may read fields inside one.

type encoder struct {
	buf []byte
	err error
}

// putSlice writes s: 0 if nil, else its length plus one and each element
// by put.
func putSlice[T any](e *encoder, s []T, put func(T)) {
	if s == nil {
		e.uint(0)
		return
	}
	e.uint(uint64(len(s)) + 1)
	for _, x := range s {
		put(x)
	}
}

func (e *encoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) int(v int64)   { e.buf = binary.AppendVarint(e.buf, v) }

func (e *encoder) bytes(b []byte) {
	putSlice(e, b, func(c byte) { e.buf = append(e.buf, c) })
}

func (e *encoder) str(s string) { e.bytes([]byte(s)) }

func (e *encoder) typ(t shaderir.Type) {
	e.int(int64(t.Main))
	putSlice(e, t.Sub, e.typ)
	e.int(int64(t.Length))
}

func (e *encoder) block(b *shaderir.Block) {
	if b == nil {
		e.uint(0)
		return
	}
	e.uint(1)
	putSlice(e, b.LocalVars, e.typ)
	e.int(int64(b.LocalVarIndexOffset))
	putSlice(e, b.Stmts, func(s shaderir.Stmt) {
		e.int(int64(s.Type))
		putSlice(e, s.Exprs, e.expr)
		putSlice(e, s.Blocks, e.block)
		e.typ(s.ForVarType)
		e.int(int64(s.ForVarIndex))
		e.constant(s.ForInit)
		e.constant(s.ForEnd)
		e.int(int64(s.ForOp))
		e.constant(s.ForDelta)
		e.int(int64(s.InitIndex))
	})
}

func (e *encoder) expr(x shaderir.Expr) {
	e.int(int64(x.Type))
	putSlice(e, x.Exprs, e.expr)
	e.constant(x.Const)
	e.str(string(x.BuiltinFunc))
	e.str(x.Swizzling)
	e.int(int64(x.Index))
	e.int(int64(x.Op))
}

// Constants: 0 none, 1 an int64, 2 a rational (numerator, denominator).
func (e *encoder) constant(v constant.Value) {
	switch {
	case v == nil:
		e.uint(0)
	case v.Kind() == constant.Int:
		i, exact := constant.Int64Val(v)
		if !exact {
			e.fail(fmt.Errorf("headlabir: an integer constant beyond int64: %s", v))
			return
		}
		e.uint(1)
		e.int(i)
	case v.Kind() == constant.Float:
		r, ok := constant.Val(v).(*big.Rat)
		if !ok {
			e.fail(fmt.Errorf("headlabir: a float constant that is not a rational: %s", v))
			return
		}
		e.uint(2)
		e.str(r.Num().String())
		e.str(r.Denom().String())
	default:
		e.fail(fmt.Errorf("headlabir: a %s constant, which the form does not hold: %s", v.Kind(), v))
	}
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

type decodeError struct{ error }

type decoder struct{ buf []byte }

func (d *decoder) fail(format string, args ...any) {
	panic(decodeError{fmt.Errorf("headlabir: "+format, args...)})
}

// getSlice reads what putSlice wrote, each element by get. No element
// takes less than a byte, so a length beyond the bytes left is refused
// before anything is made.
func getSlice[T any](d *decoder, get func() T) []T {
	n := d.uint()
	if n == 0 {
		return nil
	}
	if n-1 > uint64(len(d.buf)) {
		d.fail("a length of %d with %d bytes left", n-1, len(d.buf))
	}
	s := make([]T, n-1)
	for i := range s {
		s[i] = get()
	}
	return s
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.fail("a bad varint")
	}
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.buf)
	if n <= 0 {
		d.fail("a bad varint")
	}
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) take(n int) []byte {
	if n > len(d.buf) {
		d.fail("%d bytes wanted, %d left", n, len(d.buf))
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b
}

func (d *decoder) byte() byte { return d.take(1)[0] }

func (d *decoder) bytes() []byte { return getSlice(d, d.byte) }

func (d *decoder) str() string { return string(d.bytes()) }

func (d *decoder) typ() shaderir.Type {
	return shaderir.Type{
		Main:   shaderir.BasicType(d.int()),
		Sub:    getSlice(d, d.typ),
		Length: int(d.int()),
	}
}

func (d *decoder) block() *shaderir.Block {
	switch d.uint() {
	case 0:
		return nil
	case 1:
	default:
		d.fail("a bad block marker")
	}
	return &shaderir.Block{
		LocalVars:           getSlice(d, d.typ),
		LocalVarIndexOffset: int(d.int()),
		Stmts: getSlice(d, func() shaderir.Stmt {
			return shaderir.Stmt{
				Type:        shaderir.StmtType(d.int()),
				Exprs:       getSlice(d, d.expr),
				Blocks:      getSlice(d, d.block),
				ForVarType:  d.typ(),
				ForVarIndex: int(d.int()),
				ForInit:     d.constant(),
				ForEnd:      d.constant(),
				ForOp:       shaderir.Op(d.int()),
				ForDelta:    d.constant(),
				InitIndex:   int(d.int()),
			}
		}),
	}
}

func (d *decoder) expr() shaderir.Expr {
	return shaderir.Expr{
		Type:        shaderir.ExprType(d.int()),
		Exprs:       getSlice(d, d.expr),
		Const:       d.constant(),
		BuiltinFunc: shaderir.BuiltinFunc(d.str()),
		Swizzling:   d.str(),
		Index:       int(d.int()),
		Op:          shaderir.Op(d.int()),
	}
}

func (d *decoder) constant() constant.Value {
	switch d.uint() {
	case 0:
		return nil
	case 1:
		return constant.MakeInt64(d.int())
	case 2:
		num, ok1 := new(big.Int).SetString(d.str(), 10)
		den, ok2 := new(big.Int).SetString(d.str(), 10)
		if !ok1 || !ok2 || den.Sign() == 0 {
			d.fail("a bad rational constant")
		}
		return constant.Make(new(big.Rat).SetFrac(num, den))
	}
	d.fail("a bad constant marker")
	return nil
}
