//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

	"headlab/numerics/experiment"
)

// computer sends the jobs the scenes want to the compute worker through
// window.headlabCompute (static/compute.js) and takes its answers into the
// lab. Guarded by app.mu.
type computer struct {
	client  js.Value           // window.headlabCompute, or undefined
	running map[string]float64 // the job of each key the worker is running
	paced   bool               // the worker was told a drag is under way
}

// paceLocked tells the worker when a press or drag starts and ends: while
// the user drags, the worker computes a quarter of the time (package
// compute's pacedRest), leaving a machine with few cores to the drawing
// (BenchmarkRecoveryFrameGap).
func (a *app) paceLocked(dragging bool) {
	if dragging == a.comp.paced || a.comp.client.Type() != js.TypeObject {
		return
	}
	a.comp.paced = dragging
	a.comp.client.Call("pace", dragging)
}

func (a *app) startComputer() {
	a.comp.running = map[string]float64{}
	a.comp.client = js.Global().Get("headlabCompute")
	if a.comp.client.Type() != js.TypeObject {
		a.reportError("headlab: the compute worker's client (compute.js) is missing; long computations cannot run")
		return
	}
	a.comp.client.Set("onmessage", js.FuncOf(func(this js.Value, args []js.Value) (result any) {
		defer func() {
			if r := recover(); r != nil {
				a.reportError(fmt.Sprintf("headlab: the canvas could not take a result of the compute worker: %v", r))
			}
		}()
		if len(args) == 1 {
			a.answer(args[0])
		}
		return nil
	}))
}

// dispatchLocked starts the jobs the scenes asked for this frame that are
// not running, and cancels the running ones no longer asked for: a changed
// set-up cancels the job of the old one.
func (a *app) dispatchLocked() {
	c := &a.comp
	wanted := a.lab.Wanted()
	if c.client.Type() != js.TypeObject {
		for key := range wanted {
			a.lab.Fail(key, "the compute worker's client is missing")
		}
		return
	}
	for key, id := range c.running {
		if _, ok := wanted[key]; !ok {
			c.client.Call("cancel", id)
			delete(c.running, key)
		}
	}
	for key, job := range wanted {
		if _, ok := c.running[key]; ok {
			continue
		}
		b, err := experiment.EncodeJob(job)
		if err != nil {
			a.lab.Fail(key, err.Error())
			continue
		}
		arr := js.Global().Get("Uint8Array").New(len(b))
		js.CopyBytesToJS(arr, b)
		c.running[key] = c.client.Call("start", key, arr, string(job.Kind)).Float()
	}
}

// answer takes one message of the worker: progress, a result, or the end
// of a job without one.
func (a *app) answer(m js.Value) {
	key, op := m.Get("key").String(), m.Get("op").String()
	var payload []byte
	if b := m.Get("bytes"); b.Type() == js.TypeObject {
		payload = make([]byte, b.Get("length").Int())
		js.CopyBytesToGo(payload, b)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	id := m.Get("id").Float()
	current := a.comp.running[key] == id
	if op != "progress" && current {
		delete(a.comp.running, key)
	}
	switch op {
	case "progress":
		if !current {
			return
		}
		p, err := experiment.DecodeProgress(payload)
		if err != nil {
			return
		}
		a.lab.Report(key, p)
	case "done":
		res, err := experiment.DecodeResult(payload)
		if err != nil {
			a.lab.Fail(key, err.Error())
			break
		}
		a.lab.Deliver(key, res)
	case "error", "failed":
		if current {
			a.lab.Fail(key, m.Get("error").String())
		}
	case "cancelled":
		return
	}
	a.changedLocked()
}
