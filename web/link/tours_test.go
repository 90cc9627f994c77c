package link

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// tourStep is one step of a guided tour as web/static/tours.json holds it.
type tourStep struct {
	Title string `json:"title"`
	Link  string `json:"link"`
	Text  string `json:"text"`
}

// tag matches what would start an HTML tag or entity.
var tag = regexp.MustCompile(`<[a-zA-Z/!?]|&[a-zA-Z#]+;`)

// TestTours checks the guided tours the page ships: every scene has one,
// no longer than MaxTour steps, and every step is a link that parses
// without a notice, names its own scene and its own position in the tour,
// and survives a round trip through Link.
func TestTours(t *testing.T) {
	raw, err := os.ReadFile("../static/tours.json")
	if err != nil {
		t.Fatal(err)
	}
	var tours map[string][]tourStep
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tours); err != nil {
		t.Fatalf("tours.json: %v", err)
	}
	for _, scene := range Scenes {
		if len(tours[string(scene)]) == 0 {
			t.Errorf("scene %s has no tour", scene)
		}
	}
	for scene, steps := range tours {
		if !slices.Contains(Scenes, Scene(scene)) {
			t.Errorf("a tour for %q, which is not a scene", scene)
		}
		if len(steps) > MaxTour {
			t.Errorf("the %s tour has %d steps; the link's tour key allows %d", scene, len(steps), MaxTour)
		}
		for i, st := range steps {
			where := fmt.Sprintf("%s step %d", scene, i+1)
			if strings.TrimSpace(st.Title) == "" || len(st.Text) < 40 {
				t.Errorf("%s: title %q, text %q: too short", where, st.Title, st.Text)
			}
			if tag.MatchString(st.Title + st.Text) {
				t.Errorf("%s: the text holds markup; it is shown as plain text", where)
			}
			s, notes := Parse(st.Link)
			if len(notes) > 0 {
				t.Errorf("%s: link %q: notices %v", where, st.Link, notes)
			}
			if s.Scene != Scene(scene) || s.Tour != i+1 {
				t.Errorf("%s: link %q opens scene %s, tour step %d", where, st.Link, s.Scene, s.Tour)
			}
			if back, _ := Parse(s.Link()); !back.Equal(s) {
				t.Errorf("%s: link %q does not survive a round trip: %q", where, st.Link, s.Link())
			}
		}
	}
}
