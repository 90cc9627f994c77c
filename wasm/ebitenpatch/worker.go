package ebitenpatch

import (
	"bytes"
	"fmt"
)

// Edit is one textual change to one of ebiten's files: Old, which must
// occur exactly once in upstream's File (relative to the module's root),
// becomes New.
type Edit struct {
	File, Old, New string
}

// WorkerEdits returns the edits that let ebiten's package initialisation
// finish, and finish cheaply, where there is no document: in a Web Worker,
// where headlab runs the canvas's wasm as its compute worker and never
// starts ebiten.
//
// Upstream's initialisation for GOOS=js reads the page in three places
// whose reads panic without one (syscall/js panics on a property of
// undefined): internal/ui binds document.hasFocus and the getter of
// Document.prototype.hidden, and internal/colormode reads
// window.matchMedia. Every other package-level read of a global in the
// packages the canvas links (ArrayBuffer and the typed arrays, Object,
// navigator.keyboard, requestAnimationFrame, screen, setTimeout) only
// reads a property of the global object, which a worker has or leaves
// undefined, and ui's own set-up (creating the canvas, the listeners)
// already returns early when document is undefined. The guarded lines
// compute exactly upstream's values when a document exists, at the same
// point of initialisation, and undefined otherwise.
//
// And internal/atlas compiles ebiten's three built-in shaders at init:
// go/parser parses their Kage sources, and internal/shader walks the tree.
// In a worker that work is wasted, and worse: the browser finds the shader
// compiler's functions hot and compiles them (the largest,
// compileState.parseExpr, for a long time) with its optimising compiler,
// whose threads the worker's first jobs need for the numerics (the
// measurements are in wasm/README.md). Where there is no document the
// init returns at once; the shaders stay nil, and nothing in a worker
// draws. Where there is one, the init does not compile them either: the
// same two edits of shader.go swap its imports and its compilation for
// headlabir's programs, compiled at build time (GenerateIR). Those edits
// are about the canvas, not the worker; they sit here because they change
// the same init. The same holds, on a smaller scale, for internal/ui's two
// keyboard tables: their 174 entries, each a call at init, make the
// package's init function large enough for the browser to compile it too;
// without a document they are left nil, which ranges and lookups read as
// empty.
func WorkerEdits() []Edit {
	return []Edit{
		{
			File: "internal/atlas/shader.go",
			Old: `import (
	"fmt"
	"runtime"
	"sync"
	"weak"

	"golang.org/x/sync/errgroup"

	"github.com/hajimehoshi/ebiten/v2/internal/builtinshader"
	"github.com/hajimehoshi/ebiten/v2/internal/graphicscommand"
	"github.com/hajimehoshi/ebiten/v2/internal/legacyshader"
	"github.com/hajimehoshi/ebiten/v2/internal/shaderir"
)
`,
			New: `import (
	"runtime"
	"sync"
	"weak"

	"github.com/hajimehoshi/ebiten/v2/internal/graphicscommand"
	"github.com/hajimehoshi/ebiten/v2/internal/headlabir"
	"github.com/hajimehoshi/ebiten/v2/internal/shaderir"
)
`,
		},
		{
			File: "internal/atlas/shader.go",
			Old: `func init() {
	var wg errgroup.Group
	var nearestIR, linearIR, clearIR *shaderir.Program
	// Compile through legacyshader, the same path a user's shader takes. A source ID identifies the
	// source the core compiles, and shader precompilation knows only the IDs from that path.
	wg.Go(func() error {
		ir, _, err := legacyshader.CompileShader(builtinshader.ShaderSource(builtinshader.FilterNearest, builtinshader.AddressUnsafe))
		if err != nil {
			return fmt.Errorf("atlas: compiling the nearest shader failed: %w", err)
		}
		nearestIR = ir
		return nil
	})
	wg.Go(func() error {
		ir, _, err := legacyshader.CompileShader(builtinshader.ShaderSource(builtinshader.FilterLinear, builtinshader.AddressUnsafe))
		if err != nil {
			return fmt.Errorf("atlas: compiling the linear shader failed: %w", err)
		}
		linearIR = ir
		return nil
	})
	wg.Go(func() error {
		ir, _, err := legacyshader.CompileShader([]byte(builtinshader.ClearShaderSource))
		if err != nil {
			return fmt.Errorf("atlas: compiling the clear shader failed: %w", err)
		}
		clearIR = ir
		return nil
	})
	if err := wg.Wait(); err != nil {
		panic(err)
	}
	NearestFilterShader`,
			New: `func init() {
	// Nothing draws where there is no document (a Web Worker, which runs
	// this package's program without ever running ebiten): the shaders
	// are not made there. Guard added by headlab (wasm/ebitenpatch).
	if noDocument() {
		return
	}
	// The three programs come compiled from the build: headlabir/gen,
	// added by headlab (wasm/ebitenpatch), compiled through legacyshader
	// the sources this init compiled here upstream (the nearest and the
	// linear filter's with the unsafe address, and the clear shader), and
	// checked that the programs decode to exactly the compiler's.
	nearestIR, linearIR, clearIR, err := headlabir.Programs()
	if err != nil {
		panic(err)
	}
	NearestFilterShader`,
		},
		{
			File: "internal/ui/ui_js.go",
			Old: `var (
	documentHasFocus = document.Get("hasFocus").Call("bind", document)
	documentHidden   = js.Global().Get("Object").Call("getOwnPropertyDescriptor", js.Global().Get("Document").Get("prototype"), "hidden").Get("get").Call("bind", document)
)
`,
			New: `var (
	documentHasFocus = ifDocument(func() js.Value { return document.Get("hasFocus").Call("bind", document) })
	documentHidden   = ifDocument(func() js.Value {
		return js.Global().Get("Object").Call("getOwnPropertyDescriptor", js.Global().Get("Document").Get("prototype"), "hidden").Get("get").Call("bind", document)
	})
)

// ifDocument returns f() where there is a document, and T's zero value
// where there is none (a Web Worker, which runs this package's program
// without ever running ebiten): undefined for a js.Value, nil for the
// keyboard's tables, whose 174 strings made one by one at init are of no
// use in a worker. Added by headlab (wasm/ebitenpatch).
func ifDocument[T any](f func() T) T {
	if !document.Truthy() {
		var zero T
		return zero
	}
	return f()
}
`,
		},
		{
			File: "internal/ui/keys_js.go",
			Old:  "var uiKeyToJSCode = map[Key]js.Value{\n",
			New:  "var uiKeyToJSCode = ifDocument(func() map[Key]js.Value { return map[Key]js.Value{\n",
		},
		{
			File: "internal/ui/keys_js.go",
			Old:  "\tKeyZ:              js.ValueOf(\"KeyZ\"),\n}\n",
			New:  "\tKeyZ:              js.ValueOf(\"KeyZ\"),\n}})\n",
		},
		{
			File: "internal/ui/input_js.go",
			Old:  "var uiKeyToJSKey = map[Key]js.Value{\n",
			New:  "var uiKeyToJSKey = ifDocument(func() map[Key]js.Value { return map[Key]js.Value{\n",
		},
		{
			File: "internal/ui/input_js.go",
			Old:  "\tKeyNumpad9:        js.ValueOf(\"9\"),\n}\n",
			New:  "\tKeyNumpad9:        js.ValueOf(\"9\"),\n}})\n",
		},
		{
			File: "internal/colormode/colormode_js.go",
			Old: `var (
	matchMedia = js.Global().Get("window").Get("matchMedia")
)
`,
			New: `var (
	// Undefined where there is no document (a Web Worker, which has no
	// window either): systemColorMode then says Unknown. Guard added by
	// headlab (wasm/ebitenpatch).
	matchMedia = func() js.Value {
		if !js.Global().Get("document").Truthy() {
			return js.Undefined()
		}
		return js.Global().Get("window").Get("matchMedia")
	}()
)
`,
		},
	}
}

// EditedFiles returns the files edits change, each once, in order.
func EditedFiles(edits []Edit) []string {
	var files []string
	seen := map[string]bool{}
	for _, e := range edits {
		if !seen[e.File] {
			seen[e.File] = true
			files = append(files, e.File)
		}
	}
	return files
}

// Apply returns src, the upstream text of file, with every edit of edits
// for that file made. It fails if an edit's Old does not occur in src
// exactly once: the file is not the one the edit was written against.
func Apply(file string, src []byte, edits []Edit) ([]byte, error) {
	out := src
	for _, e := range edits {
		if e.File != file {
			continue
		}
		if n := bytes.Count(out, []byte(e.Old)); n != 1 {
			return nil, fmt.Errorf("%s %s: %s: the text to guard occurs %d times, want once", Path, Version, file, n)
		}
		out = bytes.Replace(out, []byte(e.Old), []byte(e.New), 1)
	}
	return out, nil
}
