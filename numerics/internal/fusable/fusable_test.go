package fusable_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"headlab/numerics/internal/fusable"
)

// TestFusable runs the check on testdata/src/a, whose // want comments
// say what it must report, and what it must not.
func TestFusable(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), fusable.Analyzer, "a")
}
