//go:build js && wasm

// Package compute is headlab's compute worker: the loop that runs the
// scenes' long experiments (package experiment) at full speed in a Web
// Worker (static/compute-worker.js), off the canvas's thread. The canvas
// asks for them through static/compute.js. The worker runs the canvas's
// own wasm, whose main calls Serve instead of starting ebiten when it finds
// no document, or, under the canvas built without this loop (the nocompute
// tag), wasm/computeworker, whose main is Serve (wasm/README.md, "Two
// builds of the canvas").
//
// The job protocol. Before it, static/compute-worker.js takes the page's
// {op: "boot", module} (a compiled module, or null: fetch and compile
// wasm/computeworker) and starts this program, which posts {op: "ready"}
// (the script adds via: "module" or "fetch", and after a fetch the module
// it compiled); the script holds the page's messages until then. The page
// sends
//
//	{op: "run", id, job, fault}   job: an experiment.Job, encoded (a Uint8Array; experiment.EncodeJob)
//	{op: "cancel", id}
//	{op: "pace", on}              on: a drag is under way in the canvas
//
// and the worker answers, for each job, any number of
//
//	{op: "progress", id, fraction, bytes}   bytes: experiment.Progress (EncodeProgress)
//
// then exactly one of
//
//	{op: "done", id, ms, bytes}      bytes: experiment.Result (EncodeResult)
//	{op: "cancelled", id}
//	{op: "error", id, error}         the job could not be run (a bad job)
//
// Jobs go in and progress and results come out in one binary form
// (experiment's EncodeJob, EncodeResult and the rest, on package
// numerics/internal/codec): floats cross bit for bit, and the worker
// needs neither encoding/json nor encoding/gob, which were 13% of the
// bytes of the separate compute wasm it once had.
//
// Jobs run one at a time, in the order sent; a cancel of a queued job
// drops it, of the running one stops it at its next pause (every
// sliceTime). While paced, the worker rests pacedRest after each slice of
// work, leaving most of its core to the drawing. A new kind of experiment is
// a new experiment.Kind and a field of experiment.Job; nothing here
// changes. fault is a test hook
// ("panic": the job panics outside any recover, so the program dies, as a
// bug would kill it); the page sets it only for tests (see compute.js).
package compute

import (
	"fmt"
	"sync"
	"syscall/js"
	"time"

	"headlab/numerics/experiment"
)

// sliceTime is how long a job computes between pauses, in which the
// worker reads its messages (a cancel) and reports progress.
const sliceTime = 25 * time.Millisecond

// pacedRest is how long a paced job rests after each slice: while a drag
// is under way it computes a quarter of the time. On two cores, where the
// page, the software renderer's threads and the worker share the machine,
// resting one slice in two cost the drag a third of its frames, one in
// four about a fifth, and resting all but 2% of the time no less than
// what the measurement's noise hides (BenchmarkRecoveryFrameGap,
// README.md's Performance table).
const pacedRest = 3 * sliceTime

// progressEvery is the least time between two progress messages of a job:
// each makes the canvas draw again, which on a machine of few cores slows
// the job itself (at 100 ms a run took 2.4–3× its time under node in the
// Recovery scene, against 1.0–1.3× with nothing drawn).
const progressEvery = 250 * time.Millisecond

type task struct {
	id    float64
	job   experiment.Job
	fault string
}

type worker struct {
	mu        sync.Mutex
	queue     []task
	cancelled map[float64]bool
	paced     bool
	wake      chan struct{}
	resume    chan struct{}
}

// Serve runs the compute worker in this Web Worker: it takes the page's
// messages (through the global headlabComputeMessage, which
// compute-worker.js calls), posts "ready", and runs jobs until the program
// ends. It never returns.
func Serve() {
	w := &worker{cancelled: map[float64]bool{}, wake: make(chan struct{}, 1), resume: make(chan struct{}, 1)}
	js.Global().Set("headlabComputeMessage", js.FuncOf(func(this js.Value, args []js.Value) any {
		if len(args) == 1 {
			w.receive(args[0])
		}
		return nil
	}))
	js.Global().Set("headlabComputeResume", js.FuncOf(func(js.Value, []js.Value) any {
		select {
		case w.resume <- struct{}{}:
		default:
		}
		return nil
	}))
	post(map[string]any{"op": "ready"}, nil)
	w.loop()
}

// receive handles one message from the page; it never blocks. Only run
// and cancel carry a job's id: pace has none, and reading one there killed
// the program at every drag while a job ran.
func (w *worker) receive(m js.Value) {
	op := m.Get("op").String()
	var id float64
	if op == "run" || op == "cancel" {
		v := m.Get("id")
		if v.Type() != js.TypeNumber {
			fmt.Printf("compute: a %q message without a numeric id, ignored\n", op)
			return
		}
		id = v.Float()
	}
	switch op {
	case "run":
		j, err := decodeJob(m.Get("job"))
		if err != nil {
			post(map[string]any{"op": "error", "id": id, "error": fmt.Sprintf("compute: a job that is not an experiment.Job: %v", err)}, nil)
			return
		}
		fault := ""
		if f := m.Get("fault"); f.Type() == js.TypeString {
			fault = f.String()
		}
		w.mu.Lock()
		w.queue = append(w.queue, task{id: id, job: j, fault: fault})
		w.mu.Unlock()
		select {
		case w.wake <- struct{}{}:
		default:
		}
	case "pace":
		w.mu.Lock()
		w.paced = m.Get("on").Truthy()
		w.mu.Unlock()
	case "cancel":
		w.mu.Lock()
		defer w.mu.Unlock()
		for i, t := range w.queue {
			if t.id == id {
				w.queue = append(w.queue[:i], w.queue[i+1:]...)
				post(map[string]any{"op": "cancelled", "id": id}, nil)
				return
			}
		}
		w.cancelled[id] = true
	}
}

// decodeJob decodes a run message's job: the bytes of experiment.EncodeJob
// in a Uint8Array.
func decodeJob(v js.Value) (experiment.Job, error) {
	if !v.InstanceOf(js.Global().Get("Uint8Array")) {
		return experiment.Job{}, fmt.Errorf("a %s, not the bytes of experiment.EncodeJob", v.Type())
	}
	b := make([]byte, v.Length())
	js.CopyBytesToGo(b, v)
	return experiment.DecodeJob(b)
}

func (w *worker) next() (task, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.queue) == 0 {
		return task{}, false
	}
	t := w.queue[0]
	w.queue = w.queue[1:]
	return t, true
}

func (w *worker) isCancelled(id float64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cancelled[id]
}

// yield lets the worker's event loop run (deliver a cancel, say) and
// comes back at once: a message on a MessageChannel, unlike a timer, is
// not clamped to 4 ms.
func (w *worker) yield() {
	js.Global().Call("headlabComputeYield")
	<-w.resume
}

func (w *worker) loop() {
	for {
		t, ok := w.next()
		if !ok {
			<-w.wake
			continue
		}
		w.run(t)
	}
}

func (w *worker) run(t task) {
	if t.fault == "panic" {
		panic("compute: the test hook asked this job to panic") // kills the program, as a bug would
	}
	last := time.Time{}
	pace := experiment.Pacer{Slice: sliceTime, Pause: func(p experiment.Progress) bool {
		if time.Since(last) >= progressEvery {
			last = time.Now()
			if b, err := experiment.EncodeProgress(p); err == nil {
				post(map[string]any{"op": "progress", "id": t.id, "fraction": p.Fraction}, b)
			}
		}
		w.mu.Lock()
		paced := w.paced
		w.mu.Unlock()
		if paced {
			time.Sleep(pacedRest) // lets the event loop run too
		} else {
			w.yield()
		}
		return !w.isCancelled(t.id)
	}}
	res, err := experiment.Run(pace, t.job)
	w.mu.Lock()
	delete(w.cancelled, t.id)
	w.mu.Unlock()
	switch {
	case err == experiment.ErrCancelled:
		post(map[string]any{"op": "cancelled", "id": t.id}, nil)
	case err != nil:
		post(map[string]any{"op": "error", "id": t.id, "error": err.Error()}, nil)
	default:
		b, err := experiment.EncodeResult(res)
		if err != nil {
			post(map[string]any{"op": "error", "id": t.id, "error": err.Error()}, nil)
			return
		}
		post(map[string]any{"op": "done", "id": t.id, "ms": float64(res.Dur.Microseconds()) / 1000}, b)
	}
}

// post sends a message to the page, with bytes (transferred) if given.
func post(m map[string]any, bytes []byte) {
	msg := js.ValueOf(m)
	if bytes != nil {
		arr := js.Global().Get("Uint8Array").New(len(bytes))
		js.CopyBytesToJS(arr, bytes)
		msg.Set("bytes", arr)
		js.Global().Call("postMessage", msg, []any{arr.Get("buffer")})
		return
	}
	js.Global().Call("postMessage", msg)
}
