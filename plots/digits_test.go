package plots

import (
	"math"
	"strconv"
	"testing"

	"headlab/numerics/recovery"
)

// TestDigitsNeeded checks the figure's numbers against recovery's table:
// one row per H, float64 drawn at 53 bits, the rest at their bits, and
// the digits never fewer than float64's.
func TestDigitsNeeded(t *testing.T) {
	f, err := DigitsNeeded(DefaultOptions().style())
	if err != nil {
		t.Fatal(err)
	}
	tab := f.Data[0]
	if len(tab.Rows) != recovery.MaxHeadsExtended || len(tab.Columns) != 1+2*len(digitWidths) {
		t.Fatalf("table %d×%d", len(tab.Rows), len(tab.Columns))
	}
	for H, row := range tab.Rows {
		bits, _ := recovery.MeasuredPrecision(H+1, 4, recovery.Paper)
		got, err := strconv.ParseFloat(row[1+2], 64) // paper, d = 4
		if err != nil {
			t.Fatal(err)
		}
		want := float64(bits) * math.Log10(2)
		if bits == 0 {
			want = float64Digits
		}
		if math.Abs(got-want) > 1e-9 || got < float64Digits-1e-9 {
			t.Errorf("H = %d: %v digits, want %v", H+1, got, want)
		}
	}
	if n := len(f.Panels[0][0].Legend); n != 2*len(digitWidths)+2 {
		t.Errorf("%d legend entries", n)
	}
	if _, err := Render(f, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
}
