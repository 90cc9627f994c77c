package scene

import (
	"headlab/numerics/experiment"
	"headlab/web/link"
)

// recoveryLab holds the Recovery scene's runs and noise sweeps: results of
// experiment jobs, kept by the lab's tasks. A new scene is computed from
// the link on every step, so a run (seconds at H = 3, d = 8) must outlive
// the scene; a scene for another step of the same run finds it there.
type recoveryLab struct {
	t *tasks
}

// learnRun is one finished run of recovery.Learn.
type learnRun = experiment.RecoveryRun

func learnKey(s link.State) string { return "recovery " + s.Recovery().Key() }

func sweepKey(s link.State) string { return "sweep " + s.Recovery().Key() }

func learnJob(s link.State) experiment.Job {
	r := s.Recovery()
	return experiment.Job{Kind: experiment.KindRecovery, Recovery: &r}
}

func sweepJob(s link.State) experiment.Job {
	r := s.Recovery()
	return experiment.Job{Kind: experiment.KindSweep, Recovery: &r}
}

// run returns the finished run of s, if the lab has it.
func (l *recoveryLab) run(s link.State) (learnRun, bool) {
	res, ok, msg := l.t.lookup(learnKey(s))
	if ok && res.Recovery != nil {
		return *res.Recovery, true
	}
	if msg != "" {
		return learnRun{Err: workerFailure(msg)}, true
	}
	return learnRun{}, false
}

// learn returns the run of s, asking for it: with a local runner it is
// computed now, else it is wanted and false until it arrives.
func (l *recoveryLab) learn(s link.State) (learnRun, bool) {
	res, ok, msg := l.t.get(learnKey(s), learnJob(s))
	switch {
	case ok && res.Recovery != nil:
		return *res.Recovery, true
	case msg != "":
		return learnRun{Err: workerFailure(msg)}, true
	}
	return learnRun{}, false
}

// Sweep returns the scene's noise sweep as far as it is known: finished,
// under way (the worker's last report), or not started.
func (r *Recovery) Sweep() experiment.SweepState {
	t := r.lab.t
	key := sweepKey(r.State)
	if res, ok, msg := t.lookup(key); ok && res.Sweep != nil {
		return *res.Sweep
	} else if msg != "" {
		st := experiment.EmptySweep(r.State.Recovery())
		st.Refused = workerFailure(msg).Error()
		return st
	}
	if p, ok := t.progressOf(key); ok && p.Sweep != nil {
		return *p.Sweep
	}
	return experiment.EmptySweep(r.State.Recovery())
}

func (r *Recovery) sweepFacts() map[string]any {
	st := r.Sweep()
	var eps, med []any
	var errs [][]any
	for _, p := range st.Points {
		eps = append(eps, p.X)
		med = append(med, finiteOrNil1(p.Median))
		errs = append(errs, finiteOrNil(p.Errors))
	}
	var hs []int
	var hmed []any
	var herrs [][]any
	for _, p := range st.Heads {
		hs = append(hs, int(p.X))
		hmed = append(hmed, finiteOrNil1(p.Median))
		herrs = append(herrs, finiteOrNil(p.Errors))
	}
	f := map[string]any{"eps": eps, "median": med, "errors": errs, "done": st.Done, "progress": st.Progress,
		"slowestMs": float64(st.Slowest.Microseconds()) / 1000, "largestH": st.Largest, "triedH": hs,
		"headsMedian": hmed, "headsErrors": herrs, "headsDone": st.HeadsDone, "limitH": st.LimitH}
	if st.Refused != "" {
		f["refused"] = st.Refused
	}
	if st.Doing != "" {
		f["doing"] = st.Doing
	}
	return f
}

// ---- the job ----

// recoveryJob waits for the scene's run (after a first frame that says
// "computing"), then, in the sweep view, for the noise sweep.
type recoveryJob struct {
	r       *Recovery
	started bool
	sweep   bool // the job waits for the sweep once the run is done
}

// Job returns the scene's long computation, or nil when there is none
// left: the run of Learn when the lab does not hold it, and in the sweep
// view the noise sweep.
func (r *Recovery) Job() Job {
	sweep := r.State.View == link.Sweep && !r.Sweep().Done && r.Sweep().Refused == ""
	if r.Result != nil && !sweep {
		return nil
	}
	return &recoveryJob{r: r, sweep: sweep}
}

// Step takes the run, then the sweep, once they have arrived.
func (j *recoveryJob) Step() bool {
	r := j.r
	if r.Result == nil {
		run, ok := r.lab.learn(r.State) // asked for from the first frame on
		if !j.started {
			// A first frame says "computing" even when the run comes at once.
			j.started = true
			return false
		}
		if !ok {
			return false
		}
		r.finish(run)
		return !j.sweep
	}
	if !j.sweep {
		return true
	}
	res, ok, msg := r.lab.t.get(sweepKey(r.State), sweepJob(r.State))
	return (ok && res.Sweep != nil) || msg != ""
}

// Progress is the fraction done: of the run while it is computed, then of
// the sweep (which reports 0 until the run is done, so that its progress
// only grows).
func (j *recoveryJob) Progress() float64 {
	if !j.sweep {
		if j.r.Result == nil {
			return j.r.RunProgress().Fraction
		}
		return 1
	}
	if j.r.Result == nil {
		return 0
	}
	return j.r.Sweep().Progress
}
