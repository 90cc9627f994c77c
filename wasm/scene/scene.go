package scene

import (
	"headlab/web/link"
)

// Scene is one of the page's scenes computed from a state: what it shows
// as numbers (Facts, under the names of the page's test contract) and as a
// sentence (Describe, the canvas's text alternative).
type Scene interface {
	// Link returns the state the scene was computed from.
	Link() link.State
	// Facts returns the numbers the scene shows.
	Facts() map[string]any
	// Describe returns a sentence stating what the canvas shows.
	Describe() string
}

// Job is a scene's long computation: the canvas calls Step once a frame
// until it reports done, and shows Progress. Step asks the lab for the
// experiments the scene needs (run elsewhere, see Lab) and takes their
// results once they are there; it never computes long itself.
type Job interface {
	// Step takes what has arrived and reports whether the job is finished.
	Step() (done bool)
	// Progress is the fraction done, from 0 to 1.
	Progress() float64
}

// Lab keeps what the scenes compute once and reuse from one state to the
// next: a new scene is computed from the link on every change of a control,
// but the fused W_20 head (168 MB), a recovery run or a noise sweep must
// outlive it. Each cached result is a pure function of its key, so a lab
// changes no number a scene shows. Whoever creates scenes owns the lab (the
// canvas keeps one for the page's life); nothing is kept globally.
//
// The scenes' long computations (package experiment) run elsewhere: a lab
// from NewLab lists the jobs the scenes want (Wanted), and the canvas
// sends them to the compute worker and Delivers their results; a lab from
// NewLocalLab runs them at once, where they are asked for (tests, tools).
type Lab struct {
	atoms    *atomsLab
	recovery *recoveryLab
	tasks    *tasks

	transformer *transformerLab
}

// NewLab returns an empty lab whose jobs are run by its owner (Wanted,
// Deliver).
func NewLab() *Lab { return NewLocalLab(nil) }

// NewLocalLab returns an empty lab that runs the scenes' jobs with run
// (experiment.Run, usually) when they are asked for; nil is NewLab.
func NewLocalLab(run Runner) *Lab {
	t := newTasks(run)
	return &Lab{atoms: newAtomsLab(t), recovery: &recoveryLab{t: t}, tasks: t, transformer: &transformerLab{t: t}}
}

// New computes the scene a state selects, reusing what lab holds (a nil
// lab means a fresh one).
func New(s link.State, lab *Lab) (Scene, error) {
	if lab == nil {
		lab = NewLab()
	}
	switch s.Scene {
	case link.Atoms:
		return NewAtoms(s, lab)
	case link.Recovery:
		return NewRecovery(s, lab)
	case link.Transformer:
		return NewTransformer(s, lab)
	default:
		return NewAttention(s)
	}
}

// Link returns the state the scene was computed from.
func (a *Attention) Link() link.State { return a.State }
