package recovery

import (
	"errors"
)

// Pause is a long run's checkpoint, called with the run's progress after
// each oracle query and each rational fit and before each trial step of a
// fit; it returns false to stop the run, which then returns ErrStopped. A
// caller paces a run with it (the compute worker yields to its event loop
// there, where a cancel can arrive); the run's numbers are Learn's, bit
// for bit, whatever the pause does.
type Pause func(Progress) bool

// ErrStopped is the error of a run its Pause stopped.
var ErrStopped = errors.New("recovery: the run was stopped")

// stopped unwinds the learner of a run its pause stopped.
type stopped struct{}

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
	q := opt.Mode.Queries(opt.Heads, opt.Width)
	if opt.Biases {
		q += BiasQueries(opt.Mode, opt.Heads, opt.Width)
	}
	return q
}
