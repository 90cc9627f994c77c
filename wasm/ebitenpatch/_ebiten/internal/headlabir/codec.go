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
	e.strings(p.UniformNames)
	e.types(p.Uniforms)
	e.int(int64(p.TextureCount))
	e.types(p.Attributes)
	e.types(p.Varyings)
	if p.Funcs == nil {
		e.uint(0)
	} else {
		e.uint(uint64(len(p.Funcs)) + 1)
		for _, f := range p.Funcs {
			e.int(int64(f.Index))
			e.types(f.InParams)
			e.types(f.OutParams)
			e.typ(f.Return)
			e.block(f.Block)
		}
	}
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
	p.UniformNames = d.strings()
	p.Uniforms = d.types()
	p.TextureCount = int(d.int())
	p.Attributes = d.types()
	p.Varyings = d.types()
	if n := d.uint(); n > 0 {
		p.Funcs = make([]shaderir.Func, d.count(n-1))
		for i := range p.Funcs {
			f := &p.Funcs[i]
			f.Index = int(d.int())
			f.InParams = d.types()
			f.OutParams = d.types()
			f.Return = d.typ()
			f.Block = d.block()
		}
	}
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
// 1 and the block; a string or byte slice as a slice of bytes.

type encoder struct {
	buf []byte
	err error
}

func (e *encoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) int(v int64)   { e.buf = binary.AppendVarint(e.buf, v) }

func (e *encoder) bytes(b []byte) {
	if b == nil {
		e.uint(0)
		return
	}
	e.uint(uint64(len(b)) + 1)
	e.buf = append(e.buf, b...)
}

func (e *encoder) strings(s []string) {
	if s == nil {
		e.uint(0)
		return
	}
	e.uint(uint64(len(s)) + 1)
	for _, x := range s {
		e.bytes([]byte(x))
	}
}

func (e *encoder) typ(t shaderir.Type) {
	e.int(int64(t.Main))
	e.types(t.Sub)
	e.int(int64(t.Length))
}

func (e *encoder) types(ts []shaderir.Type) {
	if ts == nil {
		e.uint(0)
		return
	}
	e.uint(uint64(len(ts)) + 1)
	for _, t := range ts {
		e.typ(t)
	}
}

func (e *encoder) block(b *shaderir.Block) {
	if b == nil {
		e.uint(0)
		return
	}
	e.uint(1)
	e.types(b.LocalVars)
	e.int(int64(b.LocalVarIndexOffset))
	if b.Stmts == nil {
		e.uint(0)
		return
	}
	e.uint(uint64(len(b.Stmts)) + 1)
	for _, s := range b.Stmts {
		e.int(int64(s.Type))
		e.exprs(s.Exprs)
		if s.Blocks == nil {
			e.uint(0)
		} else {
			e.uint(uint64(len(s.Blocks)) + 1)
			for _, b := range s.Blocks {
				e.block(b)
			}
		}
		e.typ(s.ForVarType)
		e.int(int64(s.ForVarIndex))
		e.constant(s.ForInit)
		e.constant(s.ForEnd)
		e.int(int64(s.ForOp))
		e.constant(s.ForDelta)
		e.int(int64(s.InitIndex))
	}
}

func (e *encoder) exprs(xs []shaderir.Expr) {
	if xs == nil {
		e.uint(0)
		return
	}
	e.uint(uint64(len(xs)) + 1)
	for _, x := range xs {
		e.int(int64(x.Type))
		e.exprs(x.Exprs)
		e.constant(x.Const)
		e.bytes([]byte(x.BuiltinFunc))
		e.bytes([]byte(x.Swizzling))
		e.int(int64(x.Index))
		e.int(int64(x.Op))
	}
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
		e.bytes([]byte(r.Num().String()))
		e.bytes([]byte(r.Denom().String()))
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

// count checks a length against what is left: no element takes less than
// a byte.
func (d *decoder) count(n uint64) int {
	if n > uint64(len(d.buf)) {
		d.fail("a length of %d with %d bytes left", n, len(d.buf))
	}
	return int(n)
}

func (d *decoder) take(n int) []byte {
	if n > len(d.buf) {
		d.fail("%d bytes wanted, %d left", n, len(d.buf))
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b
}

func (d *decoder) bytes() []byte {
	n := d.uint()
	if n == 0 {
		return nil
	}
	return append([]byte{}, d.take(d.count(n-1))...)
}

func (d *decoder) str() string { return string(d.bytes()) }

func (d *decoder) strings() []string {
	n := d.uint()
	if n == 0 {
		return nil
	}
	s := make([]string, d.count(n-1))
	for i := range s {
		s[i] = d.str()
	}
	return s
}

func (d *decoder) typ() shaderir.Type {
	var t shaderir.Type
	t.Main = shaderir.BasicType(d.int())
	t.Sub = d.types()
	t.Length = int(d.int())
	return t
}

func (d *decoder) types() []shaderir.Type {
	n := d.uint()
	if n == 0 {
		return nil
	}
	ts := make([]shaderir.Type, d.count(n-1))
	for i := range ts {
		ts[i] = d.typ()
	}
	return ts
}

func (d *decoder) block() *shaderir.Block {
	switch d.uint() {
	case 0:
		return nil
	case 1:
	default:
		d.fail("a bad block marker")
	}
	b := &shaderir.Block{}
	b.LocalVars = d.types()
	b.LocalVarIndexOffset = int(d.int())
	n := d.uint()
	if n == 0 {
		return b
	}
	b.Stmts = make([]shaderir.Stmt, d.count(n-1))
	for i := range b.Stmts {
		s := &b.Stmts[i]
		s.Type = shaderir.StmtType(d.int())
		s.Exprs = d.exprs()
		if m := d.uint(); m > 0 {
			s.Blocks = make([]*shaderir.Block, d.count(m-1))
			for j := range s.Blocks {
				s.Blocks[j] = d.block()
			}
		}
		s.ForVarType = d.typ()
		s.ForVarIndex = int(d.int())
		s.ForInit = d.constant()
		s.ForEnd = d.constant()
		s.ForOp = shaderir.Op(d.int())
		s.ForDelta = d.constant()
		s.InitIndex = int(d.int())
	}
	return b
}

func (d *decoder) exprs() []shaderir.Expr {
	n := d.uint()
	if n == 0 {
		return nil
	}
	xs := make([]shaderir.Expr, d.count(n-1))
	for i := range xs {
		x := &xs[i]
		x.Type = shaderir.ExprType(d.int())
		x.Exprs = d.exprs()
		x.Const = d.constant()
		x.BuiltinFunc = shaderir.BuiltinFunc(d.str())
		x.Swizzling = d.str()
		x.Index = int(d.int())
		x.Op = shaderir.Op(d.int())
	}
	return xs
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
