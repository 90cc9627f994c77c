package scene

import (
	"fmt"
	"sync"

	"headlab/numerics/experiment"
)

// Runner runs an experiment's job to its end, as experiment.Run does.
type Runner func(experiment.Pacer, experiment.Job) (experiment.Result, error)

// tasks keeps the results of the experiments the scenes asked for, by key
// (a pure function of the key, the timings excepted), and, for the canvas,
// the jobs asked for and not yet answered. With a Runner (NewLocalLab) a
// job runs at once where it is asked for; without one (NewLab, the
// canvas) it is only listed, and the canvas sends it to the compute
// worker, which runs it off the canvas's thread, and Delivers the result.
type tasks struct {
	mu       sync.Mutex
	run      Runner
	done     map[string]experiment.Result
	order    []string // keys of done, oldest first
	failed   map[string]string
	progress map[string]experiment.Progress
	wanted   map[string]experiment.Job
}

// maxResults bounds the results kept; the oldest go first.
const maxResults = 24

func newTasks(run Runner) *tasks {
	return &tasks{run: run, done: map[string]experiment.Result{}, failed: map[string]string{},
		progress: map[string]experiment.Progress{}, wanted: map[string]experiment.Job{}}
}

// lookup returns the result of key, and without one its failure ("" for
// none); it does not ask for the job.
func (t *tasks) lookup(key string) (experiment.Result, bool, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.done[key]
	return r, ok, t.failed[key]
}

// get returns the result of key, asking for job when there is none (and
// it did not fail): computed now with a runner, else listed as wanted.
func (t *tasks) get(key string, job experiment.Job) (experiment.Result, bool, string) {
	t.mu.Lock()
	if r, ok := t.done[key]; ok {
		t.mu.Unlock()
		return r, true, ""
	}
	if msg, ok := t.failed[key]; ok {
		t.mu.Unlock()
		return experiment.Result{}, false, msg
	}
	run := t.run
	if run == nil {
		t.wanted[key] = job
		t.mu.Unlock()
		return experiment.Result{}, false, ""
	}
	t.mu.Unlock()
	res, err := run(experiment.Pacer{}, job)
	if err != nil {
		t.fail(key, err.Error())
		return experiment.Result{}, false, err.Error()
	}
	t.deliver(key, res)
	return res, true, ""
}

func (t *tasks) deliver(key string, r experiment.Result) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.progress, key)
	delete(t.failed, key)
	if _, ok := t.done[key]; !ok {
		t.order = append(t.order, key)
	}
	t.done[key] = r
	for len(t.order) > maxResults {
		delete(t.done, t.order[0])
		t.order = t.order[1:]
	}
}

func (t *tasks) fail(key, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.progress, key)
	t.failed[key] = msg
}

func (t *tasks) report(key string, p experiment.Progress) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.progress[key] = p
}

func (t *tasks) progressOf(key string) (experiment.Progress, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.progress[key]
	return p, ok
}

// Wanted returns the jobs the scenes asked for since the last call, by
// key, and forgets them: the canvas calls it once a frame, starts the jobs
// not running yet and cancels the running ones no longer wanted.
func (l *Lab) Wanted() map[string]experiment.Job {
	t := l.tasks
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.wanted
	t.wanted = map[string]experiment.Job{}
	return w
}

// Deliver stores the result of the job of key.
func (l *Lab) Deliver(key string, r experiment.Result) { l.tasks.deliver(key, r) }

// Report stores how far the job of key has got.
func (l *Lab) Report(key string, p experiment.Progress) { l.tasks.report(key, p) }

// Fail records that the job of key could not be run (the compute worker
// failed, say): the scene shows msg instead of asking again, until
// ForgetFailures.
func (l *Lab) Fail(key, msg string) { l.tasks.fail(key, msg) }

// ForgetFailures lets every failed job be asked for again: the canvas
// calls it when the state changes, so that the next set-up runs afresh.
func (l *Lab) ForgetFailures() {
	t := l.tasks
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = map[string]string{}
}

// workerFailure is the error a scene shows for a job that could not run.
func workerFailure(msg string) error {
	return fmt.Errorf("scene: the computation could not be run: %s", msg)
}
