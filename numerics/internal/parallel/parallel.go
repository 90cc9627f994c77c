// Package parallel runs the independent items of a computation on several
// goroutines. Each item's result goes into its own slot, so that the
// result is the same bits for any number of goroutines.
package parallel

import (
	"sync"
	"sync/atomic"
)

// Each calls, for every i in 0…n−1, a function made by newWorker: one
// made per goroutine (its own buffers or fit), up to workers goroutines
// taking the next i as they finish one; with workers ≤ 1 on the caller's
// goroutine, in order. A panic in a goroutine stops the others and is
// raised again here.
func Each(n, workers int, newWorker func() func(i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		do := newWorker()
		for i := range n {
			do(i)
		}
		return
	}
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed any // the first panic of a goroutine
	)
	for range workers {
		wg.Go(func() {
			defer func() {
				if p := recover(); p != nil {
					mu.Lock()
					if failed == nil {
						failed = p
					}
					mu.Unlock()
					next.Store(int64(n)) // the others stop too
				}
			}()
			do := newWorker()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				do(i)
			}
		})
	}
	wg.Wait()
	if failed != nil {
		panic(failed)
	}
}
