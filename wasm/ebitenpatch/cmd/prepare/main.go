// Command prepare writes the patched ebiten of headlab/wasm/ebitenpatch (a
// copy of go.mod's ebiten with its text/template shader files replaced by
// headlab's and its init guarded for Web Workers) and a go.mod that uses it
// into a folder, and prints that
// go.mod's path for go build's -modfile flag. It fails, writing nothing,
// when go.mod's ebiten is not the version the replacements were checked
// against. build.sh runs it from the module's root before compiling the
// canvas:
//
//	go run ./wasm/ebitenpatch/cmd/prepare -dir build/ebitenpatch
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"headlab/wasm/ebitenpatch"
)

func main() {
	dir := flag.String("dir", "", "the folder to write (required; emptied first)")
	goCmd := flag.String("go", "go", "the go command")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	modfile, err := run(*goCmd, *dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "prepare:", err)
		os.Exit(1)
	}
	fmt.Println(modfile)
}

// run resolves ebiten, the module's root and ebitenpatch's directory with
// goCmd and prepares dir.
func run(goCmd, dir string) (string, error) {
	m, err := ebitenpatch.Resolve(goCmd, ".")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(goCmd, "list", "-f", "{{.Dir}}\n{{.Module.GoMod}}", "headlab/wasm/ebitenpatch").Output()
	if err != nil {
		return "", fmt.Errorf("locating headlab/wasm/ebitenpatch: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return "", fmt.Errorf("locating headlab/wasm/ebitenpatch: go list printed %q", out)
	}
	return ebitenpatch.Prepare(goCmd, m, lines[0], filepath.Dir(lines[1]), dir)
}
