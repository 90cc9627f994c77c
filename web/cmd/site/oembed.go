package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/url"
	"strings"
)

// oEmbed: an LMS or a blog that speaks oEmbed (https://oembed.com) turns a
// link to the site into the live scene. index.html names the JSON in a
// discovery link; the JSON, oembedRel beside index.html, gives the iframe
// that embeds the page (embed=1). An iframe inserted into another page
// needs the site's own address, which only the deployer knows: with -url
// the site gets both, without it neither (a discovery link to a JSON whose
// iframe points nowhere would only break the consumer's page).
const (
	oembedRel = "oembed.json"
	// oembedLink is index.html's discovery link, its href a placeholder.
	oembedLink = `<link rel="alternate" type="application/json+oembed" href="__OEMBED__" title="headlab">`
	// oembedView is the view the oEmbed iframe opens: a static JSON
	// cannot know the fragment of the link it was asked about.
	oembedView = "#v=1&scene=attention&embed=1"
)

// embedSize is the embedded iframe's size in CSS pixels, 16:9; the page's
// embed code (web/static/embed.js, EMBED_SIZE) uses the same, and
// TestEmbedSize holds the two together.
var embedSize = struct{ width, height int }{800, 450}

// siteURL checks the -url flag: an absolute http or https address with no
// query or fragment, returned ending in "/".
func siteURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("site: -url %q: %w", s, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("site: -url %q: want the site's address, such as https://example.org/headlab/", s)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}

// oembed is the oEmbed response of the site at site (a "rich" type).
type oembed struct {
	Version      string `json:"version"`
	Type         string `json:"type"`
	ProviderName string `json:"provider_name"`
	ProviderURL  string `json:"provider_url"`
	Title        string `json:"title"`
	HTML         string `json:"html"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
}

// addOEmbed fills in index.html's discovery link and adds the JSON when
// site (the -url flag, checked) is set, and takes the link out when not.
func addOEmbed(files []*entry, site string) ([]*entry, error) {
	var index *entry
	for _, e := range files {
		if e.rel == indexRel {
			index = e
		}
	}
	if site == "" {
		if index == nil {
			return files, nil
		}
		index.data = bytes.Replace(index.data, []byte(oembedLink+"\n"), nil, 1)
		index.data = bytes.Replace(index.data, []byte(oembedLink), nil, 1)
		return files, nil
	}
	if index == nil || !bytes.Contains(index.data, []byte(oembedLink)) {
		return nil, errors.New("site: -url: index.html has no oEmbed discovery link " + oembedLink)
	}
	index.data = bytes.Replace(index.data, []byte("__OEMBED__"), []byte(html.EscapeString(site+oembedRel)), 1)
	frame := fmt.Sprintf(`<iframe src="%s" width="%d" height="%d" title="headlab" loading="lazy" allow="fullscreen; clipboard-write"></iframe>`,
		html.EscapeString(site+oembedView), embedSize.width, embedSize.height)
	b, err := json.MarshalIndent(oembed{
		Version: "1.0", Type: "rich", ProviderName: "headlab", ProviderURL: site,
		Title: "headlab: multi-head attention, seen and reproduced",
		HTML:  frame, Width: embedSize.width, Height: embedSize.height,
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	for _, e := range files {
		if e.rel == oembedRel {
			return nil, fmt.Errorf("site: %s clashes with the generated oEmbed JSON", oembedRel)
		}
	}
	return append(files, &entry{rel: oembedRel, data: append(b, '\n'), br: -1, gz: -1}), nil
}
