package palette

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestPage checks that the page's HTML colours heads as the canvas and the
// figures do: web/static/app.js's HEAD_COLORS lists Heads in order.
func TestPage(t *testing.T) {
	src, err := os.ReadFile("../../web/static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`HEAD_COLORS = \[([^\]]*)\]`).FindSubmatch(src)
	if m == nil {
		t.Fatal("app.js has no HEAD_COLORS = [...]")
	}
	var want []string
	for _, c := range Heads() {
		want = append(want, fmt.Sprintf("%q", fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B)))
	}
	if got := strings.Join(strings.Fields(strings.ReplaceAll(string(m[1]), ",", " ")), ", "); got != strings.Join(want, ", ") {
		t.Errorf("app.js HEAD_COLORS = [%s], want [%s]", got, strings.Join(want, ", "))
	}
}

func TestHead(t *testing.T) {
	hs := Heads()
	for h := -9; h < 20; h++ {
		if got, want := Head(h), hs[((h%8)+8)%8]; got != want {
			t.Errorf("Head(%d) = %v, want %v", h, got, want)
		}
	}
}
