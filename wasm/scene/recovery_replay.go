package scene

import (
	"fmt"

	"headlab/web/link"
)

// Replay is what the Recovery scene shows of a replayed run's log: its
// file's name, SHA-256 and the oracle its header names (text from the
// file: shown as text, never as markup), and the answers it holds.
type Replay struct {
	Name, Hash, Oracle string
	Answers            int
}

// openReplay sets the scene up for the replay of s.Run: the options are
// the log's, and there is no true layer.
func (r *Recovery) openReplay() error {
	run := r.State.Run
	lg, err := run.Parse()
	if err != nil {
		return fmt.Errorf("scene: run log %s: %v", run.Name, err)
	}
	opt, err := lg.Config.Options()
	if err != nil {
		return fmt.Errorf("scene: run log %s: %v", run.Name, err)
	}
	r.Options = opt
	r.Replay = &Replay{Name: run.Name, Hash: run.Hash, Oracle: lg.Header.Oracle, Answers: len(lg.Answers)}
	return nil
}

// ReplayState returns s set up to replay run: the recovery scene at step
// 0 with the sizes, schedule, precision and seed of the run's log, and
// the notices of the keys the page could not take (a run outside the
// page's limits); the state is usable only when there are none.
func ReplayState(s link.State, run *link.RunLog) (link.State, []link.Notice, error) {
	lg, err := run.Parse()
	if err != nil {
		return s, nil, err
	}
	c := lg.Config
	h := c.H
	if c.H0 > 0 {
		h = c.H0
	}
	var notes []link.Notice
	for _, kv := range [][2]string{{"scene", "recovery"}, {"prec", fmt.Sprint(c.Prec)}, {"H", fmt.Sprint(h)}, {"d", fmt.Sprint(c.D)},
		{"H0", fmt.Sprint(c.H0)}, {"mode", c.Mode}, {"seed", fmt.Sprint(c.Seed)}, {"src", "random"}, {"dup", "0"}, {"cancel", "0"},
		{"noise", "0"}, {"view", "steps"}, {"step", "0"}} {
		var ns []link.Notice
		s, ns = s.With(kv[0], kv[1])
		notes = append(notes, ns...)
	}
	s.Run = run
	return s, notes, nil
}
