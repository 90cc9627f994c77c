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
// answer from it instead of from a true layer. It comes from a file (Data)
// or from a link (Link alone).
type RunLog struct {
	Name string // the file's name, as the user gave it (text, never markup)
	Hash string // the SHA-256 of the file, in hex
	Data []byte // the file's bytes; nil for a run from a link
	// Link is the run as a link carries it (runlog.Compact's text), or ""
	// when it is too large for one.
	Link string
	// compact is Link decoded, for a run from a link (RunFromLink), so
	// that Open does not decode it again.
	compact *runlog.Compact
}

// OpenRunLog checks a run log and returns it with its parsed form; a log
// that is too large, not a run log, cut short in its header or malformed
// is an error saying so. A log small enough gets its Link.
func OpenRunLog(name string, data []byte) (*RunLog, *runlog.Log, error) {
	if len(data) > MaxRunLog {
		return nil, nil, fmt.Errorf("the run log %s has %d bytes, more than the %d the page opens", name, len(data), MaxRunLog)
	}
	lg, err := runlog.Parse(data, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is not a run log the page can replay: %v", name, err)
	}
	sum := sha256.Sum256(data)
	rl := &RunLog{Name: name, Hash: hex.EncodeToString(sum[:]), Data: data}
	if len(lg.Answers)*(runlog.IDBytes+9) > runlog.MaxCompact*3/4 {
		return rl, lg, nil // too large for a link: each answer takes at least IDBytes + 9 bytes
	}
	c, err := runlog.NewCompact(lg, name, rl.Hash)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	switch rl.Link, err = c.Encode(); {
	case errors.Is(err, runlog.ErrTooLarge):
		rl.Link = ""
	case err != nil:
		return nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	return rl, lg, nil
}

// RunFromLink returns the run a link's text carries (runlog.Compact), or
// an error saying why it is not one.
func RunFromLink(text string) (*RunLog, error) {
	c, err := runlog.DecodeCompact(text)
	if err != nil {
		return nil, err
	}
	return &RunLog{Name: c.Name, Hash: c.Hash, Link: text, compact: c}, nil
}

// A Recorded is what a replay needs of a run: its config, the oracle its
// header names (text, never markup), the number of answers and where they
// are read from.
type Recorded struct {
	Config  runlog.Config
	Oracle  string
	Answers int
	Source  runlog.Source
}

// Open reads the run: its file, or its link's text.
func (l *RunLog) Open() (Recorded, error) {
	if l.Data == nil {
		c := l.compact
		if c == nil {
			var err error
			if c, err = runlog.DecodeCompact(l.Link); err != nil {
				return Recorded{}, err
			}
		}
		return Recorded{Config: c.Config, Oracle: c.Oracle, Answers: c.Answers(), Source: c}, nil
	}
	lg, err := runlog.Parse(l.Data, nil)
	if err != nil {
		return Recorded{}, err
	}
	return Recorded{Config: lg.Config, Oracle: lg.Header.Oracle, Answers: len(lg.Answers), Source: lg}, nil
}

// replayLearn replays the run of r.Log: the learner with the log's options,
// answered from the log (runlog.Box), paced by pace. Its numbers are the
// recorded run's, bit for bit.
func replayLearn(pace Pacer, r Recovery) (RecoveryRun, error) {
	rec, err := r.Log.Open()
	if err != nil {
		return RecoveryRun{}, fmt.Errorf("experiment: run log %s: %v", r.Log.Name, err)
	}
	opt, err := rec.Config.Options()
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
	res, err := recovery.RecoverPaused(context.Background(), &runlog.Box{Log: rec.Source}, opt, pause)
	if errors.Is(err, recovery.ErrStopped) {
		return RecoveryRun{}, ErrCancelled
	}
	return RecoveryRun{Result: res, Err: err, Dur: time.Since(start)}, nil
}
