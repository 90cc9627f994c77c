package main

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"headlab/web/compress"
)

// config holds the command's settings.
type config struct {
	out    string     // output folder
	root   string     // repository root; empty: search upwards for go.mod
	goroot string     // Go root; empty: go env GOROOT
	wasm   []wasmFile // wasm binaries to publish
	cache  string     // folder of compressed variants; empty: <root>/build/cache
	plain  bool       // write no compressed variants (a quick build for tests)
	url    string     // the address the site is served at, for oEmbed; empty: none
	online []string   // wasm names the offline copy leaves out
}

// wasmFile is one -wasm flag.
type wasmFile struct {
	name, path string
}

// cacheLimit bounds the cache of compressed variants: the least recently
// used go first. A build's variants take about 6 MB.
const cacheLimit = 256 << 20

// Names in the repository and in the output folder.
const (
	stateFile     = ".headlab-site" // records what the last run made
	stateVersion  = 2
	defaultWasm   = "canvas" // name of a -wasm given without NAME=
	hashHexDigits = 12
	wasmExecRel   = "static/wasm_exec.js"
	staticSrcDir  = "web/static"
	indexRel      = "index.html"
	swSrc         = "web/sw.js" // the service worker's template, written as swRel
	swRel         = "sw.js"
	defaultCache  = "build/cache" // under the repository root
)

// wasmName is the form of a wasm name; the placeholder __WASM_<name>__ must
// be unambiguous, so names cannot start, end or double up on '_' or '-'.
var (
	wasmName    = regexp.MustCompile(`^[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*$`)
	placeholder = regexp.MustCompile(`__WASM_([A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*)__`)
)

// parseWasmFlag parses NAME=PATH or a bare PATH (named canvas).
func parseWasmFlag(s string) (wasmFile, error) {
	if name, p, ok := strings.Cut(s, "="); ok && wasmName.MatchString(name) {
		if p == "" {
			return wasmFile{}, fmt.Errorf("site: -wasm %q has no path", s)
		}
		return wasmFile{name: name, path: p}, nil
	}
	if s == "" {
		return wasmFile{}, errors.New("site: empty -wasm")
	}
	return wasmFile{name: defaultWasm, path: s}, nil
}

// compressible reports whether files named rel get .br and .gz variants.
func compressible(rel string) bool {
	switch strings.ToLower(path.Ext(rel)) {
	case ".wasm", ".js", ".mjs", ".css", ".html", ".svg", ".json", ".webmanifest", ".map", ".csv", ".txt":
		return true
	}
	return false
}

// substitutable reports whether placeholders are replaced in files named rel.
func substitutable(rel string) bool {
	switch strings.ToLower(path.Ext(rel)) {
	case ".html", ".js", ".mjs":
		return true
	}
	return false
}

// state is the content of the state file: what the last run made.
type state struct {
	Version int                  `json:"version"`
	Files   map[string]fileState `json:"files"`
}

// fileState records a compressible file and its variants. A variant size
// of -1 means the variant was not smaller than the file and was not kept.
type fileState struct {
	SHA256   string `json:"sha256"`
	BrSize   int64  `json:"br"`
	GzipSize int64  `json:"gz"`
}

// entry is one file of the site.
type entry struct {
	rel  string // slash-separated name under the output folder
	data []byte
	br   int64 // size of the .br variant; -1: none
	gz   int64 // size of the .gz variant; -1: none
}

// summary describes a built site.
type summary struct {
	out     string
	entries []*entry // sorted by rel
	elapsed time.Duration
	packed  int // variants compressed this run (not found in the cache)
}

// build assembles the site described by cfg.
func build(cfg config) (*summary, error) {
	start := time.Now()
	if cfg.out == "" {
		return nil, errors.New("site: no output folder; pass -out DIR")
	}
	root, err := findRoot(cfg.root)
	if err != nil {
		return nil, err
	}
	out, err := filepath.Abs(cfg.out)
	if err != nil {
		return nil, fmt.Errorf("site: output folder: %w", err)
	}
	if err := checkOut(root, out); err != nil {
		return nil, err
	}
	goroot := cfg.goroot
	if goroot == "" {
		if goroot, err = goEnvRoot(root); err != nil {
			return nil, err
		}
	}

	files, wasmNames, err := gather(root, goroot, cfg.wasm)
	if err != nil {
		return nil, err
	}
	site := ""
	if cfg.url != "" {
		if site, err = siteURL(cfg.url); err != nil {
			return nil, err
		}
	}
	if files, err = addOEmbed(files, site); err != nil {
		return nil, err
	}
	slices.SortFunc(files, func(a, b *entry) int { return strings.Compare(a.rel, b.rel) })
	online, err := onlineFiles(wasmNames, cfg.online)
	if err != nil {
		return nil, err
	}
	if files, err = addServiceWorker(root, files, online); err != nil {
		return nil, err
	}
	for _, e := range files {
		if err := writeIfChanged(filepath.Join(out, filepath.FromSlash(e.rel)), e.data); err != nil {
			return nil, err
		}
	}

	cache := compress.Cache{Dir: cfg.cache}
	if cache.Dir == "" {
		cache.Dir = filepath.Join(root, filepath.FromSlash(defaultCache))
	}
	next := state{Version: stateVersion, Files: map[string]fileState{}}
	packed := 0
	if !cfg.plain {
		if packed, err = compressAll(out, files, next.Files, cache); err != nil {
			return nil, err
		}
	}
	if err := cache.Prune(cacheLimit); err != nil {
		return nil, fmt.Errorf("site: %w", err)
	}
	if err := removeStale(out, files); err != nil {
		return nil, err
	}
	if err := writeState(out, next); err != nil {
		return nil, err
	}
	return &summary{
		out:     cfg.out,
		entries: files,
		elapsed: time.Since(start),
		packed:  packed,
	}, nil
}

// findRoot returns the absolute repository root: dir if given, else the
// nearest folder at or above the working directory that holds go.mod.
func findRoot(dir string) (string, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", fmt.Errorf("site: -root: %w", err)
		}
		if _, err := os.Stat(filepath.Join(abs, "go.mod")); err != nil {
			return "", fmt.Errorf("site: -root %s holds no go.mod", dir)
		}
		return abs, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("site: working directory: %w", err)
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("site: no go.mod in %s or above; pass -root", wd)
		}
		d = parent
	}
}

// checkOut refuses output folders that would overwrite the sources or that
// hold files this command did not make.
func checkOut(root, out string) error {
	within := func(dir, p string) bool {
		r, err := filepath.Rel(dir, p)
		return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
	}
	if within(out, root) {
		return fmt.Errorf("site: output folder %s holds the repository %s", out, root)
	}
	if within(filepath.Join(root, filepath.FromSlash(staticSrcDir)), out) {
		return fmt.Errorf("site: output folder %s is inside %s", out, staticSrcDir)
	}
	des, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("site: output folder: %w", err)
	}
	if len(des) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(out, stateFile)); err != nil {
		return fmt.Errorf("site: output folder %s is not empty and was not made by this command (no %s); remove it or choose another -out", out, stateFile)
	}
	return nil
}

// goEnvRoot asks the go command, run in the repository root, for its GOROOT.
func goEnvRoot(root string) (string, error) {
	cmd := exec.Command("go", "env", "GOROOT")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("site: go env GOROOT: %v %s; pass -goroot", err, strings.TrimSpace(stderr.String()))
	}
	g := strings.TrimSpace(string(b))
	if g == "" {
		return "", errors.New("site: go env GOROOT is empty; pass -goroot")
	}
	return g, nil
}

// gather reads every file of the site, sorted by name, with placeholders
// replaced, and returns with them the hashed file name of each -wasm name.
func gather(root, goroot string, wasms []wasmFile) ([]*entry, map[string]string, error) {
	files := map[string]*entry{}
	add := func(rel string, data []byte, from string) error {
		if _, dup := files[rel]; dup {
			return fmt.Errorf("site: %s from %s clashes with a file of the same name", rel, from)
		}
		files[rel] = &entry{rel: rel, data: data, br: -1, gz: -1}
		return nil
	}

	index, err := os.ReadFile(filepath.Join(root, indexRel))
	if err != nil {
		return nil, nil, fmt.Errorf("site: %w", err)
	}
	if err := add(indexRel, index, indexRel); err != nil {
		return nil, nil, err
	}

	// Generated names first, so a same-named source file is the clash.
	names := map[string]string{}
	for _, w := range wasms {
		if _, dup := names[w.name]; dup {
			return nil, nil, fmt.Errorf("site: two -wasm flags name %q", w.name)
		}
		b, err := os.ReadFile(w.path)
		if err != nil {
			return nil, nil, fmt.Errorf("site: -wasm %s: %w", w.name, err)
		}
		if !bytes.HasPrefix(b, []byte("\x00asm")) {
			return nil, nil, fmt.Errorf("site: -wasm %s: %s is not a WebAssembly module", w.name, w.path)
		}
		sum := sha256.Sum256(b)
		hashed := w.name + "." + hex.EncodeToString(sum[:])[:hashHexDigits] + ".wasm"
		names[w.name] = hashed
		if err := add(hashed, b, w.path); err != nil {
			return nil, nil, err
		}
	}
	wasmExec, err := os.ReadFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return nil, nil, fmt.Errorf("site: wasm_exec.js of GOROOT %s: %w", goroot, err)
	}
	if err := add(wasmExecRel, wasmExec, "GOROOT"); err != nil {
		return nil, nil, err
	}

	static := filepath.Join(root, filepath.FromSlash(staticSrcDir))
	err = filepath.WalkDir(static, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == static && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return err
		}
		if p != static && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		fi, err := os.Stat(p) // follows symbolic links
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		r, err := filepath.Rel(static, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return add("static/"+filepath.ToSlash(r), b, staticSrcDir)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("site: %s: %w", staticSrcDir, err)
	}

	var list []*entry
	for _, e := range files {
		list = append(list, e)
	}
	slices.SortFunc(list, func(a, b *entry) int { return strings.Compare(a.rel, b.rel) })
	for _, e := range list {
		for _, suffix := range []string{".br", ".gz"} {
			if base, ok := strings.CutSuffix(e.rel, suffix); ok && files[base] != nil && compressible(base) {
				return nil, nil, fmt.Errorf("site: %s clashes with the generated variant of %s", e.rel, base)
			}
		}
		if !substitutable(e.rel) {
			continue
		}
		var missing []string
		e.data = placeholder.ReplaceAllFunc(e.data, func(m []byte) []byte {
			name := string(placeholder.FindSubmatch(m)[1])
			if h, ok := names[name]; ok {
				return []byte(h)
			}
			missing = append(missing, name)
			return m
		})
		if len(missing) > 0 {
			return nil, nil, fmt.Errorf("site: %s uses __WASM_%s__ but no -wasm %s=PATH was given", e.rel, missing[0], missing[0])
		}
	}
	return list, names, nil
}

// writeIfChanged writes data to name unless it already holds exactly data,
// through a temporary file so a running server never sees a partial file.
func writeIfChanged(name string, data []byte) error {
	if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return writeAtomic(name, data)
}

// writeAtomic writes data to name through a temporary file and a rename.
func writeAtomic(name string, data []byte) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("site: %w", err)
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := cmp.Or(werr, cerr, os.Chmod(f.Name(), 0o644), os.Rename(f.Name(), name)); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("site: writing %s: %w", name, err)
	}
	return nil
}

// writeState records what this run made.
func writeState(out string, s state) error {
	b, err := json.MarshalIndent(s, "", "\t")
	if err != nil {
		return fmt.Errorf("site: state: %w", err)
	}
	return writeAtomic(filepath.Join(out, stateFile), append(b, '\n'))
}

// job is one variant to make.
type job struct {
	e   *entry
	enc compress.Encoding
}

// compressAll writes the .br and .gz variants of the compressible files,
// taken from the cache or made, recording them in next. It returns how many
// it had to make.
func compressAll(out string, files []*entry, next map[string]fileState, cache compress.Cache) (int, error) {
	var jobs []job
	for _, e := range files {
		if !compressible(e.rel) {
			continue
		}
		sum := sha256.Sum256(e.data)
		next[e.rel] = fileState{SHA256: hex.EncodeToString(sum[:]), BrSize: -1, GzipSize: -1}
		jobs = append(jobs, job{e, compress.Brotli}, job{e, compress.Gzip})
	}
	// Largest first, so the wasm starts at once and small files fill in.
	slices.SortStableFunc(jobs, func(a, b job) int { return len(b.e.data) - len(a.e.data) })

	var (
		mu    sync.Mutex
		first error
		made  int
		wg    sync.WaitGroup
		queue = make(chan job)
	)
	for range max(1, runtime.NumCPU()) {
		wg.Go(func() {
			for j := range queue {
				size, fresh, err := writeVariant(out, j, cache)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				if fresh {
					made++
				}
				st := next[j.e.rel]
				if j.enc == compress.Brotli {
					st.BrSize, j.e.br = size, size
				} else {
					st.GzipSize, j.e.gz = size, size
				}
				next[j.e.rel] = st
				mu.Unlock()
			}
		})
	}
	for _, j := range jobs {
		queue <- j
	}
	close(queue)
	wg.Wait()
	return made, first
}

// writeVariant writes one variant of a file if it is smaller than the file,
// removing any old one otherwise. It returns the variant's size (-1: none)
// and whether it had to be compressed rather than found in the cache.
func writeVariant(out string, j job, cache compress.Cache) (int64, bool, error) {
	b, fresh, err := cache.Variant(j.e.data, j.enc)
	if err != nil {
		return -1, fresh, fmt.Errorf("site: %s%s: %w", j.e.rel, j.enc.Suffix(), err)
	}
	name := filepath.Join(out, filepath.FromSlash(j.e.rel)) + j.enc.Suffix()
	if len(b) >= len(j.e.data) {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return -1, fresh, fmt.Errorf("site: %w", err)
		}
		return -1, fresh, nil
	}
	if err := writeIfChanged(name, b); err != nil {
		return -1, fresh, err
	}
	return int64(len(b)), fresh, nil
}

// removeStale deletes every file and empty folder under out that this run
// did not make, such as hashed wasm files of earlier builds.
func removeStale(out string, files []*entry) error {
	keep := map[string]bool{stateFile: true}
	for _, e := range files {
		keep[e.rel] = true
		if e.br >= 0 {
			keep[e.rel+".br"] = true
		}
		if e.gz >= 0 {
			keep[e.rel+".gz"] = true
		}
	}
	var dirs []string
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(out, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel != "." {
				dirs = append(dirs, p)
			}
			return nil
		}
		if keep[filepath.ToSlash(rel)] {
			return nil
		}
		return os.Remove(p)
	})
	if err != nil {
		return fmt.Errorf("site: removing stale files: %w", err)
	}
	// Deepest first; a folder that still holds files stays.
	for _, d := range slices.Backward(dirs) {
		if des, err := os.ReadDir(d); err == nil && len(des) == 0 {
			if err := os.Remove(d); err != nil {
				return fmt.Errorf("site: removing stale folder: %w", err)
			}
		}
	}
	return nil
}

// onlineFiles returns the names in the site (of wasmNames: -wasm name →
// hashed file name) of the wasm programs online names, each of which must
// be a -wasm program.
func onlineFiles(wasmNames map[string]string, online []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, name := range online {
		rel, ok := wasmNames[name]
		if !ok {
			return nil, fmt.Errorf("site: -online %s names no -wasm program", name)
		}
		out[rel] = true
	}
	return out, nil
}

// addServiceWorker adds sw.js, the service worker (web/sw.js), at the
// site's root, with the build's files and their hashes written in: the
// list it precaches (every file but those of online), and a build name
// made from all of them, so that any change of any file is a new service
// worker. Without web/sw.js the site has none.
func addServiceWorker(root string, files []*entry, online map[string]bool) ([]*entry, error) {
	tmpl, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(swSrc)))
	if errors.Is(err, fs.ErrNotExist) {
		return files, nil
	}
	if err != nil {
		return nil, fmt.Errorf("site: %w", err)
	}
	var list [][2]string
	all := sha256.New()
	for _, e := range files {
		if e.rel == swRel {
			return nil, fmt.Errorf("site: %s clashes with the service worker made from %s", e.rel, swSrc)
		}
		sum := sha256.Sum256(e.data)
		if !online[e.rel] {
			list = append(list, [2]string{e.rel, "sha256-" + base64.StdEncoding.EncodeToString(sum[:])})
		}
		fmt.Fprintf(all, "%s %x\n", e.rel, sum)
	}
	precache, err := json.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("site: %w", err)
	}
	for _, ph := range []string{"__HEADLAB_BUILD__", "__HEADLAB_PRECACHE__"} {
		if bytes.Count(tmpl, []byte(ph)) != 1 {
			return nil, fmt.Errorf("site: %s must hold %s once", swSrc, ph)
		}
	}
	build := hex.EncodeToString(all.Sum(nil))[:hashHexDigits]
	b := bytes.Replace(tmpl, []byte("__HEADLAB_BUILD__"), []byte(build), 1)
	b = bytes.Replace(b, []byte("__HEADLAB_PRECACHE__"), precache, 1)
	files = append(files, &entry{rel: swRel, data: b, br: -1, gz: -1})
	slices.SortFunc(files, func(a, b *entry) int { return strings.Compare(a.rel, b.rel) })
	return files, nil
}
