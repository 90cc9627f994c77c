package scene

import "testing"

// TestLabelRows checks that each label goes into the first row where it
// clears the labels there by the gap, and that the rows used are counted.
func TestLabelRows(t *testing.T) {
	rows := LabelRows{Gap: 2}
	for i, c := range []struct {
		left, w float64
		row     int
	}{
		{0, 10, 0},
		{5, 10, 1},  // within row 0's label
		{12, 6, 0},  // clears row 0's label (ends at 10) by the gap
		{14, 3, 2},  // row 0 ends at 18, row 1 at 15
		{20, 1, 0},  // row 0 again
		{19, 30, 1}, // row 0 ends at 21, row 1 at 15
	} {
		if got := rows.Put(c.left, c.w); got != c.row {
			t.Errorf("label %d at %g…%g: row %d, want %d", i, c.left, c.left+c.w, got, c.row)
		}
	}
	if rows.Len() != 3 {
		t.Errorf("%d rows used, want 3", rows.Len())
	}
	var none LabelRows
	if none.Len() != 0 {
		t.Errorf("no label: %d rows", none.Len())
	}
}
