package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"headlab/numerics/recovery"
)

// drainGrace is how long a cancelled batch waits for the answers to the
// queries already sent.
const drainGrace = 2 * time.Second

// Received is called with every answer as it arrives from the oracle,
// before the batch is complete: the query, the answer and y's JSON text
// exactly as received (empty for an error answer). Log.Record is one.
type Received func(q recovery.Request, a recovery.Answer, raw string)

// ProcOptions configures a Proc. The zero value takes the defaults.
type ProcOptions struct {
	// InFlight is the most requests written and not yet answered (64).
	InFlight int
	// Timeout is how long a request may wait for its answer once written
	// (60 s).
	Timeout time.Duration
	// Received, when set, sees every answer as it arrives.
	Received Received
	// Stderr receives the oracle's standard error (os.Stderr when nil);
	// its last lines are quoted in the error when the oracle dies.
	Stderr io.Writer
}

func (o ProcOptions) inFlight() int {
	if o.InFlight > 0 {
		return o.InFlight
	}
	return 64
}

func (o ProcOptions) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return 60 * time.Second
}

// Proc is an oracle in a child process speaking the wire format over its
// standard input and output. It implements recovery.BlackBox; Close ends
// the process.
type Proc struct {
	opt   ProcOptions
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan lineOrErr // the reader's lines; closed at EOF
	tail  *tailBuffer
	done  chan struct{} // closed once the process has exited
	wait  error         // its exit status, once done
	quit  chan struct{} // closed by kill: the reader stops delivering
	once  sync.Once

	nextID int64
	err    error // set once the Proc has failed
}

type lineOrErr struct {
	w   wireAnswer
	err error
}

// StartProc starts the oracle argv[0] with arguments argv[1:].
func StartProc(argv []string, opt ProcOptions) (*Proc, error) {
	if len(argv) == 0 {
		return nil, errors.New("remote: no oracle command")
	}
	p := &Proc{opt: opt, name: strings.Join(argv, " "), tail: &tailBuffer{}, lines: make(chan lineOrErr, 64), done: make(chan struct{}), quit: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	ownGroup(p.cmd)
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var errw io.Writer = os.Stderr
	if opt.Stderr != nil {
		errw = opt.Stderr
	}
	p.cmd.Stderr = io.MultiWriter(errw, p.tail)
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("remote: starting the oracle %q: %w", p.name, err)
	}
	go p.read(stdout)
	return p, nil
}

// read parses the oracle's lines until EOF, then waits for the process.
func (p *Proc) read(stdout io.Reader) {
	r := bufio.NewReaderSize(stdout, MaxLine)
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			msg := fmt.Sprintf("an answer line longer than %d bytes", MaxLine)
			if id, ok := sniffID(line); ok {
				msg = fmt.Sprintf("query id %d: %s", id, msg)
			}
			p.deliver(lineOrErr{err: errors.New(msg)})
			break
		}
		if len(strings.TrimSpace(string(line))) > 0 {
			w, perr := parseAnswer(line)
			if !p.deliver(lineOrErr{w: w, err: perr}) || perr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	go io.Copy(io.Discard, stdout) // let the child finish writing
	p.wait = p.cmd.Wait()
	close(p.done)
	close(p.lines)
}

// deliver hands a line to Answer unless the Proc was killed.
func (p *Proc) deliver(l lineOrErr) bool {
	select {
	case p.lines <- l:
		return true
	case <-p.quit:
		return false
	}
}

// exited describes the process's end for an error message.
func (p *Proc) exited() error {
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
		return fmt.Errorf("the oracle %q closed its output", p.name)
	}
	status := "exited normally"
	if p.wait != nil {
		status = p.wait.Error()
	}
	msg := fmt.Sprintf("the oracle %q stopped (%s)", p.name, status)
	if t := p.tail.last(); t != "" {
		msg += "; its last words: " + t
	}
	return errors.New(msg)
}

// Answer sends the batch and reads its answers, in the batch's order. The
// first failure (ctx done, a malformed or missing answer, a dead oracle)
// kills the process and is returned by this and every later call.
func (p *Proc) Answer(ctx context.Context, batch []recovery.Request) ([]recovery.Answer, error) {
	if p.err != nil {
		return nil, fmt.Errorf("%w: %v", errFailed, p.err)
	}
	out, err := p.answer(ctx, batch)
	if err != nil {
		p.err = err
		p.kill()
		return nil, fmt.Errorf("remote: %w", err)
	}
	return out, nil
}

func (p *Proc) answer(ctx context.Context, batch []recovery.Request) ([]recovery.Answer, error) {
	n := len(batch)
	if n == 0 {
		return nil, nil
	}
	first := p.nextID
	p.nextID += int64(n)
	out := make([]recovery.Answer, n)
	got := make([]bool, n)
	sent := make([]time.Time, n)
	var mu sync.Mutex // guards sent
	slots := make(chan struct{}, p.opt.inFlight())
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	defer halt()
	werr := make(chan error, 1)
	wdone := make(chan struct{})
	go func() { // the writer
		defer close(wdone)
		w := bufio.NewWriterSize(p.stdin, 1<<16)
		var b []byte
		for i, q := range batch {
			select {
			case slots <- struct{}{}:
			case <-stop:
				w.Flush() // what is marked sent is sent
				return
			}
			b = appendRequest(b[:0], first+int64(i), q)
			b = append(b, '\n')
			mu.Lock()
			sent[i] = time.Now()
			mu.Unlock()
			if _, err := w.Write(b); err != nil {
				werr <- err
				return
			}
			if len(slots) == cap(slots) || i == n-1 { // flush before waiting for a slot
				if err := w.Flush(); err != nil {
					werr <- err
					return
				}
			}
		}
	}()
	// take files an answer, reporting whether it fails the batch.
	take := func(l lineOrErr) error {
		if l.err != nil {
			return l.err
		}
		k := l.w.id - first
		if k < 0 || k >= int64(n) {
			return fmt.Errorf("query id %d: an answer to an unknown id (this batch has ids %d…%d)", l.w.id, first, first+int64(n)-1)
		}
		mu.Lock()
		unsent := sent[k].IsZero()
		mu.Unlock()
		if unsent {
			return fmt.Errorf("query id %d: an answer to an id not yet sent", l.w.id)
		}
		if got[k] {
			return fmt.Errorf("query id %d: answered twice", l.w.id)
		}
		got[k], out[k] = true, l.w.a
		<-slots
		if p.opt.Received != nil {
			p.opt.Received(batch[k], l.w.a, l.w.raw)
		}
		return nil
	}
	// drain waits a little for the answers to queries already sent, so
	// that Received sees them (a resumed run need not ask them again).
	drain := func() {
		halt()
		grace := time.NewTimer(min(p.opt.timeout(), drainGrace))
		defer grace.Stop()
		select {
		case <-wdone:
		case <-grace.C:
			return
		}
		mu.Lock()
		pending := 0
		for k := range sent {
			if !sent[k].IsZero() && !got[k] {
				pending++
			}
		}
		mu.Unlock()
		for pending > 0 {
			select {
			case l, ok := <-p.lines:
				if !ok || take(l) != nil {
					return
				}
				pending--
			case <-grace.C:
				return
			}
		}
	}
	timer := time.NewTimer(p.opt.timeout())
	defer timer.Stop()
	left, oldest := n, 0
	for left > 0 {
		select {
		case <-ctx.Done():
			drain()
			return nil, fmt.Errorf("query id %d: %w", first+int64(oldest), ctx.Err())
		case err := <-werr:
			return nil, fmt.Errorf("query id %d: writing to the oracle: %v; %v", first+int64(oldest), err, p.exited())
		case <-timer.C:
			mu.Lock()
			t := sent[oldest]
			mu.Unlock()
			wait := time.Since(t)
			if !t.IsZero() && wait >= p.opt.timeout() {
				return nil, fmt.Errorf("query id %d: no answer within %v (%d of the batch's %d unanswered)", first+int64(oldest), p.opt.timeout(), left, n)
			}
			if t.IsZero() {
				wait = 0
			}
			timer.Reset(p.opt.timeout() - wait)
		case l, ok := <-p.lines:
			if !ok {
				return nil, fmt.Errorf("query id %d: no answer: %v", first+int64(oldest), p.exited())
			}
			if err := take(l); err != nil {
				return nil, err
			}
			left--
			k := l.w.id - first
			if int(k) == oldest {
				for oldest < n && got[oldest] {
					oldest++
				}
				if !timer.Stop() {
					select {
					case <-timer.C:
					default:
					}
				}
				timer.Reset(p.opt.timeout())
			}
		}
	}
	return out, nil
}

// kill ends the process at once.
func (p *Proc) kill() {
	p.once.Do(func() { close(p.quit) })
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
	}
	p.stdin.Close()
}

// Close closes the oracle's input and waits for it to exit, killing it
// after a grace period. It returns the process's exit error, if any
// (nil after a failure, which already ended it).
func (p *Proc) Close() error {
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.kill()
		<-p.done
	}
	if p.err != nil {
		return nil
	}
	if p.wait != nil {
		return fmt.Errorf("remote: the oracle %q: %v", p.name, p.wait)
	}
	return nil
}

// tailBuffer keeps the last bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 4096 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-2048:]...)
	}
	return len(b), nil
}

// last returns the last few lines, on one line.
func (t *tailBuffer) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	s := strings.Join(lines, " | ")
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return s
}
