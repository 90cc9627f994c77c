package link

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"headlab/numerics/fusion"
	"headlab/numerics/recovery"
	"headlab/numerics/transformer"
)

// readmeValues returns what the README's key table says of a field's
// values: the widest range of a number, the allowed values of a name.
func readmeValues(f Field) string {
	quoted := func(names []string) string {
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = "`" + n + "`"
		}
		return strings.Join(q, ", ")
	}
	switch f.Kind {
	case Int:
		return strconv.FormatInt(int64(f.Min), 10) + "…" + strconv.FormatInt(int64(f.Max), 10)
	case Float:
		return formatFloat(f.Min) + "…" + formatFloat(f.Max)
	case Floats:
		return "numbers in " + formatFloat(f.Min) + "…" + formatFloat(f.Max)
	case Bool:
		return "0, 1"
	case Enum, Names:
		return quoted(f.Allowed)
	case Run:
		return "base64url, up to " + strconv.Itoa(MaxRun) + " bytes"
	}
	return "?"
}

// readmeDefault returns what the README's key table says of a field's
// default.
func readmeDefault(f Field) string {
	switch {
	case f.Default != "":
		return "`" + f.Default + "`"
	case f.Kind == Floats:
		return "from the seed"
	}
	return "none"
}

// readmeRow is a field's row of the README's key table.
func readmeRow(f Field) string {
	return fmt.Sprintf("| `%s` | %s | %s | %s |", f.Key, f.Doc, readmeValues(f), readmeDefault(f))
}

// readmeLimits is the README's sentence on the limits each scene sets
// within the table's widest ranges.
func readmeLimits() string {
	return fmt.Sprintf("Within those ranges each scene sets its own limits: H ≤ %d (%d in `recovery` with `prec` > 0, %d in `transformer`), "+
		"d ≤ %d (%d in `atoms`, %d in `transformer`), m ≤ %d and K ≤ %d in `transformer`; `prec` is 0 or %d…%d.",
		MaxHeads, MaxHeadsExtended, TransformerHeads, WidthLimit("attention"), WidthLimit("atoms"), WidthLimit("transformer"),
		TransformerDim, TransformerUnits, MinPrecision, MaxPrecision)
}

// TestReadmeKeys holds README.md's table of link keys to the schema, both
// ways: a row for every key and a key for every row, each row's meaning,
// values (ranges included) and default the schema's, and the scenes'
// limits the schema's constants.
func TestReadmeKeys(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	rows := map[string]string{}
	for line := range strings.Lines(readme) {
		line = strings.TrimRight(line, "\n")
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		key, _, ok := strings.Cut(strings.TrimPrefix(line, "| `"), "`")
		if !ok {
			continue
		}
		if _, dup := rows[key]; dup {
			t.Errorf("README.md has two rows for %s", key)
		}
		rows[key] = line
	}
	var want strings.Builder
	for _, f := range Schema() {
		row := readmeRow(f)
		fmt.Fprintln(&want, row)
		got, ok := rows[f.Key]
		switch {
		case !ok:
			t.Errorf("README.md's key table has no row for %s", f.Key)
		case got != row:
			t.Errorf("README.md's row for %s:\n%s\nthe schema's:\n%s", f.Key, got, row)
		}
		delete(rows, f.Key)
	}
	for key := range rows {
		t.Errorf("README.md's key table has a row for %s, which the schema does not have", key)
	}
	if !strings.Contains(readme, readmeLimits()) {
		t.Errorf("README.md does not state the scenes' limits as the schema sets them:\n%s", readmeLimits())
	}
	if t.Failed() {
		t.Logf("the schema's table:\n%s", want.String())
	}
}

// TestLimitsWithinNumerics ties the page's limits to the numerics': every
// size a link can ask for is one the numerics take.
func TestLimitsWithinNumerics(t *testing.T) {
	for _, c := range []struct {
		name      string
		page, num int
	}{
		{"recovery's H in float64", HeadLimit(State{Scene: "recovery"}), recovery.MaxHeads},
		{"recovery's H at extended precision", HeadLimit(State{Scene: "recovery", Prec: MinPrecision}), recovery.MaxHeadsExtended},
		{"recovery's d", WidthLimit("recovery"), recovery.MaxWidth},
		{"the transformer's H", TransformerHeads, transformer.MaxHeads},
		{"the transformer's d", TransformerWidth, transformer.MaxWidth},
		{"the transformer's m", TransformerDim, transformer.MaxDim},
		{"the transformer's K", TransformerUnits, transformer.MaxUnits},
		{"the fewer-atoms fit's d", MaxFewer, fusion.MaxFitDim},
		{"the precision", MaxPrecision, transformer.MaxPrecision},
	} {
		if c.page > c.num {
			t.Errorf("%s: the link takes up to %d, the numerics %d", c.name, c.page, c.num)
		}
	}
	if MinPrecision != transformer.MinPrecision {
		t.Errorf("the link's least precision %d, the transformer's %d", MinPrecision, transformer.MinPrecision)
	}
}
