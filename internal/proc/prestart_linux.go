package proc

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// A supervisor costs a start of this executable (Go's runtime and the
// package initializers before this package's init) on every program, about
// as long as a no-op Ninja run. Prestart pays it early: the supervisor is
// started before the program is known, while the caller is still loading
// its configuration, and waits on a pipe for the program (request.go). It
// is the same supervisor as Run's own (own process group, death signal,
// subreaper), started from a thread kept locked for its whole life, so
// every guarantee of the package holds from the moment it exists: while it
// waits, mlxbuild's death (SIGKILL included) ends it through its death
// signal, and a closed pipe ends it too.
type prestarted struct {
	cmd            *exec.Cmd
	l              *launch
	req            *os.File // the write end of its request pipe (its fd 4)
	stdout, stderr *os.File // the read ends of the program's output pipes
	waited         <-chan error
	once           sync.Once
}

// warm is the prestarted supervisor the next eligible Run takes.
var warm atomic.Pointer[prestarted]

// Prestart starts a supervisor for the next program Run starts, unless one
// is waiting already, and returns a release that ends it when no Run took
// it (call it when the work that might run a program is over). It changes
// no outcome: when it cannot start one, Run starts its own, and says why.
func Prestart() (release func()) {
	if warm.Load() != nil {
		return func() {}
	}
	p, err := prestart()
	if err != nil {
		return func() {}
	}
	if !warm.CompareAndSwap(nil, p) {
		p.discard()
		return func() {}
	}
	return func() {
		if warm.CompareAndSwap(p, nil) {
			p.discard()
		}
	}
}

func prestart() (*prestarted, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var files []*os.File // every end; the child's are closed once it started
	pipe := func() (r, w *os.File) {
		if err != nil {
			return nil, nil
		}
		if r, w, err = os.Pipe(); err == nil {
			files = append(files, r, w)
		}
		return r, w
	}
	statusR, statusW := pipe()
	reqR, reqW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	if err != nil {
		closeAll(files)
		return nil, err
	}
	cmd := &exec.Cmd{
		Path:        self,
		Args:        []string{superviseArg0},
		Env:         supervisorEnv(os.Environ()),
		Stdout:      outW, // files: the program gets them as they are, no copying here
		Stderr:      errW,
		ExtraFiles:  []*os.File{statusW, reqR}, // fds 3 and 4
		SysProcAttr: supervisorAttr(),
	}
	started, waited := startLocked(cmd)
	err = <-started
	closeAll([]*os.File{statusW, reqR, outW, errW})
	if err != nil {
		closeAll([]*os.File{statusR, reqW, outR, errR})
		return nil, err
	}
	return &prestarted{cmd: cmd, l: &launch{confirm: confirmFrom(statusR), stop: stopSupervisor},
		req: reqW, stdout: outR, stderr: errR, waited: waited}, nil
}

// usePrestarted runs c's program (resolved to path) in the waiting
// supervisor, its output copied to stdout and stderr, and returns nil when
// there is none, when c needs what a prestarted one cannot give (standard
// input: its own is /dev/null), or when it is gone: Run then starts one.
func usePrestarted(path string, c Cmd, stdout, stderr io.Writer) *running {
	if c.Stdin != nil {
		return nil
	}
	p := warm.Swap(nil)
	if p == nil {
		return nil
	}
	env, dir := c.Env, c.Dir
	if env == nil {
		env = os.Environ()
	}
	if dir == "" {
		// The supervisor's directory is the one this process had when
		// it started; the program runs in the current one.
		var err error
		if dir, err = os.Getwd(); err != nil {
			p.discard()
			return nil
		}
	}
	data, err := request{Dir: dir, Argv: append([]string{path}, c.Args...), Env: withoutVar(env, superviseEnv)}.encode()
	if err == nil {
		_, err = p.req.Write(data)
	}
	if err != nil {
		p.discard()
		return nil
	}
	p.req.Close()
	r := &running{cmd: p.cmd, l: p.l, done: make(chan struct{})}
	var copied sync.WaitGroup
	for _, o := range []struct {
		from *os.File
		to   io.Writer
	}{{p.stdout, stdout}, {p.stderr, stderr}} {
		copied.Add(1)
		go func() { defer copied.Done(); _, _ = io.Copy(o.to, o.from) }()
	}
	go func() {
		r.err = <-p.waited
		// What exec.Cmd's WaitDelay does for Run's own supervisors.
		all := make(chan struct{})
		go func() { copied.Wait(); close(all) }()
		select {
		case <-all:
		case <-time.After(outputDelay):
			if r.err == nil {
				r.err = exec.ErrWaitDelay
			}
		}
		closeAll([]*os.File{p.stdout, p.stderr})
		close(r.done)
	}()
	return r
}

// discard ends an unused prestarted supervisor (its request pipe closes
// with nothing on it) and waits for it.
func (p *prestarted) discard() {
	p.once.Do(func() {
		p.req.Close()
		<-p.waited
		closeAll([]*os.File{p.stdout, p.stderr})
		_ = p.l.confirm()
	})
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}
