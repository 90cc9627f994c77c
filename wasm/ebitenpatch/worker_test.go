package ebitenpatch

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkerEdits applies WorkerEdits to the pinned upstream files (go.sum
// pins their bytes, and each edit's old text must occur there once, so
// the edits alone fix the result): each file must change and still parse,
// and an edit must refuse a file it was not written against.
func TestWorkerEdits(t *testing.T) {
	m := resolve(t)
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	for _, a := range Added {
		if _, err := os.Stat(filepath.FromSlash(a.From)); err != nil {
			t.Errorf("an added file is missing here: %v", err)
		}
		if _, err := os.Stat(filepath.Join(m.Dir, filepath.FromSlash(a.To))); err == nil {
			t.Errorf("%s %s has %s, which the patch would add", Path, Version, a.To)
		}
	}
	edits := WorkerEdits()
	files := EditedFiles(edits)
	if len(files) == 0 {
		t.Fatal("no edits")
	}
	for _, f := range files {
		up, err := os.ReadFile(filepath.Join(m.Dir, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Apply(f, up, edits)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), f, got, parser.SkipObjectResolution); err != nil {
			t.Errorf("%s: the edited file does not parse: %v", f, err)
		}
		if bytes.Equal(got, up) {
			t.Errorf("%s: the edits change nothing", f)
		}
		// Against any other text the edits refuse: an edit's text gone,
		// or there twice.
		for _, e := range edits {
			if e.File != f {
				continue
			}
			if _, err := Apply(f, bytes.Replace(up, []byte(e.Old), nil, 1), edits); err == nil {
				t.Errorf("%s: Apply accepts a file without the text it guards", f)
			}
			if _, err := Apply(f, append(bytes.Clone(up), e.Old...), edits); err == nil {
				t.Errorf("%s: Apply accepts a file with the text it guards twice", f)
			}
		}
	}
}

// nodePrelude makes node's global scope look like a dedicated Web
// Worker's where ebiten's initialisation looks: a self and a navigator
// (without a keyboard), and neither window nor document.
const nodePrelude = `globalThis.self = globalThis;
globalThis.navigator ??= {};
if (typeof window !== "undefined" || typeof document !== "undefined") throw new Error("a window in node");
`

// TestWorkerInit builds internal/initcheck (ebiten's packages as the canvas
// links them) for GOOS=js against the patched ebiten and runs it under node
// in a worker-like global scope: its initialisation must finish. Built
// against upstream's ebiten the same program must panic, which shows the
// guards are what makes the difference.
func TestWorkerInit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ebiten for GOOS=js")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node in PATH")
	}
	out := t.TempDir()
	work := prepare(t)
	goroot, err := exec.Command(goCmd, "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	prelude := filepath.Join(out, "prelude.js")
	if err := os.WriteFile(prelude, []byte(nodePrelude), 0o644); err != nil {
		t.Fatal(err)
	}
	runNode := func(name, work string) (string, error) {
		wasm := filepath.Join(out, name+".wasm")
		build := exec.Command(goCmd, "build", "-o", wasm, "./internal/initcheck")
		build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOWORK="+work)
		if b, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", name, err, b)
		}
		run := exec.Command(node, "--stack-size=8192", "-r", prelude,
			filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec_node.js"), wasm)
		b, err := run.CombinedOutput()
		return string(b), err
	}
	if got, err := runNode("patched", work); err != nil || strings.TrimSpace(got) != "initialised" {
		t.Errorf("patched ebiten in a scope without a document: %v\n%s", err, got)
	}
	if got, err := runNode("upstream", "off"); err == nil || !strings.Contains(got, "panic") {
		t.Errorf("upstream ebiten initialised without a document (are the guards still needed?): %v\n%s", err, got)
	}
}
