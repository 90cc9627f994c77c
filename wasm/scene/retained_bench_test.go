package scene

import (
	"runtime"
	"testing"

	"headlab/numerics/experiment"
	"headlab/web/link"
)

// BenchmarkRetained reports the Go heap a lab keeps after a scene's link
// was shown, and its jobs run to the end, at the page's limits: what the
// canvas's wasm memory (the Go heap's high-water mark: wasm memory never
// shrinks) can step up by when a lecture opens that link. web/e2e's
// LECTURE.md quotes it. Run with -bench Retained -benchtime 1x.
func BenchmarkRetained(b *testing.B) {
	links := []string{
		"#v=1&scene=attention&H=8&d=2&N=64&seed=3&heat=1",
		"#v=1&scene=atoms&d=14",
		"#v=1&scene=atoms&d=16",
		"#v=1&scene=atoms&d=18",
		"#v=1&scene=atoms&d=20",
		"#v=1&scene=recovery&H=3&d=4&seed=7",
		"#v=1&scene=recovery&H=8&d=16&seed=7",
		"#v=1&scene=recovery&H=4&d=8&seed=7&view=sweep",
		"#v=1&scene=recovery&H=8&d=4&seed=7&prec=256",
		"#v=1&scene=transformer&H=3&d=4&m=6&K=8&seed=1",
	}
	for _, frag := range links {
		b.Run(frag, func(b *testing.B) {
			var mb float64
			for b.Loop() {
				s, _ := link.Parse(frag)
				before := liveHeap()
				lab := NewLocalLab(experiment.Run)
				sc, err := New(s, lab)
				if err != nil {
					b.Fatal(err)
				}
				if c, ok := sc.(interface{ Compute() }); ok {
					c.Compute()
				}
				if j, ok := sc.(interface{ Job() Job }); ok {
					if job := j.Job(); job != nil {
						for !job.Step() {
						}
					}
				}
				mb = (liveHeap() - before) / (1 << 20)
				runtime.KeepAlive(lab)
				runtime.KeepAlive(sc)
			}
			b.ReportMetric(mb, "retained-MB")
		})
	}
}

// liveHeap is the heap in use after a collection, in bytes.
func liveHeap() float64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc)
}
