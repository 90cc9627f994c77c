package ebitenpatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// goCmd is the go command; go test puts its own first in PATH.
const goCmd = "go"

// prepare writes the patched copy into a temporary folder and returns the
// go.work that builds headlab against it, for the go command's GOWORK.
func prepare(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	goVersion, err := GoVersion(root)
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "go.work")
	if err := os.WriteFile(work, Work(goVersion, root, "./ebiten"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(goCmd, resolve(t), ".", work, filepath.Join(dir, "ebiten")); err != nil {
		t.Fatal(err)
	}
	return work
}

// resolve returns the ebiten module go.mod requires.
func resolve(t *testing.T) Module {
	t.Helper()
	m, err := Resolve(goCmd, ".")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestVersion checks that go.mod requires the ebiten the replacements were
// checked against, and that Check refuses any other.
func TestVersion(t *testing.T) {
	m := resolve(t)
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	other := m
	other.Version = m.Version + ".1"
	if other.Check() == nil {
		t.Errorf("Check accepts %s %s", Path, other.Version)
	}
	replaced := m
	replaced.Replace = &struct{ Path, Version string }{"../ebiten", ""}
	if replaced.Check() == nil {
		t.Errorf("Check accepts a replaced %s", Path)
	}
	if err := Prepare(goCmd, other, ".", "go.work", t.TempDir()); err == nil {
		t.Errorf("Prepare accepts %s %s", Path, other.Version)
	}
}

// TestWork checks that the repository's go.work is what Work writes, so
// that every Go tool sees the patched copy at CopyDir, that the go.mod
// committed there is upstream's, and that Prepare refuses a copy whose
// go.mod is another.
func TestWork(t *testing.T) {
	goVersion, err := GoVersion("../..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../go.work")
	if err != nil {
		t.Fatal(err)
	}
	if want := Work(goVersion, ".", "./"+CopyDir); !bytes.Equal(got, want) {
		t.Errorf("go.work is not what Work writes:\n%s\nwant\n%s", got, want)
	}
	m := resolve(t)
	up, err := os.ReadFile(filepath.Join(m.Dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join("../..", filepath.FromSlash(CopyDir), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, up) {
		t.Errorf("%s/go.mod is not the go.mod of %s %s", CopyDir, Path, Version)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), append(up, "// another\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(goCmd, m, ".", "go.work", dir); err == nil {
		t.Errorf("Prepare accepts a copy whose go.mod is not upstream's")
	}
}

// TestSourcesIdentical builds upstream's file and ours side by side in a
// scratch module, and checks that they declare the same API and that every
// exported constant and ShaderSource for every filter × address are the same,
// byte for byte.
func TestSourcesIdentical(t *testing.T) {
	m := resolve(t)
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	for _, f := range Files {
		t.Run(path.Base(path.Dir(f)), func(t *testing.T) {
			upFile := filepath.Join(m.Dir, filepath.FromSlash(f))
			oursFile := filepath.FromSlash(f)
			upAPI, consts := api(t, upFile)
			oursAPI, _ := api(t, oursFile)
			if !slices.Equal(upAPI, oursAPI) {
				t.Errorf("the exported API differs:\nupstream %q\nours     %q", upAPI, oursAPI)
			}
			up, ours := dump(t, upFile, oursFile, consts)
			if n := strings.Count(strings.Join(slices.Collect(maps.Keys(up)), " "), "ShaderSource("); n != 9 {
				t.Errorf("upstream dumped %d shader sources, want 3 filters × 3 addresses", n)
			}
			for _, k := range slices.Sorted(maps.Keys(up)) {
				if o, ok := ours[k]; !ok {
					t.Errorf("%s: ours has none", k)
				} else if o != up[k] {
					t.Errorf("%s differs:\n%s", k, firstDiff(up[k], o))
				}
			}
			for k := range ours {
				if _, ok := up[k]; !ok {
					t.Errorf("%s: upstream has none", k)
				}
			}
		})
	}
}

// TestNoTemplate checks the patch's point: our files import neither
// text/template nor reflect, and a wasm build of ebiten through a go.work
// that uses Prepare's copy no longer depends on text/template, as one
// through go.mod does.
func TestNoTemplate(t *testing.T) {
	for _, f := range Files {
		file, err := parser.ParseFile(token.NewFileSet(), filepath.FromSlash(f), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range file.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "text/template" || p == "reflect" {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
	work := prepare(t)
	deps := func(work string) []string {
		cmd := exec.Command(goCmd, "list", "-deps", "headlab/wasm/bare")
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOWORK="+work)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list (GOWORK=%s): %v\n%s", work, err, out)
		}
		return strings.Fields(string(out))
	}
	if !slices.Contains(deps("off"), "text/template") {
		t.Errorf("wasm/bare does not depend on text/template even without the patch: is the patch still needed?")
	}
	if slices.Contains(deps(work), "text/template") {
		t.Errorf("wasm/bare still depends on text/template with the patch")
	}
}

// api returns the exported top-level declarations of the Go file name, one
// string each (kind, name and type or signature), sorted, and the names of
// its exported constants.
func api(t *testing.T, name string) (decls, consts []string) {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	str := func(n ast.Node) string {
		if n == nil {
			return ""
		}
		var b bytes.Buffer
		printer.Fprint(&b, fset, n)
		return b.String()
	}
	for _, d := range file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && d.Recv == nil {
				decls = append(decls, "func "+d.Name.Name+" "+str(d.Type))
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						decls = append(decls, "type "+s.Name.Name+" "+str(s.Type))
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							decls = append(decls, d.Tok.String()+" "+n.Name)
							if d.Tok == token.CONST {
								consts = append(consts, n.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(decls)
	return decls, consts
}

// dumpMain is the scratch module's program: it prints, for upstream's
// package and ours, every ShaderSource and the constants named in %[1]s.
const dumpMain = `package main

import (
	"encoding/json"
	"fmt"
	"os"

	ours "check/ours"
	up "check/up"
)

func main() {
	var out [2]map[string]string
	out[0] = map[string]string{%[1]s}
	for f := 0; f < up.FilterCount; f++ {
		for a := 0; a < up.AddressCount; a++ {
			out[0][fmt.Sprintf("ShaderSource(%%d, %%d)", f, a)] = string(up.ShaderSource(up.Filter(f), up.Address(a)))
		}
	}
	out[1] = map[string]string{%[2]s}
	for f := 0; f < ours.FilterCount; f++ {
		for a := 0; a < ours.AddressCount; a++ {
			out[1][fmt.Sprintf("ShaderSource(%%d, %%d)", f, a)] = string(ours.ShaderSource(ours.Filter(f), ours.Address(a)))
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
`

// dump builds upstream's file and ours as two packages of a scratch module
// and returns what dumpMain prints for each.
func dump(t *testing.T, upFile, oursFile string, consts []string) (up, ours map[string]string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, b []byte) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	entries := func(pkg string) string {
		var b strings.Builder
		for _, c := range consts {
			fmt.Fprintf(&b, "%q: fmt.Sprint(%s.%s), ", c, pkg, c)
		}
		return b.String()
	}
	write("go.mod", []byte("module check\n\ngo 1.26\n"))
	write("up/shader.go", read(upFile))
	write("ours/shader.go", read(oursFile))
	write("main.go", fmt.Appendf(nil, dumpMain, entries("up"), entries("ours")))
	cmd := exec.Command(goCmd, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, stderr.Bytes())
	}
	var both [2]map[string]string
	if err := json.Unmarshal(out, &both); err != nil {
		t.Fatal(err)
	}
	return both[0], both[1]
}

// firstDiff describes where a and b first differ, by line.
func firstDiff(a, b string) string {
	al, bl := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: upstream %q, ours %q", i+1, x, y)
		}
	}
	return "(same lines)"
}

// TestBuiltinIR prepares the patched copy, which generates the built-in
// shaders' programs (GenerateIR: gen itself refuses programs that do not
// decode to the compiler's), and runs the generated package's own test in
// the copy: each program equals what compiling its source gives, and a
// program cut short, lengthened or changed is refused or told apart.
func TestBuiltinIR(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles ebiten's shader compiler")
	}
	work := prepare(t)
	cmd := exec.Command(goCmd, "test", "-count=1", Path+"/internal/headlabir")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOWORK="+work)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the generated programs' test: %v\n%s", err, out)
	}
}
