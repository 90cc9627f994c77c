package plots

import (
	"strings"
	"testing"

	"headlab/web/link"
)

// TestTransformerFigures renders every view of the Transformer scene from
// its link (the run of the tour, seed 1): phase A, phase B, the end and
// the result, in every format, each carrying the link and its data.
func TestTransformerFigures(t *testing.T) {
	const base = "#v=1&scene=transformer&H=2&d=3&m=3&K=5&seed=1"
	for _, c := range []struct{ frag, name string }{
		{base + "&step=0", "transformer-heads"},
		{base + "&step=20", "transformer-heads"},
		{base + "&step=90", "transformer-units"},
		{base + "&step=1000", "transformer-units"},
		{base + "&view=result", "transformer-result"},
	} {
		s, notes := link.Parse(c.frag)
		if len(notes) > 0 {
			t.Fatalf("%s: %v", c.frag, notes)
		}
		f, err := forLink(s, DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", c.frag, err)
		}
		if f.Name != c.name {
			t.Errorf("%s: figure %s, want %s", c.frag, f.Name, c.name)
		}
		if len(f.Data) == 0 || len(f.Data[0].Rows) < 5 {
			t.Errorf("%s: %d rows of data", c.frag, len(f.Data[0].Rows))
		}
		if files, err := f.CSVFiles(); err != nil || len(files) == 0 {
			t.Errorf("%s: CSV %d files, %v", c.frag, len(files), err)
		}
		for _, format := range []Format{SVG, PNG, PDF} {
			o := DefaultOptions()
			o.Format = format
			b, err := Render(f, o)
			if err != nil || len(b) < 1000 {
				t.Fatalf("%s as %s: %d bytes, %v", c.frag, format, len(b), err)
			}
			if format == SVG && !strings.Contains(string(b), "scene=transformer") {
				t.Errorf("%s: the SVG does not carry the link", c.frag)
			}
		}
	}
	// A step past the end is the end, with the link clamped as the page
	// clamps it.
	s, _ := link.Parse(base + "&step=1000")
	f, err := forLink(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(f.Link, "step=1000") || !strings.Contains(f.Link, "step=") {
		t.Errorf("figure link %s: want the run's last step", f.Link)
	}
}
