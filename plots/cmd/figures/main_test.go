package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fitLink = "#v=1&scene=recovery&H=3&d=2&seed=1&view=result"

// TestCSV: -format csv writes a one-table figure to -o or standard output,
// and a figure of several tables as one file each beside -o; without -o it
// is a usage error that names -csv-dir.
func TestCSV(t *testing.T) {
	dir := t.TempDir()
	var out, errw bytes.Buffer
	if err := run([]string{"-link", "#v=1&scene=attention", "-format", "csv"}, &out, &errw); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil || len(rows) < 2 || !strings.Contains(rows[0][0], "(") {
		t.Fatalf("attention CSV: %v, %v", rows, err)
	}
	if err := run([]string{"-link", fitLink, "-o", filepath.Join(dir, "fit.csv")}, &out, &errw); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fit-samples.csv", "fit-curve.csv", "fit-poles.csv"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("-format csv (from -o) did not write %s", name)
		}
	}
	err = run([]string{"-link", fitLink, "-format", "csv"}, &out, &errw)
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "-csv-dir") {
		t.Errorf("several tables to standard output: %v", err)
	}
	if err := run([]string{"-link", fitLink, "-csv-dir", filepath.Join(dir, "d"), "-format", "tex", "-o", filepath.Join(dir, "fit.tex")}, &out, &errw); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "d", "rational-fit-*.csv")); len(files) != 3 {
		t.Errorf("-csv-dir wrote %v", files)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "fit.tex")); !bytes.Contains(b, []byte("% link: "+fitLink)) {
		t.Errorf("the TeX does not carry the link")
	}
}

// TestFlags: presets, a width in inches, the typeface and the old -font
// POINTS are taken; unknown ones are usage errors.
func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"-size", "ieee-wide"}, true},
		{[]string{"-size", "4.2in"}, true},
		{[]string{"-font", "lm"}, true},
		{[]string{"-font", "9"}, true},
		{[]string{"-size", "huge"}, false},
		{[]string{"-size", "40in"}, false},
		{[]string{"-font", "comic"}, false},
		{[]string{"-format", "eps"}, false},
	} {
		var out, errw bytes.Buffer
		err := run(append([]string{"-link", "#v=1&scene=attention&H=2&d=2&seed=3&N=4"}, c.args...), &out, &errw)
		if (err == nil) != c.ok {
			t.Errorf("%v: %v", c.args, err)
		}
		var ue usageError
		if err != nil && !errors.As(err, &ue) {
			t.Errorf("%v: %v is not a usage error", c.args, err)
		}
	}
}
