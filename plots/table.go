package plots

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// Table is the data behind a figure: named columns and rows of cells,
// numbers written in full precision (strconv 'g', −1) so that a CSV
// reproduces the figure exactly.
type Table struct {
	// Name says which panel the table belongs to.
	Name string
	// Columns names the columns.
	Columns []string
	// Rows holds the cells; every row has len(Columns) cells.
	Rows [][]string
}

// add appends a row of values: float64 (NaN written as empty), int,
// string, or anything fmt prints.
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
		case string:
			row[i] = x
		default:
			row[i] = fmt.Sprint(x)
		}
	}
	t.Rows = append(t.Rows, row)
}

// WriteCSV writes the figure's tables as CSV (RFC 4180): a comment line
// "# headlab <link>", then for each table a comment line "# <name>", a header
// row and the rows, tables separated by an empty line.
func (f Figure) WriteCSV(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "# headlab %s\n", f.Link); err != nil {
		return fmt.Errorf("plots: writing CSV: %w", err)
	}
	for i, t := range f.Data {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return fmt.Errorf("plots: writing CSV: %w", err)
			}
		}
		if _, err := fmt.Fprintf(w, "# %s\n", t.Name); err != nil {
			return fmt.Errorf("plots: writing CSV: %w", err)
		}
		if err := t.write(w); err != nil {
			return err
		}
	}
	return nil
}

func (t Table) write(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Columns); err != nil {
		return fmt.Errorf("plots: writing CSV: %w", err)
	}
	for _, r := range t.Rows {
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
