package main

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"time"
)

var (
	// htmlTag finds the tags whose src or href a page downloads at once.
	htmlTag = regexp.MustCompile(`(?is)<(?:script|link|iframe|img|source|embed)\b[^>]*>`)
	// htmlRef finds the src or href attribute of such a tag.
	htmlRef = regexp.MustCompile(`(?is)\b(?:src|href)\s*=\s*["']([^"']+)["']`)
	// jsRef finds static and dynamic imports and re-exports of a script.
	jsRef = regexp.MustCompile(`\b(?:import|export)\s*(?:[\w*{}\s,$]+?\s*from\s*)?\(?\s*["']([^"']+)["']`)
)

// firstVisit returns the files a first visit downloads: index.html and
// canvas.html (at the top or in static/), what they reference (scripts, styles, frames, images, and the
// modules those scripts import), the wasm files named in any of them, and
// the canvas wasm.
func firstVisit(files []*entry) []string {
	byRel := map[string]*entry{}
	for _, e := range files {
		byRel[e.rel] = e
	}
	var visit []string
	seen := map[string]bool{}
	var queue []string
	push := func(rel string) {
		if byRel[rel] != nil && !seen[rel] {
			seen[rel] = true
			queue = append(queue, rel)
			visit = append(visit, rel)
		}
	}
	push(indexRel)
	push(canvasPageRel)
	push("static/" + canvasPageRel)
	for _, e := range files {
		if strings.HasPrefix(e.rel, defaultWasm+".") && path.Ext(e.rel) == ".wasm" && !strings.Contains(e.rel, "/") {
			push(e.rel)
		}
	}
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		data := byRel[rel].data
		var refs []string
		switch path.Ext(rel) {
		case ".html":
			for _, tag := range htmlTag.FindAll(data, -1) {
				if m := htmlRef.FindSubmatch(tag); m != nil {
					refs = append(refs, string(m[1]))
				}
			}
		case ".js", ".mjs":
			for _, m := range jsRef.FindAllSubmatch(data, -1) {
				refs = append(refs, string(m[1]))
			}
		default:
			continue
		}
		for _, ref := range refs {
			if r, ok := resolve(rel, ref); ok {
				push(r)
			}
		}
		// The manifest names every wasm; only the ones a page names count.
		if rel == manifestRel {
			continue
		}
		for _, e := range files {
			if path.Ext(e.rel) == ".wasm" && !strings.Contains(e.rel, "/") && bytes.Contains(data, []byte(e.rel)) {
				push(e.rel)
			}
		}
	}
	return visit
}

// resolve turns a reference in the file from into a site-relative name;
// references to other origins, data: URLs and the like give false.
func resolve(from, ref string) (string, bool) {
	if i := strings.IndexAny(ref, "?#"); i >= 0 {
		ref = ref[:i]
	}
	if ref == "" || strings.HasPrefix(ref, "//") || strings.Contains(strings.SplitN(ref, "/", 2)[0], ":") {
		return "", false
	}
	var p string
	if strings.HasPrefix(ref, "/") {
		p = path.Clean(ref[1:])
	} else {
		p = path.Clean(path.Join(path.Dir(from), ref))
	}
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// print writes one line per file and the first-visit total.
func (s *summary) print(w io.Writer) {
	size := func(n int64) string {
		if n < 0 {
			return "-"
		}
		return fmt.Sprint(n)
	}
	fmt.Fprintf(w, "site: %s\n", s.out)
	fmt.Fprintf(w, "%10s %10s %10s  %s\n", "raw", "gz", "br", "file")
	byRel := map[string]*entry{}
	var raw, gz, br int64
	for _, e := range s.entries {
		byRel[e.rel] = e
		fmt.Fprintf(w, "%10d %10s %10s  %s\n", len(e.data), size(e.gz), size(e.br), e.rel)
		raw += int64(len(e.data))
		gz += smaller(e.gz, len(e.data))
		br += smaller(e.br, len(e.data))
	}
	fmt.Fprintf(w, "%10d %10d %10d  total of %d files\n", raw, gz, br, len(s.entries))
	var visit int64
	for _, rel := range s.visit {
		e := byRel[rel]
		visit += smaller(e.br, len(e.data))
	}
	fmt.Fprintf(w, "first visit with brotli: %d bytes in %d files (%s)\n", visit, len(s.visit), strings.Join(s.visit, ", "))
	fmt.Fprintf(w, "compressed %d variants in %v\n", s.packed, s.elapsed.Round(time.Millisecond))
}

// smaller returns the variant size, or the raw size when there is none.
func smaller(variant int64, raw int) int64 {
	if variant < 0 {
		return int64(raw)
	}
	return variant
}
