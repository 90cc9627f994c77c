package main

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestDoc: the document has every section under its marker and title,
// with its stamp, its command lines and their tables; a section kept from
// a document is written back byte for byte, so that -only changes the
// named sections alone.
func TestDoc(t *testing.T) {
	secs := []section{
		{name: "float64", title: "Float64", intro: "Intro one.", outro: "Outro one.", runs: [][]string{{"-H", "1", "-d", "2", "-seeds", "2"}}},
		{name: "scale", title: "Scale", intro: "Intro two.", runs: [][]string{{"-scales", "0.25,1", "-H", "1", "-d", "2", "-seeds", "2"}}},
		{name: "compare", title: "Compare", intro: "Intro three.", runs: [][]string{
			{"-compare", "-H", "1", "-d", "2", "-modes", "paper,frugal", "-precisions", "0", "-seeds", "2"},
			{"-digits", "-H", "1", "-d", "1", "-seeds", "2", "-precisions", "0,96"},
		}},
	}
	stamp := func(time.Duration) string { return "Measured on the test's day." }
	var first bytes.Buffer
	if err := doc(&first, secs, nil, measure, stamp); err != nil {
		t.Fatal(err)
	}
	text := first.String()
	for _, want := range []string{docHeader, marker("float64") + "\n## Float64\n\nMeasured on the test's day.\n\n    go run ./numerics/recovery/cmd/accuracy -H 1 -d 2 -seeds 2\n",
		"| 1 | 2 | paper |", "Outro one.", "| (1, 2) | 2 | 2 | 2, 2 |", "| 1 | 2 | float64 | frugal | 2/2 |",
		"    go run ./numerics/recovery/cmd/accuracy -digits -H 1 -d 1 -seeds 2 -precisions 0,96\n", "| 1 | 1 | float64 |"} {
		if !strings.Contains(text, want) {
			t.Errorf("the document lacks %q:\n%s", want, text)
		}
	}
	kept := splitSections(text)
	if len(kept) != 3 {
		t.Fatalf("%d sections read back", len(kept))
	}
	var again bytes.Buffer
	if err := doc(&again, secs, kept, measure, func(time.Duration) string { t.Fatal("a kept section was measured"); return "" }); err != nil {
		t.Fatal(err)
	}
	if again.String() != text {
		t.Fatalf("kept sections changed:\n%s\n---\n%s", again.String(), text)
	}
}

// TestTorchTable: -torch writes a row per kind of torch layer, each
// recovered in every mode asked (H = 1, d = 2: one layer each).
func TestTorchTable(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("no processes under GOOS=js")
	}
	if err := exec.Command(python, "-c", "import torch, numpy").Run(); err != nil {
		if os.Getenv("HEADLAB_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s cannot import torch and numpy: %v", python, err)
		}
		t.Skipf("%s cannot import torch and numpy: %v", python, err)
	}
	if testing.Short() {
		t.Skip("builds the recover command and trains torch layers")
	}
	var out bytes.Buffer
	if err := measure([]string{"-torch", "-H", "1", "-d", "2", "-seeds", "1", "-modes", "paper,frugal"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"| (1, 2) | initialised | no | 1 (1) | 1 (1) |", "| (1, 2) | initialised | yes | 1 (1) | 1 (1) |",
		"| (1, 2) | trained | no | 1 (1) | 1 (1) |", "| (1, 2) | trained | yes | 1 (1) | 1 (1) |"} {
		if !strings.Contains(out.String(), row) {
			t.Errorf("no row %q in\n%s", row, out.String())
		}
	}
}
