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

// Job is a long computation a scene runs a slice at a time, so that the
// page keeps drawing: the canvas calls Step until it reports done, within a
// few milliseconds per frame, and shows Progress.
type Job interface {
	// Step does a small piece of work (a few milliseconds at most) and
	// reports whether the job is finished.
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
type Lab struct {
	atoms    *atomsLab
	recovery *recoveryLab
}

// NewLab returns an empty lab.
func NewLab() *Lab {
	return &Lab{atoms: newAtomsLab(), recovery: newRecoveryLab()}
}

// New computes the scene a state selects, reusing what lab holds (a nil
// lab means a fresh one).
func New(s link.State, lab *Lab) (Scene, error) {
	if lab == nil {
		lab = NewLab()
	}
	switch s.Scene {
	case "atoms":
		return NewAtoms(s, lab)
	case "recovery":
		return NewRecovery(s, lab)
	default:
		return NewAttention(s)
	}
}

// Link returns the state the scene was computed from.
func (a *Attention) Link() link.State { return a.State }
