package recovery

import (
	"errors"
	"fmt"
	"iter"
	"time"
)

// ErrUnfinished is Run.Result's error before the run is done, or after it
// was stopped.
var ErrUnfinished = errors.New("recovery: the run is not finished")

// Run is one run of Learn made a slice at a time: Step computes for about
// a given time and returns, so that a caller that must keep drawing on a
// single thread (the page, in the browser) can spread a run of seconds
// over many frames, and Progress says how far it has got. The run is Learn
// itself, suspended at its checkpoints (after each oracle query and each
// rational fit, before each trial step of a fit), so its numbers are
// Learn's, bit for bit, however the run is sliced.
//
// A Run is not safe for concurrent use. A run abandoned before it is done
// must be stopped (Stop), which releases the goroutine holding its state.
type Run struct {
	next    func() (Progress, bool)
	stop    func()
	prog    Progress
	res     Result
	err     error
	done    bool
	stopped bool
	start   time.Time     // when the current slice began
	budget  time.Duration // its length
}

// Start prepares a run of Learn(o, opt); nothing is computed before the
// first Step.
func Start(o Oracle, opt Options) *Run {
	if opt.Precision > 0 {
		return start(source{}, opt, fmt.Errorf("recovery: precision %d bits needs StartBig and a BigOracle", opt.Precision))
	}
	return start(source{f: o}, opt, nil)
}

// StartBig prepares a run of LearnBig(o, opt).
func StartBig(o BigOracle, opt Options) *Run {
	if opt.Precision == 0 {
		return start(source{}, opt, fmt.Errorf("recovery: StartBig needs Options.Precision > 0"))
	}
	return start(source{big: o}, opt, nil)
}

func start(o source, opt Options, bad error) *Run {
	r := &Run{prog: Progress{Width: opt.Width}}
	if opt.validate() == nil {
		r.prog.Planned = plannedQueries(opt)
	}
	r.next, r.stop = iter.Pull(func(yield func(Progress) bool) {
		defer func() {
			// A stopped run unwinds with abandoned. Any other panic is a bug,
			// kept as the run's error: iter.Pull raises it only once, and
			// after that the run would look finished and successful.
			if p := recover(); p != nil {
				if _, ok := p.(abandoned); !ok {
					r.res, r.err = Result{}, fmt.Errorf("recovery: internal error: %v", p)
				}
			}
		}()
		if bad != nil {
			r.err = bad
			return
		}
		r.res, r.err = learn(o, opt, func(l *learner) {
			if time.Since(r.start) < r.budget {
				return
			}
			if !yield(l.progress()) {
				panic(abandoned{}) // Stop: unwind the learner
			}
		}, 1)
	})
	return r
}

// abandoned unwinds a stopped run's learner.
type abandoned struct{}

// Step computes until about budget has passed (at least up to the run's
// next checkpoint, so a slice can overrun the budget by the longest piece
// of work between checkpoints) and reports whether the run is done.
func (r *Run) Step(budget time.Duration) (done bool) {
	if r.done || r.stopped {
		return true
	}
	r.start, r.budget = time.Now(), budget
	p, ok := r.next()
	if ok {
		r.prog = p
		return false
	}
	r.done = true
	r.next, r.stop = nil, nil
	r.prog.Queries, r.prog.Final, r.prog.Fraction = r.res.Queries, r.err == nil, 1
	r.prog.Planned = max(r.prog.Planned, r.res.Queries)
	if r.err == nil {
		r.prog.Columns = r.prog.Width
	}
	return true
}

// Done reports whether the run is finished.
func (r *Run) Done() bool { return r.done }

// Progress reports how far the run has got at the end of the last Step.
func (r *Run) Progress() Progress { return r.prog }

// Result returns what Learn returns, once Step has reported the run done;
// before that, or after Stop, an empty Result and ErrUnfinished.
func (r *Run) Result() (Result, error) {
	if !r.done {
		return Result{}, ErrUnfinished
	}
	return r.res, r.err
}

// Stop abandons an unfinished run; a finished or stopped one is left as
// it is.
func (r *Run) Stop() {
	if r.done || r.stopped {
		return
	}
	r.stopped = true
	r.stop()
	r.next, r.stop = nil, nil
}

// Progress is how far a run has got.
type Progress struct {
	// Queries is the number of oracle queries made, of Planned: the count
	// of the mode's schedule, to which economy and frugal mode add what
	// they fall back to (2H for a link, the samples a frugal measurement
	// needs beyond H + 1).
	Queries, Planned int
	// Columns is the number of columns of the P_h (equivalently of the
	// W_h) fitted, of Width (d). The queries all come first; the fits of
	// the columns take most of a run's time.
	Columns, Width int
	// Final reports that every column is fitted and the global fit of all
	// heads to every answer, the run's last stage, is running or done.
	Final bool
	// Fraction estimates the share of the run's work done, from 0 to 1 (1
	// once the run is done): a weighted count of the stages above.
	Fraction float64
}

// stage is the part of a run in progress.
type stage int

const (
	stageQueries   stage = iota // the schedule's queries
	stageColumnOne              // the RFs on z_1, labelled through their links
	stageColumns                // the columns 2…d
	stageFinal                  // the global fit
)

// Shares of a run's time taken by its stages, roughly (measured natively
// at H = 2…4, d = 4…8 in both modes, they vary by a factor of two): the
// queries, column one, and the other columns together; the global fit
// takes the rest.
const (
	shareQueries   = 0.02
	shareColumnOne = 0.50
	shareColumns   = 0.23
)

// plannedQueries is the query count of opt's schedule before fallbacks.
func plannedQueries(opt Options) int {
	return opt.Mode.Queries(opt.Heads, opt.Width)
}

// tick is a checkpoint of the run: it calls the pause, if any.
func (l *learner) tick() {
	if l.pause != nil {
		l.pause(l)
	}
}

// progress reports the learner's progress.
func (l *learner) progress() Progress {
	p := Progress{Queries: l.res.Queries, Planned: max(l.planned, l.res.Queries),
		Columns: l.columns, Width: l.d, Final: l.stage == stageFinal}
	f := shareQueries * float64(p.Queries) / float64(max(1, p.Planned))
	switch l.stage {
	case stageColumnOne:
		f = shareQueries + shareColumnOne*float64(l.links)/float64(l.d)
	case stageColumns:
		f = shareQueries + shareColumnOne + shareColumns*float64(l.columns-1)/float64(max(1, l.d-1))
	case stageFinal:
		f = shareQueries + shareColumnOne + shareColumns
	}
	p.Fraction = min(f, 1)
	return p
}
