package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestOEmbed builds the site with and without -url: with it, oembed.json
// beside index.html gives an iframe of the page at that address in embed
// mode, and index.html's discovery link names the JSON there; without it,
// neither is in the site.
func TestOEmbed(t *testing.T) {
	r := newRepo(t)
	index := filepath.Join(r.root, "index.html")
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, index, []byte(strings.Replace(string(b), "<!doctype html>\n", "<!doctype html>\n"+oembedLink+"\n", 1)))

	r.build(t, "-url", "https://example.org/course/headlab")
	page := string(read(t, filepath.Join(r.out, "index.html")))
	if want := `<link rel="alternate" type="application/json+oembed" href="https://example.org/course/headlab/oembed.json" title="headlab">`; !strings.Contains(page, want) {
		t.Errorf("index.html has no %s", want)
	}
	var o map[string]any
	if err := json.Unmarshal(read(t, filepath.Join(r.out, oembedRel)), &o); err != nil {
		t.Fatalf("oembed.json: %v", err)
	}
	frame := `<iframe src="https://example.org/course/headlab/#v=1&amp;scene=attention&amp;embed=1" width="800" height="450" title="headlab" loading="lazy" allow="fullscreen; clipboard-write"></iframe>`
	for k, want := range map[string]any{"version": "1.0", "type": "rich", "provider_name": "headlab",
		"provider_url": "https://example.org/course/headlab/", "width": 800.0, "height": 450.0, "html": frame} {
		if o[k] != want {
			t.Errorf("oembed.json's %s is %v, want %v", k, o[k], want)
		}
	}

	r.build(t)
	page = string(read(t, filepath.Join(r.out, "index.html")))
	if strings.Contains(page, "oembed") || strings.Contains(page, "__OEMBED__") {
		t.Error("without -url, index.html still has the oEmbed link")
	}
	if _, err := os.Stat(filepath.Join(r.out, oembedRel)); !os.IsNotExist(err) {
		t.Errorf("without -url, the site still has %s (%v)", oembedRel, err)
	}

	for _, bad := range []string{"example.org/headlab/", "ftp://example.org/", "https://example.org/?a=1", "https://example.org/#x", "https://u:p@example.org/"} {
		if out, code := r.run(t, "-url", bad); code == 0 || !strings.Contains(out, "-url") {
			t.Errorf("-url %s: exit %d, %s", bad, code, out)
		}
	}
}

// TestEmbedSize holds the page's embed code (web/static/embed.js) to the
// oEmbed iframe's size.
func TestEmbedSize(t *testing.T) {
	root, err := findRoot("")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, staticSrcDir, "embed.js"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`const EMBED_SIZE = \{ width: (\d+), height: (\d+) \};`).FindSubmatch(src)
	if m == nil {
		t.Fatal("embed.js has no EMBED_SIZE")
	}
	if w, h := string(m[1]), string(m[2]); w != strconv.Itoa(embedSize.width) || h != strconv.Itoa(embedSize.height) {
		t.Errorf("embed.js's EMBED_SIZE is %s×%s, the oEmbed iframe's %d×%d", w, h, embedSize.width, embedSize.height)
	}
}
