package link

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestPageScenes checks that the page knows the scenes a link may select,
// in Scenes' order: web/static/scenes.js (the page's one list of scene
// modules) and static/boot.js (which names the scene for the first paint,
// before any module runs), and that index.html has each scene's intro and
// panel.
func TestPageScenes(t *testing.T) {
	want := make([]string, len(Scenes))
	for i, s := range Scenes {
		want[i] = string(s)
	}
	lists := []struct {
		file string
		re   *regexp.Regexp
	}{
		{"../static/scenes.js", regexp.MustCompile(`\{ key: "([a-z]+)"`)},
		{"../static/boot.js", regexp.MustCompile(`"([a-z]+)"`)},
	}
	for _, l := range lists {
		src, err := os.ReadFile(l.file)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if l.file == "../static/boot.js" {
			// The one array literal of scene names.
			m := regexp.MustCompile(`\[("[a-z]+"(?:, "[a-z]+")*)\]\.includes\(scene\)`).FindSubmatch(src)
			if m == nil {
				t.Fatalf("%s: no [...].includes(scene)", l.file)
			}
			src = m[1]
		}
		for _, m := range l.re.FindAllSubmatch(src, -1) {
			got = append(got, string(m[1]))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s lists the scenes %q, want %q (link.Scenes)", l.file, got, want)
		}
	}
	html, err := os.ReadFile("../../index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range want {
		for _, id := range []string{"intro-" + s, "panel-" + s} {
			if !regexp.MustCompile(`id="` + id + `"[^>]*data-scene="` + s + `"`).Match(html) {
				t.Errorf("index.html has no element id=%q with data-scene=%q", id, s)
			}
		}
	}
}

// TestPageThemes checks index.html's menu of themes, written in the page
// for its first paint, against the schema's theme key: its values and
// labels, in their order. The other closed sets' menus are built from the
// schema (fields()) when the canvas answers.
func TestPageThemes(t *testing.T) {
	html, err := os.ReadFile("../../index.html")
	if err != nil {
		t.Fatal(err)
	}
	sel := regexp.MustCompile(`(?s)<select id="theme">(.*?)</select>`).FindSubmatch(html)
	if sel == nil {
		t.Fatal(`index.html has no <select id="theme">`)
	}
	var values, labels []string
	for _, m := range regexp.MustCompile(`<option value="([^"]*)">([^<]*)</option>`).FindAllSubmatch(sel[1], -1) {
		values, labels = append(values, string(m[1])), append(labels, string(m[2]))
	}
	for _, f := range Schema() {
		if f.Key == "theme" && (!slices.Equal(values, f.Allowed) || !slices.Equal(labels, f.Labels)) {
			t.Errorf("index.html's themes %q labelled %q; the schema's %q labelled %q", values, labels, f.Allowed, f.Labels)
		}
	}
}
