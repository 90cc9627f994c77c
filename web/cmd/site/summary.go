package main

import (
	"fmt"
	"io"
	"time"
)

// print writes one line per file and the totals. What a first visit
// downloads is measured in the browser, by web/e2e's BenchmarkFirstVisitBytes.
func (s *summary) print(w io.Writer) {
	size := func(n int64) string {
		if n < 0 {
			return "-"
		}
		return fmt.Sprint(n)
	}
	fmt.Fprintf(w, "site: %s\n", s.out)
	fmt.Fprintf(w, "%10s %10s %10s  %s\n", "raw", "gz", "br", "file")
	var raw, gz, br int64
	for _, e := range s.entries {
		fmt.Fprintf(w, "%10d %10s %10s  %s\n", len(e.data), size(e.gz), size(e.br), e.rel)
		raw += int64(len(e.data))
		gz += smaller(e.gz, len(e.data))
		br += smaller(e.br, len(e.data))
	}
	fmt.Fprintf(w, "%10d %10d %10d  total of %d files\n", raw, gz, br, len(s.entries))
	fmt.Fprintf(w, "compressed %d variants (the others from the cache) in %v\n", s.packed, s.elapsed.Round(time.Millisecond))
}

// smaller returns the variant size, or the raw size when there is none.
func smaller(variant int64, raw int) int64 {
	if variant < 0 {
		return int64(raw)
	}
	return variant
}
