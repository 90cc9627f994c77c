// Package ebitenpatch builds the canvas against a patched copy of ebiten,
// changed in three ways.
//
// It replaces the two files of ebiten that write its built-in shaders with
// text/template: our copies, in internal/ here at ebiten's own paths, write
// the same Kage sources byte for byte with plain string code. ebiten's
// template engine reaches reflect's MethodByName, which makes the linker
// keep every exported method of every type stored in an interface (all of
// gonum's BLAS and LAPACK, in the canvas); without it the canvas wasm is
// about a third smaller (wasm/README.md, "Size").
//
// And it guards ebiten's package initialisation where there is no page
// (WorkerEdits), so that the canvas's program can start in a Web Worker,
// where it runs the compute worker instead of ebiten: one wasm for both.
// Three lines that read the page would panic there, and the compilation of
// the built-in shaders, which only drawing needs, would cost the worker's
// first jobs their speed. The edits are textual; worker_test.go proves that
// applied to the pinned upstream files they give exactly the files in
// testdata/worker, and that ebiten then initialises without a document.
//
// And it compiles ebiten's three built-in shaders at build time
// (GenerateIR): internal/atlas's init compiled them from their Kage
// sources at every start, about a second of the page's main thread in the
// browser here, and now decodes programs the copy's own compiler wrote and
// checked (wasm/README.md, "Start-up on the page's main thread").
//
// go build's -overlay cannot replace files in the module cache, so Prepare
// copies ebiten's module into a build folder, writes our files over the
// copy, and writes a go.mod for go build's -modfile flag that is headlab's
// with ebiten replaced by the copy; build.sh builds the canvas with it
// (through cmd/prepare). The replacements and edits are checked against one
// ebiten version only (Version; patch_test.go proves the shaders' output
// identical to upstream's for every filter and address), and Prepare refuses
// any other.
package ebitenpatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Path is ebiten's module path.
const Path = "github.com/hajimehoshi/ebiten/v2"

// Version is the ebiten version whose files the replacements were checked
// against. go.mod must require exactly this version for the patch to apply.
const Version = "v2.10.4"

// Files are the replaced files, relative to ebiten's module root; each one's
// replacement has the same path relative to this package's directory.
var Files = []string{
	"internal/builtinshader/shader.go",
	"internal/colormshader/shader.go",
}

// Added are files of ours that the patched copy has and upstream has not:
// each is copied from From, relative to this package's directory, to To,
// relative to ebiten's module root.
//   - internal/atlas's noDocument, which WorkerEdits' guard of its init
//     calls: shader.go is built for every platform and cannot import
//     syscall/js. The files are a package here too, with its tests.
//   - internal/headlabir, ebiten's built-in shaders compiled at build
//     time (GenerateIR), which atlas's patched init decodes instead of
//     compiling their Kage sources at every start. It imports ebiten's
//     internal packages, so here it lives under _ebiten, which the go
//     command ignores.
var Added = []struct{ From, To string }{
	{"internal/atlas/document_js.go", "internal/atlas/document_js.go"},
	{"internal/atlas/document_other.go", "internal/atlas/document_other.go"},
	{"_ebiten/internal/headlabir/codec.go", "internal/headlabir/codec.go"},
	{"_ebiten/internal/headlabir/codec_test.go", "internal/headlabir/codec_test.go"},
	{"_ebiten/internal/headlabir/gen/main.go", "internal/headlabir/gen/main.go"},
}

// irFile is the file GenerateIR writes in the copy, and irGen the command
// that writes it.
const (
	irFile = "internal/headlabir/programs.go"
	irGen  = Path + "/internal/headlabir/gen"
)

// Module is ebiten's module as the go command resolves it for headlab.
type Module struct {
	Version string
	Dir     string // the module's files (in the module cache)
	Replace *struct{ Path, Version string }
}

// Resolve asks goCmd, run in dir (inside headlab's module), which ebiten
// module the build uses.
func Resolve(goCmd, dir string) (Module, error) {
	cmd := exec.Command(goCmd, "list", "-m", "-json", Path)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Module{}, fmt.Errorf("go list -m %s: %v\n%s", Path, err, stderr.Bytes())
	}
	var m Module
	if err := json.Unmarshal(out, &m); err != nil {
		return Module{}, fmt.Errorf("go list -m %s: %v", Path, err)
	}
	return m, nil
}

// Check returns an error unless m is the ebiten release the replacements
// were checked against.
func (m Module) Check() error {
	if m.Replace != nil {
		return fmt.Errorf("go.mod replaces %s with %s; the patch (wasm/ebitenpatch) was checked against %s %s only",
			Path, strings.TrimSpace(m.Replace.Path+" "+m.Replace.Version), Path, Version)
	}
	if m.Version != Version {
		return fmt.Errorf("go.mod requires %s %s, but the patch (wasm/ebitenpatch) was checked against %s only: "+
			"compare ebiten's %v with ours and its %v with WorkerEdits, update them and Version, and run their tests",
			Path, m.Version, Version, Files, EditedFiles(WorkerEdits()))
	}
	if m.Dir == "" {
		return fmt.Errorf("%s %s is not downloaded (go mod download)", Path, m.Version)
	}
	return nil
}

// Prepare writes, in out (emptied first), a copy of ebiten's module m with
// Files replaced by ours from patchDir (this package's directory), Added
// added from there, WorkerEdits made and the built-in shaders' programs
// generated (GenerateIR, with goCmd), and go.mod and go.sum: headlab's
// (from modRoot) with ebiten replaced by the copy. It returns the go.mod's
// path, for go build's -modfile flag, and refuses a module that fails
// Check. A build through the go.mod records the copy's path relative to
// modRoot: out at the same place in every checkout (build.sh's
// build/ebitenpatch) gives the same bytes.
func Prepare(goCmd string, m Module, patchDir, modRoot, out string) (string, error) {
	if err := m.Check(); err != nil {
		return "", err
	}
	out, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	modRoot, err = filepath.Abs(modRoot)
	if err != nil {
		return "", err
	}
	if err := os.RemoveAll(out); err != nil {
		return "", err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	copyDir := filepath.Join(out, "ebiten")
	// The go.mod first: it makes out a module of its own at once, which
	// headlab's ./... patterns (go vet, go test) skip even mid-copy. The
	// replacement is a path relative to the module's root, where the go
	// command resolves it: the linked program records it, and a checkout's
	// absolute path would make the canvas's bytes differ between checkouts.
	mod, err := os.ReadFile(filepath.Join(modRoot, "go.mod"))
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(modRoot, copyDir)
	if err != nil {
		return "", err
	}
	if rel = filepath.ToSlash(rel); !strings.HasPrefix(rel, "../") {
		rel = "./" + rel
	}
	mod = fmt.Appendf(mod, "\n// Written by headlab/wasm/ebitenpatch: ebiten with its shaders written without text/template and its init guarded for Web Workers.\nreplace %s %s => %s\n", Path, Version, rel)
	modfile := filepath.Join(out, "go.mod")
	if err := os.WriteFile(modfile, mod, 0o644); err != nil {
		return "", err
	}
	if err := copyFile(filepath.Join(modRoot, "go.sum"), filepath.Join(out, "go.sum")); err != nil {
		return "", err
	}
	if err := copyTree(m.Dir, copyDir); err != nil {
		return "", fmt.Errorf("copying %s %s: %w", Path, m.Version, err)
	}
	for _, f := range Files {
		f = filepath.FromSlash(f)
		if _, err := os.Stat(filepath.Join(copyDir, f)); err != nil {
			return "", fmt.Errorf("%s %s has no file to replace: %w", Path, m.Version, err)
		}
		if err := copyFile(filepath.Join(patchDir, f), filepath.Join(copyDir, f)); err != nil {
			return "", err
		}
	}
	for _, a := range Added {
		to := filepath.Join(copyDir, filepath.FromSlash(a.To))
		if _, err := os.Stat(to); err == nil {
			return "", fmt.Errorf("%s %s already has %s, which the patch adds", Path, m.Version, a.To)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return "", err
		}
		if err := copyFile(filepath.Join(patchDir, filepath.FromSlash(a.From)), to); err != nil {
			return "", err
		}
	}
	edits := WorkerEdits()
	for _, f := range EditedFiles(edits) {
		name := filepath.Join(copyDir, filepath.FromSlash(f))
		src, err := os.ReadFile(name)
		if err != nil {
			return "", fmt.Errorf("%s %s has no file to edit: %w", Path, m.Version, err)
		}
		b, err := Apply(f, src, edits)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(name, b, 0o644); err != nil {
			return "", err
		}
	}
	if err := GenerateIR(goCmd, modRoot, modfile, filepath.Join(copyDir, filepath.FromSlash(irFile))); err != nil {
		return "", err
	}
	return modfile, nil
}

// GenerateIR writes file, the copy's headlabir/programs.go: ebiten's
// built-in shaders compiled by the copy's own shader compiler, which
// atlas's patched init decodes at start instead of compiling them (in the
// browser that compilation held the page's main thread for about a second
// at every start; README.md, Performance). It runs the copy's
// headlabir/gen natively with goCmd in modRoot, through modfile (the
// copy's go.mod from Prepare); gen writes nothing unless each program
// decodes to exactly the compiler's.
func GenerateIR(goCmd, modRoot, modfile, file string) error {
	cmd := exec.Command(goCmd, "run", "-modfile", modfile, irGen, file, Version)
	cmd.Dir = modRoot
	// The generator runs here, whatever the caller builds for.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOOS=") && !strings.HasPrefix(kv, "GOARCH=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("generating the built-in shaders' programs (%s): %v\n%s", irGen, err, out)
	}
	return nil
}

// copyTree copies the regular files under src to dst, writable.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case d.Type().IsRegular():
			return copyFile(p, filepath.Join(dst, rel))
		}
		return nil
	})
}

// copyFile copies the file src to dst, writable.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
