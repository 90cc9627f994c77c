package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"headlab/numerics/recovery"
	"headlab/numerics/recovery/runlog"
)

// MaxRunLog is the largest run log the page opens, in bytes: about 40 000
// answers at d = 8 in float64, far beyond the page's sizes.
const MaxRunLog = 32 << 20

// A RunLog is the log of a recovery run recorded elsewhere (the recover
// command's -log), opened to be replayed: Recovery.Log set makes Learn
// answer from it instead of from a true layer.
type RunLog struct {
	Name string // the file's name, as the user gave it (text, never markup)
	Hash string // the SHA-256 of Data, in hex
	Data []byte
}

// OpenRunLog checks a run log and returns it with its parsed form; a log
// that is too large, not a run log, cut short in its header or malformed
// is an error saying so.
func OpenRunLog(name string, data []byte) (*RunLog, *runlog.Log, error) {
	if len(data) > MaxRunLog {
		return nil, nil, fmt.Errorf("the run log %s has %d bytes, more than the %d the page opens", name, len(data), MaxRunLog)
	}
	lg, err := runlog.Parse(data, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is not a run log the page can replay: %v", name, err)
	}
	sum := sha256.Sum256(data)
	return &RunLog{Name: name, Hash: hex.EncodeToString(sum[:]), Data: data}, lg, nil
}

// Parse parses the log (OpenRunLog checked it).
func (l *RunLog) Parse() (*runlog.Log, error) { return runlog.Parse(l.Data, nil) }

// replayLearn replays the run of r.Log: the learner with the log's options,
// answered from the log (runlog.Box), paced by pace. Its numbers are the
// recorded run's, bit for bit.
func replayLearn(pace Pacer, r Recovery) (RecoveryRun, error) {
	lg, err := r.Log.Parse()
	if err != nil {
		return RecoveryRun{}, fmt.Errorf("experiment: run log %s: %v", r.Log.Name, err)
	}
	opt, err := lg.Config.Options()
	if err != nil {
		return RecoveryRun{}, fmt.Errorf("experiment: run log %s: %v", r.Log.Name, err)
	}
	start := time.Now()
	timer := pace.timer()
	pause := func(p recovery.Progress) bool {
		if !timer.over() {
			return true
		}
		ok := pace.pause(Progress{Fraction: p.Fraction, Recovery: &p})
		timer = pace.timer()
		return ok
	}
	res, err := recovery.RecoverPaused(context.Background(), &runlog.Box{Log: lg}, opt, pause)
	if errors.Is(err, recovery.ErrStopped) {
		return RecoveryRun{}, ErrCancelled
	}
	return RecoveryRun{Result: res, Err: err, Dur: time.Since(start)}, nil
}
