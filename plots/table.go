package plots

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Table is one table of the data behind a figure, tidy: one row per
// observation, one meaning per column, a header naming each column with its
// unit in parentheses, numbers in full precision (strconv 'g', −1) so that
// a CSV reproduces the figure exactly. An empty cell is a value that does
// not exist (an unresolved run, a count not measured).
type Table struct {
	// Name is the table's file stem, the figure's name and what the table
	// holds ("rational-fit-samples").
	Name string
	// Columns names the columns, each with its unit: "n (copies)".
	Columns []string
	// Rows holds the cells; every row has len(Columns) cells.
	Rows [][]string
}

// add appends a row of values: float64 (NaN written as empty), int,
// bool (yes/no), string, or anything fmt prints.
func (t *Table) add(vals ...any) {
	row := make([]string, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case float64:
			if x != x {
				row[i] = ""
			} else {
				row[i] = strconv.FormatFloat(x, 'g', -1, 64)
			}
		case int:
			row[i] = strconv.Itoa(x)
		case bool:
			row[i] = "no"
			if x {
				row[i] = "yes"
			}
		case string:
			row[i] = x
		default:
			row[i] = fmt.Sprint(x)
		}
	}
	t.Rows = append(t.Rows, row)
}

// table appends a table named after the figure and what it holds, and
// returns it.
func (f *Figure) table(what string, columns ...string) *Table {
	t := &Table{Name: f.Name + "-" + what, Columns: columns}
	f.Data = append(f.Data, t)
	return t
}

// rename renames the figure and its tables.
func (f *Figure) rename(name string) {
	for _, t := range f.Data {
		t.Name = name + strings.TrimPrefix(t.Name, f.Name)
	}
	f.Name = name
}

// WriteCSV writes the table as CSV (RFC 4180): the header row, then the
// rows; nothing else, so any CSV reader takes it as it is.
func (t Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Columns); err != nil {
		return fmt.Errorf("plots: writing CSV: %w", err)
	}
	for i, r := range t.Rows {
		if len(r) != len(t.Columns) {
			return fmt.Errorf("plots: table %s: row %d has %d cells for %d columns", t.Name, i+1, len(r), len(t.Columns))
		}
		if err := cw.Write(r); err != nil {
			return fmt.Errorf("plots: writing CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("plots: writing CSV: %w", err)
	}
	return nil
}

// WriteCSV writes the figure's data as one CSV file; a figure with several
// tables is refused (see CSVFiles and CSVZip).
func (f Figure) WriteCSV(w io.Writer) error {
	if len(f.Data) != 1 {
		return fmt.Errorf("plots: figure %s has %d tables; write one file each (CSVFiles, or a zip: CSVZip)", f.Name, len(f.Data))
	}
	return f.Data[0].WriteCSV(w)
}

// File is a named file of a figure's data.
type File struct {
	Name string
	Data []byte
}

// CSVFiles returns one CSV file per table, named after the table.
func (f Figure) CSVFiles() ([]File, error) {
	var out []File
	for _, t := range f.Data {
		var b bytes.Buffer
		if err := t.WriteCSV(&b); err != nil {
			return nil, err
		}
		out = append(out, File{Name: t.Name + ".csv", Data: b.Bytes()})
	}
	return out, nil
}

// CSVZip returns a zip archive of the figure's CSV files and a README.txt
// that names the figure, its link and its files; the link is also the
// archive's comment. The archive is deterministic (fixed dates).
func (f Figure) CSVZip() ([]byte, error) {
	files, err := f.CSVFiles()
	if err != nil {
		return nil, err
	}
	var readme strings.Builder
	fmt.Fprintf(&readme, "headlab figure: %s\n", Plain(f.Title))
	if f.Link != "" {
		fmt.Fprintf(&readme, "link: %s\nregenerate: %s -link '%s' -csv-dir DIR\n", f.Link, Command, f.Link)
	}
	readme.WriteString("\nOne table per file, a header row naming each column with its unit in parentheses;\nan empty cell is a value that does not exist (an unresolved run, a count not measured).\n\n")
	for _, t := range f.Data {
		fmt.Fprintf(&readme, "%s.csv: %d rows; %s\n", t.Name, len(t.Rows), strings.Join(t.Columns, "; "))
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	if err := zw.SetComment("headlab " + f.Link); err != nil {
		return nil, fmt.Errorf("plots: zip: %w", err)
	}
	for _, file := range append([]File{{Name: "README.txt", Data: []byte(readme.String())}}, files...) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name + "/" + file.Name, Method: zip.Deflate, Modified: zipDate})
		if err != nil {
			return nil, fmt.Errorf("plots: zip: %w", err)
		}
		if _, err := w.Write(file.Data); err != nil {
			return nil, fmt.Errorf("plots: zip: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("plots: zip: %w", err)
	}
	return b.Bytes(), nil
}

// zipDate is the date of every file in a CSV zip: a figure is a function
// of its link, not of the time it was made.
var zipDate = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
