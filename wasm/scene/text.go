package scene

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Measure is the canvas's type as the layouts of text need it: the line
// heights (Type) and the width of a line of the title and of the body
// type, in canvas pixels. The canvas measures with its fonts; the tests
// with a model of one.
type Measure struct {
	Type
	TitleWidth, TextWidth func(s string) float64
}

// Label is a line of text placed on the canvas: its top-left, and whether
// it is in the title type (else the body type).
type Label struct {
	Text  string
	X, Y  float64
	Title bool
}

// Width returns the width of s in the title or the body type.
func (m Measure) Width(title bool, s string) float64 {
	if title {
		return m.TitleWidth(s)
	}
	return m.TextWidth(s)
}

// Line returns the line height of the title or the body type.
func (m Measure) Line(title bool) float64 {
	if title {
		return m.Title
	}
	return m.Text
}

// Paragraph wraps s into lines no wider than w, placed from (x, y) down
// 1.1 line heights apart, and returns them with the y under the last.
func (m Measure) Paragraph(s string, title bool, x, y, w float64) ([]Label, float64) {
	lh := m.Line(title) * 1.1
	var out []Label
	for _, line := range Wrap(s, func(line string) bool { return m.Width(title, line) <= w }) {
		out = append(out, Label{Text: line, X: x, Y: y, Title: title})
		y += lh
	}
	return out, y
}

// Wrap splits s at spaces into lines, each as long as fits allows (a
// single word longer than that stands alone).
func Wrap(s string, fits func(line string) bool) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		try := word
		if line != "" {
			try = line + " " + word
		}
		if line != "" && !fits(try) {
			lines = append(lines, line)
			line = word
			continue
		}
		line = try
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// LabelRows puts labels, taken left to right, into rows: each into the
// first row where it clears the labels already there by Gap.
type LabelRows struct {
	Gap  float64
	ends []float64 // the right end of each row's last label
}

// Put returns the row, counted from 0, of a label spanning left…left+w.
func (lr *LabelRows) Put(left, w float64) int {
	row := 0
	for row < len(lr.ends) && left < lr.ends[row]+lr.Gap {
		row++
	}
	if row == len(lr.ends) {
		lr.ends = append(lr.ends, 0)
	}
	lr.ends[row] = left + w
	return row
}

// Len returns the number of rows used.
func (lr *LabelRows) Len() int { return len(lr.ends) }

// FormatNum formats a value for a table: four decimals, or three
// significant digits when it is very large or small; a dash for NaN.
func FormatNum(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case x == 0:
		return "0"
	case math.Abs(x) >= 1e4 || math.Abs(x) < 1e-3:
		return strings.Replace(fmt.Sprintf("%.3g", x), "-", "−", 1)
	}
	return strings.Replace(fmt.Sprintf("%.4f", x), "-", "−", 1)
}

// FormatTick formats an axis value: as short as it can be.
func FormatTick(x float64) string {
	s := strconv.FormatFloat(x, 'g', 4, 64)
	return strings.Replace(s, "-", "−", 1)
}

// FormatSci formats an error or a condition number, 1.2e−9; a dash when
// it is negative, infinite or NaN.
func FormatSci(x float64) string {
	if !(x >= 0) || math.IsInf(x, 0) {
		return "—"
	}
	if x == 0 {
		return "0"
	}
	return strings.Replace(fmt.Sprintf("%.1e", x), "e-", "e−", 1)
}

// FormatT formats a place on the Transformer's line, ±∞ included.
func FormatT(t float64) string {
	switch {
	case math.IsInf(t, 1):
		return "+∞"
	case math.IsInf(t, -1):
		return "−∞"
	}
	return FormatTick(t)
}
