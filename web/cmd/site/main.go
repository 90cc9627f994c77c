// Command site assembles the headlab static site: a self-contained folder
// that the local server (web/cmd/serve) or any static host can serve.
//
// Usage:
//
//	go run ./web/cmd/site -out build/site -wasm build/canvas.wasm [-wasm NAME=PATH]... [-online NAME]... [-cache DIR] [-plain] [-url URL]
//
// From the repository root (the folder holding go.mod, found by walking up
// from the working directory, or -root) it copies index.html and everything
// under web/static/ (into <out>/static/), $(go env GOROOT)/lib/wasm/wasm_exec.js
// into <out>/static/wasm_exec.js, and each wasm into <out>/NAME.<hash>.wasm,
// where <hash> is the first 12 hex digits of its SHA-256, and replaces the
// placeholder __WASM_<name>__ in every .html, .js and .mjs file with that
// file's hashed name (an unknown placeholder is an error).
// Compressible files get .br (brotli quality 11) and .gz (gzip best
// compression) variants, kept only when smaller than the file; so the local
// server and a static host serve the same bytes. Brotli 11 takes tens of
// seconds on a large wasm, so every variant is kept in a cache (-cache,
// default build/cache under the repository root) under the SHA-256 of what
// it compresses: a rebuild whose files did not change compresses nothing.
// -plain writes no variants (a quick build, as the offline test deploys).
//
// Runs are idempotent: unchanged files are not rewritten, and files from
// earlier runs that the site no longer holds, such as stale hashed wasm
// files, are removed. To guard against a mistyped -out, the command refuses
// to write into a non-empty folder that has no state file (<out>/.headlab-site,
// which records the files it made).
//
// It writes sw.js at the site's root from web/sw.js, the service worker
// that keeps the page working offline, with the list of the site's files
// and their SHA-256 hashes written in (see addServiceWorker): every file
// but the wasm programs named by -online, which the page does without
// offline (build.sh names the lean canvas and the compute worker's own
// program: offline, the page runs the full canvas in their place).
//
// With -url, the address the site will be served at, it writes
// oembed.json beside index.html and fills in index.html's oEmbed discovery
// link; without, it takes that link out (see addOEmbed).
//
// It prints one line per file (raw, gzip and brotli sizes) and the totals.
// It exits with status 0 on success and 1 on any error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the command line, builds the site and prints its summary.
// It returns the process exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("site", flag.ContinueOnError)
	fset.SetOutput(stderr)
	var cfg config
	fset.StringVar(&cfg.out, "out", "", "output folder for the site (required)")
	fset.StringVar(&cfg.root, "root", "", "repository root (default: the nearest folder above the working directory holding go.mod)")
	fset.StringVar(&cfg.goroot, "goroot", "", "Go root holding lib/wasm/wasm_exec.js (default: go env GOROOT)")
	fset.StringVar(&cfg.cache, "cache", "", "folder caching the compressed variants by content hash (default: build/cache under the repository root)")
	fset.BoolVar(&cfg.plain, "plain", false, "write no .br and .gz variants (a quick build, for tests)")
	fset.StringVar(&cfg.url, "url", "", "the `address` the site is served at (https://example.org/headlab/): writes oembed.json and its discovery link")
	fset.Func("wasm", "`NAME=PATH` of a wasm to publish as NAME.<hash>.wasm; a bare PATH is named canvas (repeatable)", func(s string) error {
		w, err := parseWasmFlag(s)
		if err != nil {
			return err
		}
		cfg.wasm = append(cfg.wasm, w)
		return nil
	})
	fset.Func("online", "`NAME` of a -wasm program the offline copy leaves out, which the page manages without offline (repeatable)", func(s string) error {
		cfg.online = append(cfg.online, s)
		return nil
	})
	fset.Usage = func() {
		fmt.Fprintln(stderr, "usage: site -out DIR [-wasm [NAME=]PATH]... [-online NAME]... [-root DIR] [-goroot DIR] [-cache DIR] [-plain] [-url URL]")
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 1
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "site: unexpected arguments: %s\n", strings.Join(fset.Args(), " "))
		return 1
	}
	sum, err := build(cfg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	sum.print(stdout)
	return 0
}
