package pdfcanvas

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The fonts come from memory and text is Unicode: Greek letters that
// code page 1252 (gonum's vgpdf) cannot write come back out of the PDF.
func TestUnicodeTextRoundTrip(t *testing.T) {
	c := New(3*vg.Inch, 1*vg.Inch)
	c.SetInfo(Info{Title: "t", Subject: "#v=1&scene=atoms", Keywords: "headlab", Creator: "test"})
	dc := draw.New(c)
	face := font.NewCache(liberation.Collection()).Lookup(font.Font{Typeface: "Liberation", Variant: "Serif", Size: 12}, 12)
	dc.FillString(face, vg.Point{X: 10, Y: 30}, "noise ε, poles −ρ, σ(q)")
	var p vg.Path
	p.Move(vg.Point{X: 60, Y: 50})
	p.Arc(vg.Point{X: 50, Y: 50}, 10, 0, 6.283185307179586)
	p.Close()
	dc.Fill(p)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) {
		t.Fatalf("output starts %q", buf.Bytes()[:8])
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext (poppler-utils) not installed; the header was checked")
	}
	path := filepath.Join(t.TempDir(), "t.pdf")
	os.WriteFile(path, buf.Bytes(), 0o644)
	out, err := exec.Command("pdftotext", path, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "noise ε, poles −ρ, σ(q)") {
		t.Errorf("pdftotext read %q", out)
	}
}
