// Package compress makes the precompressed variants a static site serves
// beside its files: brotli at its best quality (11, with a 16 MiB window)
// and gzip at its best level. Brotli 11 takes tens of seconds on a wasm of
// ten megabytes, so a Cache keeps every variant under the SHA-256 of the
// bytes it compresses: a rebuild whose wasm did not change, or that changed
// back, costs a hash and a file read.
package compress

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
)

// Encoding is a content coding a variant is made with.
type Encoding int

// The encodings, with their file suffixes .br and .gz.
const (
	Brotli Encoding = iota
	Gzip
)

// Settings of the variants: the best each format offers. Brotli's window of
// 2^24 bytes (the default is 2^22) lets a match reach across a whole wasm.
const (
	BrotliQuality = 11
	BrotliWindow  = 24
	GzipLevel     = gzip.BestCompression
)

// Suffix returns the file suffix of e's variants: ".br" or ".gz".
func (e Encoding) Suffix() string {
	if e == Brotli {
		return ".br"
	}
	return ".gz"
}

// key names the settings in the cache, so that a change of settings never
// reuses a variant made with the old ones.
func (e Encoding) key() string {
	if e == Brotli {
		return fmt.Sprintf("br-q%d-w%d", BrotliQuality, BrotliWindow)
	}
	return fmt.Sprintf("gz-%d", GzipLevel)
}

// Bytes compresses data with e at the package's settings.
func Bytes(data []byte, e Encoding) ([]byte, error) {
	var buf bytes.Buffer
	var werr, cerr error
	if e == Brotli {
		w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: BrotliQuality, LGWin: BrotliWindow})
		_, werr = w.Write(data)
		cerr = w.Close()
	} else {
		w, _ := gzip.NewWriterLevel(&buf, GzipLevel) // the level is valid
		_, werr = w.Write(data)
		cerr = w.Close()
	}
	if err := cmp.Or(werr, cerr); err != nil {
		return nil, fmt.Errorf("compress: %w", err)
	}
	return buf.Bytes(), nil
}

// Cache keeps variants in a folder, one file per variant named by the
// SHA-256 of the uncompressed bytes and the settings. The zero Cache (no
// folder) keeps nothing. A Cache is safe for concurrent use: entries are
// written through a temporary file and a rename.
type Cache struct {
	Dir string
}

// Variant returns data compressed with e, from the cache when it holds it,
// and reports whether it had to compress.
func (c Cache) Variant(data []byte, e Encoding) (out []byte, made bool, err error) {
	if c.Dir == "" {
		out, err = Bytes(data, e)
		return out, err == nil, err
	}
	sum := sha256.Sum256(data)
	name := filepath.Join(c.Dir, hex.EncodeToString(sum[:])+"."+e.key())
	if b, err := os.ReadFile(name); err == nil {
		now := time.Now()
		_ = os.Chtimes(name, now, now) // recently used; a failure only ages it
		return b, false, nil
	}
	out, err = Bytes(data, e)
	if err != nil {
		return nil, false, err
	}
	if err := writeAtomic(name, out); err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// Prune removes the least recently used entries until the folder holds at
// most limit bytes.
func (c Cache) Prune(limit int64) error {
	if c.Dir == "" {
		return nil
	}
	des, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("compress: cache: %w", err)
	}
	type item struct {
		name string
		size int64
		used time.Time
	}
	var items []item
	var total int64
	for _, de := range des {
		if de.IsDir() || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue
		}
		items = append(items, item{de.Name(), fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	slices.SortFunc(items, func(a, b item) int { return a.used.Compare(b.used) })
	for _, it := range items {
		if total <= limit {
			break
		}
		if err := os.Remove(filepath.Join(c.Dir, it.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("compress: cache: %w", err)
		}
		total -= it.size
	}
	return nil
}

// writeAtomic writes data to name through a temporary file and a rename.
func writeAtomic(name string, data []byte) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("compress: cache: %w", err)
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("compress: cache: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := cmp.Or(werr, cerr, os.Rename(f.Name(), name)); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("compress: cache: %w", err)
	}
	return nil
}
