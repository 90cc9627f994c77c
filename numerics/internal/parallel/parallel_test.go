package parallel

import (
	"sync/atomic"
	"testing"
)

// TestEach checks that every item runs once, whatever the number of
// goroutines, that each goroutine makes its own worker, and that a panic
// in one reaches the caller.
func TestEach(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 5, 100} {
		const n = 37
		var seen [n]atomic.Int32
		var made atomic.Int32
		Each(n, workers, func() func(int) {
			made.Add(1)
			return func(i int) { seen[i].Add(1) }
		})
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Errorf("workers %d: item %d ran %d times", workers, i, c)
			}
		}
		if want := int32(max(1, min(workers, n))); made.Load() != want {
			t.Errorf("workers %d: %d workers made, want %d", workers, made.Load(), want)
		}
	}
	defer func() {
		if p := recover(); p != "item 3" {
			t.Errorf("recovered %v, want the panic of item 3", p)
		}
	}()
	Each(10, 3, func() func(int) {
		return func(i int) {
			if i == 3 {
				panic("item 3")
			}
		}
	})
	t.Error("no panic")
}
