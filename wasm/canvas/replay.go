//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

	"headlab/numerics/experiment"
	"headlab/web/link"
)

// openRun opens a recorded run's log (the bytes of a file the host page
// read, in a Uint8Array) and replays it in the Recovery scene. A log the
// page cannot replay gets a notice and changes nothing.
func (a *app) openRun(name string, bytes js.Value) []link.Notice {
	if !bytes.InstanceOf(js.Global().Get("Uint8Array")) {
		return []link.Notice{{Message: "the run log came without its bytes; nothing changed"}}
	}
	if n := bytes.Length(); n > experiment.MaxRunLog {
		return []link.Notice{{Message: fmt.Sprintf("the run log %s has %d bytes, more than the %d the page opens; nothing changed", name, n, experiment.MaxRunLog)}}
	}
	data := make([]byte, bytes.Length())
	js.CopyBytesToGo(data, bytes)
	run, _, err := experiment.OpenRunLog(name, data)
	if err != nil {
		return []link.Notice{{Message: err.Error() + "; nothing changed"}}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, notes, err := a.scene.Link().Replay(run)
	if err != nil {
		return []link.Notice{{Message: err.Error() + "; nothing changed"}}
	}
	if len(notes) > 0 {
		msg := fmt.Sprintf("the run in %s is outside what the page shows (%s); nothing changed", name, notes[0].String())
		return []link.Notice{{Message: msg}}
	}
	msg := fmt.Sprintf("replaying the run log %s (SHA-256 %s); its link replays it too", name, run.Hash)
	if run.Link == "" {
		msg = fmt.Sprintf("replaying the run log %s (SHA-256 %s); it is too large for a link, which carries the view only: open the file again to replay it", name, run.Hash)
	}
	return a.setLocked(s, []link.Notice{{Message: msg}})
}
