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
// first jobs their speed. The edits are textual: each one's old text must
// occur exactly once in the pinned upstream file (go.sum pins its bytes),
// and worker_test.go proves that ebiten then initialises without a
// document, and fails to without the edits.
//
// And it compiles ebiten's three built-in shaders at build time
// (GenerateIR): internal/atlas's init compiled them from their Kage
// sources at every start, on the page's main thread, and now decodes
// programs the copy's own compiler wrote and checked (wasm/README.md,
// "Start-up on the page's main thread", has the measurements).
//
// go build's -overlay cannot replace files in the module cache, so Prepare
// copies ebiten's module into CopyDir and writes our files over the copy;
// the repository's go.work replaces ebiten with it (Work), so the canvas's
// build and every Go tool see the patched ebiten once ./build.sh build has
// written it (through cmd/prepare). The replacements and edits are checked
// against one ebiten version only (Version; patch_test.go proves the
// shaders' output identical to upstream's for every filter and address),
// and Prepare refuses any other.
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
// module go.mod requires (the workspace, whose go.work replaces it with the
// patched copy, left aside).
func Resolve(goCmd, dir string) (Module, error) {
	cmd := exec.Command(goCmd, "list", "-m", "-json", Path)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
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

// CopyDir is where the patched copy lives, relative to headlab's module
// root: the repository's go.work replaces ebiten with it, so that every Go
// tool (go build, go vet, gopls) sees the ebiten the canvas ships with.
// Only ebiten's go.mod is committed there, which lets the go command load
// the module graph in a fresh clone; ./build.sh build writes the rest
// (cmd/prepare).
const CopyDir = "wasm/ebitenpatch/ebiten"

// Work returns a go.work that builds the module in use against the patched
// copy in copyDir (both relative to the go.work's folder, as the go command
// reads them) with the go directive goVersion. The repository's go.work is
// Work(go.mod's go version, ".", "./"+CopyDir); a test holds it to that.
// The replacement names Version: were go.mod to require another ebiten,
// the tools would see that one unpatched, and Prepare refuses it.
func Work(goVersion, use, copyDir string) []byte {
	return fmt.Appendf(nil, `// Every Go tool builds headlab against ebiten as the canvas ships it: the
// copy patched by wasm/ebitenpatch, which ./build.sh build writes at the
// replacement's path (only ebiten's go.mod is committed there). Written by
// ebitenpatch.Work; its test checks this file against it.
go %s

use %s

replace %s %s => %s
`, goVersion, use, Path, Version, copyDir)
}

// GoVersion returns the go directive of the go.mod in modRoot.
func GoVersion(modRoot string) (string, error) {
	b, err := os.ReadFile(filepath.Join(modRoot, "go.mod"))
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("%s has no go directive", filepath.Join(modRoot, "go.mod"))
}

// Prepare writes, in dir, a copy of ebiten's module m with Files replaced
// by ours from patchDir (this package's directory), Added added from
// there, WorkerEdits made and the built-in shaders' programs generated
// (GenerateIR, with goCmd through the go.work file work, which must
// replace ebiten with dir). It refuses a module that fails Check. dir is
// emptied first, except for a go.mod, which must be upstream's: the
// repository commits it at CopyDir.
func Prepare(goCmd string, m Module, patchDir, work, dir string) error {
	if err := m.Check(); err != nil {
		return err
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	upMod, err := os.ReadFile(filepath.Join(m.Dir, "go.mod"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == "go.mod" {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return err
			}
			if !bytes.Equal(b, upMod) {
				return fmt.Errorf("%s differs from the go.mod of %s %s: the copy must be of the version the patch was checked against",
					filepath.Join(dir, "go.mod"), Path, Version)
			}
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	// The go.mod first: it makes dir a module of its own at once, which
	// headlab's ./... patterns (go vet, go test) skip even mid-copy.
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), upMod, 0o644); err != nil {
		return err
	}
	if err := copyTree(m.Dir, dir); err != nil {
		return fmt.Errorf("copying %s %s: %w", Path, m.Version, err)
	}
	for _, f := range Files {
		f = filepath.FromSlash(f)
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return fmt.Errorf("%s %s has no file to replace: %w", Path, m.Version, err)
		}
		if err := copyFile(filepath.Join(patchDir, f), filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	for _, a := range Added {
		to := filepath.Join(dir, filepath.FromSlash(a.To))
		if _, err := os.Stat(to); err == nil {
			return fmt.Errorf("%s %s already has %s, which the patch adds", Path, m.Version, a.To)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := copyFile(filepath.Join(patchDir, filepath.FromSlash(a.From)), to); err != nil {
			return err
		}
	}
	edits := WorkerEdits()
	for _, f := range EditedFiles(edits) {
		name := filepath.Join(dir, filepath.FromSlash(f))
		src, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("%s %s has no file to edit: %w", Path, m.Version, err)
		}
		b, err := Apply(f, src, edits)
		if err != nil {
			return err
		}
		if err := os.WriteFile(name, b, 0o644); err != nil {
			return err
		}
	}
	return GenerateIR(goCmd, work, filepath.Join(dir, filepath.FromSlash(irFile)))
}

// GenerateIR writes file, the copy's headlabir/programs.go: ebiten's
// built-in shaders compiled by the copy's own shader compiler, which
// atlas's patched init decodes at start instead of compiling them
// (wasm/README.md). It runs the copy's headlabir/gen
// natively with goCmd through the go.work file work; gen writes nothing
// unless each program decodes to exactly the compiler's.
func GenerateIR(goCmd, work, file string) error {
	cmd := exec.Command(goCmd, "run", irGen, file, Version)
	cmd.Dir = filepath.Dir(work)
	// The generator runs here, whatever the caller builds for.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOOS=") && !strings.HasPrefix(kv, "GOARCH=") && !strings.HasPrefix(kv, "GOWORK=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GOWORK="+work)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("generating the built-in shaders' programs (%s): %v\n%s", irGen, err, out)
	}
	return nil
}

// copyTree copies the regular files under src to dst, writable, except
// the go.mod at its root, which Prepare writes first.
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
		case d.Type().IsRegular() && rel != "go.mod":
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
