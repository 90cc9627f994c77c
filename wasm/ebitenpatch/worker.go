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
// finish where there is no document: in a Web Worker, where headlab runs
// the canvas's wasm as its compute worker and never starts ebiten.
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
func WorkerEdits() []Edit {
	return []Edit{
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

// ifDocument returns f() where there is a document, and undefined where
// there is none (a Web Worker, which runs this package's program without
// ever running ebiten). Added by headlab (wasm/ebitenpatch).
func ifDocument(f func() js.Value) js.Value {
	if !document.Truthy() {
		return js.Undefined()
	}
	return f()
}
`,
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
