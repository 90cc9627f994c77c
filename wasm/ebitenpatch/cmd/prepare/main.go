// Command prepare writes the patched ebiten of headlab/wasm/ebitenpatch (a
// copy of go.mod's ebiten with its text/template shader files replaced by
// headlab's and its init guarded for Web Workers) at ebitenpatch.CopyDir,
// where the repository's go.work points every Go tool, and prints that
// folder. It fails when go.mod's ebiten is not the version the
// replacements were checked against, or when go.work is not the one
// ebitenpatch.Work writes. build.sh runs it from the module's root before
// compiling the canvas:
//
//	go run ./wasm/ebitenpatch/cmd/prepare
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"headlab/wasm/ebitenpatch"
)

func main() {
	goCmd := flag.String("go", "go", "the go command")
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	dir, err := run(*goCmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "prepare:", err)
		os.Exit(1)
	}
	fmt.Println(dir)
}

// run resolves ebiten, the module's root and ebitenpatch's directory with
// goCmd, checks the module's go.work and prepares the copy.
func run(goCmd string) (string, error) {
	m, err := ebitenpatch.Resolve(goCmd, ".")
	if err != nil {
		return "", err
	}
	cmd := exec.Command(goCmd, "list", "-f", "{{.Dir}}\n{{.Module.GoMod}}", "headlab/wasm/ebitenpatch")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("locating headlab/wasm/ebitenpatch: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return "", fmt.Errorf("locating headlab/wasm/ebitenpatch: go list printed %q", out)
	}
	root := filepath.Dir(lines[1])
	goVersion, err := ebitenpatch.GoVersion(root)
	if err != nil {
		return "", err
	}
	work := filepath.Join(root, "go.work")
	got, err := os.ReadFile(work)
	if err != nil {
		return "", err
	}
	if want := ebitenpatch.Work(goVersion, ".", "./"+ebitenpatch.CopyDir); !bytes.Equal(got, want) {
		return "", fmt.Errorf("%s is not what ebitenpatch.Work writes:\n%s", work, want)
	}
	dir := filepath.Join(root, filepath.FromSlash(ebitenpatch.CopyDir))
	return dir, ebitenpatch.Prepare(goCmd, m, lines[0], work, dir)
}
