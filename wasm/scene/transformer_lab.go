package scene

import (
	"math"

	"headlab/numerics/experiment"
	"headlab/web/link"
)

// transformerLab holds the Transformer scene's runs, results of
// experiment jobs kept by the lab's tasks: a new scene is computed from
// the link on every step, and finds the run there.
type transformerLab struct {
	t *tasks
}

// transformerRun is one finished run of transformer.Learn with its
// comparison against the true network.
type transformerRun = experiment.TransformerRun

func transformerKey(s link.State) string { return "transformer " + s.Transformer().Key() }

func transformerJob(s link.State) experiment.Job {
	t := s.Transformer()
	return experiment.Job{Kind: experiment.KindTransformer, Transformer: &t}
}

// run returns the finished run of s, if the lab has it (asking for it
// when ask is set: computed now by a local lab, else wanted).
func (l *transformerLab) run(s link.State, ask bool) (transformerRun, bool) {
	var res experiment.Result
	var ok bool
	var msg string
	if ask {
		res, ok, msg = l.t.get(transformerKey(s), transformerJob(s))
	} else {
		res, ok, msg = l.t.lookup(transformerKey(s))
	}
	switch {
	case ok && res.Transformer != nil:
		return *res.Transformer, true
	case msg != "":
		return transformerRun{Err: workerFailure(msg), Agreement: math.NaN()}, true
	}
	return transformerRun{}, false
}

// progress returns the worker's last report on the run of s.
func (l *transformerLab) progress(s link.State) float64 {
	if p, ok := l.t.progressOf(transformerKey(s)); ok {
		return p.Fraction
	}
	return 0
}

// transformerJob waits for the scene's run, after a first frame that says
// "computing".
type transformerWait struct {
	t       *Transformer
	started bool
}

// Job returns the scene's long computation, the run of Learn, or nil when
// the lab holds it.
func (t *Transformer) Job() Job {
	if t.Run != nil {
		return nil
	}
	return &transformerWait{t: t}
}

// Step takes the run once it has arrived.
func (j *transformerWait) Step() bool {
	if j.t.Run != nil {
		return true
	}
	if !j.started {
		j.started = true
		return false
	}
	run, ok := j.t.lab.run(j.t.State, true)
	if !ok {
		return false
	}
	j.t.finish(run)
	return true
}

// Progress is the fraction of the run done, as the worker last reported.
func (j *transformerWait) Progress() float64 {
	if j.t.Run != nil {
		return 1
	}
	return j.t.lab.progress(j.t.State)
}
