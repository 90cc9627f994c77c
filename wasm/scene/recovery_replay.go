package scene

import "fmt"

// Replay is what the Recovery scene shows of a replayed run's log: its
// file's name, SHA-256 and the oracle its header names (text from the
// file: shown as text, never as markup), and the answers it holds.
type Replay struct {
	Name, Hash, Oracle string
	Answers            int
	// Link is set when the run came from a link, not from its file.
	Link bool
}

// openReplay sets the scene up for the replay of s.Run: the options are
// the log's, and there is no true layer.
func (r *Recovery) openReplay() error {
	run := r.State.Run
	rec, err := run.Open()
	if err != nil {
		return fmt.Errorf("scene: run log %s: %v", run.Name, err)
	}
	opt, err := rec.Config.Options()
	if err != nil {
		return fmt.Errorf("scene: run log %s: %v", run.Name, err)
	}
	r.Options = opt
	r.Replay = &Replay{Name: run.Name, Hash: run.Hash, Oracle: rec.Oracle, Answers: rec.Answers, Link: run.Data == nil}
	return nil
}
