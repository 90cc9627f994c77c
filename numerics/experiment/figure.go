package experiment

import (
	"errors"
	"fmt"
)

// Figure names the experiments a figure draws, each nil when the figure
// needs none. A figure asks for them (plots.Needs) and draws what
// RunFigure returns: the same experiments, with the same set-ups, that the
// page's compute worker runs for the canvas, so a figure shows the
// canvas's numbers and computes none of its own.
type Figure struct {
	// Recovery is one recovery run (Learn): the rational function of a
	// step, the recovered heads.
	Recovery *Recovery
	// Sweep is the noise sweep's set-up (Sweep).
	Sweep *Recovery
	// Transformer is one transformer run (LearnTransformer).
	Transformer *Transformer
	// Merged is general fusion's measured counts (MergedCounts).
	Merged *Merged
}

// Merged is MergedCounts' set-up: m atoms per head, up to MaxH heads,
// drawn from Seed.
type Merged struct {
	M, MaxH int
	Seed    uint64
}

// FigureRuns holds what RunFigure computed, in the field of each
// experiment Figure asked for.
type FigureRuns struct {
	// Recovery is the recovery run; its Err is kept (a run that cannot be
	// resolved still has its trace).
	Recovery *RecoveryRun
	Sweep    *SweepState
	// Transformer is the transformer run; its Err is kept (a failed
	// condition still has the steps made).
	Transformer *TransformerRun
	// Shared and Random are the merged counts, when Merged was asked for.
	Shared, Random []int
}

// RunFigure runs the experiments f names, one after the other, paced by pace.
// A sweep the page refuses is an error here too.
func RunFigure(pace Pacer, f Figure) (FigureRuns, error) {
	var out FigureRuns
	if f.Recovery != nil {
		run, err := Learn(pace, *f.Recovery)
		if err != nil {
			return FigureRuns{}, fmt.Errorf("experiment: recovery: %w", err)
		}
		out.Recovery = &run
	}
	if f.Sweep != nil {
		st, err := Sweep(pace, *f.Sweep)
		if err != nil {
			return FigureRuns{}, err
		}
		if st.Refused != "" {
			return FigureRuns{}, errors.New("experiment: " + st.Refused)
		}
		out.Sweep = &st
	}
	if f.Transformer != nil {
		run, err := LearnTransformer(pace, *f.Transformer)
		if err != nil {
			return FigureRuns{}, err
		}
		out.Transformer = &run
	}
	if f.Merged != nil {
		var err error
		out.Shared, out.Random, err = MergedCounts(f.Merged.M, f.Merged.MaxH, f.Merged.Seed)
		if err != nil {
			return FigureRuns{}, err
		}
	}
	return out, nil
}
