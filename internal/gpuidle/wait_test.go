package gpuidle

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// fakeClock advances only when Wait sleeps; at each step it runs the events
// whose time has come, so a scenario spanning minutes runs in microseconds.
type fakeClock struct {
	start, now time.Time
	events     []event
}

type event struct {
	at time.Duration
	do func()
}

func newFakeClock(events ...event) *fakeClock {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	c := &fakeClock{start: t0, now: t0, events: events}
	c.fire()
	return c
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		panic("Wait slept for " + d.String())
	}
	c.now = c.now.Add(d)
	c.fire()
	return ctx.Err()
}

func (c *fakeClock) fire() {
	for len(c.events) > 0 && c.now.Sub(c.start) >= c.events[0].at {
		c.events[0].do()
		c.events = c.events[1:]
	}
}

// check is one Busy call as a recorder saw it.
type check struct {
	at    time.Time
	procs []Proc
}

// recorder wraps a Checker and keeps every answer, with the time from now.
type recorder struct {
	Checker
	now    func() time.Time
	mu     sync.Mutex
	checks []check
	seen   chan []Proc // when non-nil, gets every answer
}

func (r *recorder) Busy(ctx context.Context) ([]Proc, error) {
	procs, err := r.Checker.Busy(ctx)
	r.mu.Lock()
	r.checks = append(r.checks, check{r.now(), procs})
	r.mu.Unlock()
	if r.seen != nil {
		select {
		case r.seen <- procs:
		default:
		}
	}
	return procs, err
}

// lastBusy is the time of the last check that found something.
func (r *recorder) lastBusy(t *testing.T) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.checks) - 1; i >= 0; i-- {
		if len(r.checks[i].procs) > 0 {
			return r.checks[i].at
		}
	}
	t.Fatal("no check found anything")
	return time.Time{}
}

// TestWaitKFDEntriesComeAndGo: KFD users appear and vanish on a fake clock;
// the wait ends exactly Quiet after the last check that saw one.
func TestWaitKFDEntriesComeAndGo(t *testing.T) {
	m := newMachine(t)
	m.process(100, "python3")
	m.process(200, "mlxcel")
	clock := newFakeClock(
		event{0, func() { m.open(100) }},
		event{5 * time.Second, func() { m.close(100) }},
		event{8 * time.Second, func() { m.open(200) }},
		event{12500 * time.Millisecond, func() { m.close(200) }},
		event{14 * time.Second, func() { m.process(300, "cc1plus") }},
		event{40 * time.Second, func() { os.RemoveAll(filepath.Join(m.procs, "300")) }},
	)
	rec := &recorder{Checker: m.probe(), now: clock.Now}
	var log bytes.Buffer
	opts := Options{Quiet: 90 * time.Second, Max: 30 * time.Minute, Poll: time.Second, Clock: clock, Log: &log}
	res, err := Wait(context.Background(), rec, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(clock.events) != 0 {
		t.Fatalf("Wait returned before %d event(s) happened", len(clock.events))
	}
	last := rec.lastBusy(t)
	if end := clock.start.Add(res.Waited); end.Sub(last) != opts.Quiet {
		t.Fatalf("returned %s after the last busy check, want exactly %s", end.Sub(last), opts.Quiet)
	}
	// Every process was seen, and checks were never further apart than Poll.
	seen := map[string]bool{}
	for i, c := range rec.checks {
		for _, p := range c.procs {
			seen[p.String()] = true
		}
		if i > 0 && c.at.Sub(rec.checks[i-1].at) > opts.Poll {
			t.Errorf("checks %d and %d are %s apart", i, i+1, c.at.Sub(rec.checks[i-1].at))
		}
	}
	for _, p := range []string{"pid 100 python3 [GPU (KFD)]", "pid 200 mlxcel [GPU (KFD)]", "pid 300 cc1plus [compiler]"} {
		if !seen[p] || !strings.Contains(log.String(), p) {
			t.Errorf("%s: seen %v, in the log: %v", p, seen[p], strings.Contains(log.String(), p))
		}
	}
	if res.Checks != len(rec.checks) {
		t.Errorf("Result.Checks %d, recorder saw %d", res.Checks, len(rec.checks))
	}
}

// TestWaitRealTime runs the wait on the real clock while a goroutine adds and
// removes KFD entries. Each entry is removed only after a check has seen it,
// and the pauses between entries are far below the quiet time, so the test
// does not depend on scheduling luck.
func TestWaitRealTime(t *testing.T) {
	m := newMachine(t)
	m.process(300, "python3")
	rec := &recorder{Checker: m.probe(), now: time.Now, seen: make(chan []Proc, 1)}
	opts := Options{Quiet: time.Second, Max: time.Minute, Poll: 10 * time.Millisecond}
	var (
		wg      sync.WaitGroup
		removed time.Time // when the last entry went away; zero until then
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		// waitFor returns true once a check has seen pid present (or absent),
		// false when the wait is over.
		waitFor := func(pid int, present bool) bool {
			for procs := range rec.seen {
				found := false
				for _, p := range procs {
					found = found || p.PID == pid
				}
				if found == present {
					return true
				}
			}
			return false
		}
		time.Sleep(50 * time.Millisecond) // let the quiet time start
		for i, pid := range []int{300, 301, 302} {
			m.open(pid)
			if !waitFor(pid, true) {
				return
			}
			time.Sleep(20 * time.Millisecond)
			rec.mu.Lock()
			m.close(pid)
			if i == 2 {
				removed = time.Now()
			}
			rec.mu.Unlock()
			time.Sleep(50 * time.Millisecond)
		}
		for range rec.seen { // keep draining until the wait is over
		}
	}()
	start := time.Now()
	res, err := Wait(context.Background(), rec, opts)
	end := time.Now()
	close(rec.seen) // Wait has returned: Busy sends no more
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if removed.IsZero() || end.Before(removed) {
		t.Fatalf("Wait returned after %s, before the last entry went away", end.Sub(start))
	}
	if d := end.Sub(rec.lastBusy(t)); d < opts.Quiet {
		t.Fatalf("returned %s after the last busy check, want at least %s", d, opts.Quiet)
	}
	if seen := len(rec.checks); seen < 10 || res.Checks != seen {
		t.Fatalf("%d checks (Result says %d)", seen, res.Checks)
	}
}

func TestWaitCUDAFakeNvidiaSmi(t *testing.T) {
	bin := t.TempDir()
	smi := fakeSmi(t, bin)
	apps := filepath.Join(bin, "apps")
	write(t, apps, "5150, ollama\n")
	clock := newFakeClock(event{20 * time.Second, func() { write(t, apps, "") }})
	rec := &recorder{Checker: &Probe{NvidiaSmi: smi, ProcRoot: t.TempDir()}, now: clock.Now}
	opts := Options{Quiet: 10 * time.Second, Max: time.Hour, Poll: 5 * time.Second, Clock: clock}
	res, err := Wait(context.Background(), rec, opts)
	if err != nil {
		t.Fatal(err)
	}
	last := rec.lastBusy(t)
	if rec.checks[0].procs[0] != (Proc{5150, "ollama", "GPU (nvidia-smi)"}) || clock.start.Add(res.Waited).Sub(last) != opts.Quiet {
		t.Fatalf("checks %+v, waited %s", rec.checks, res.Waited)
	}
}

func TestWaitTimeout(t *testing.T) {
	m := newMachine(t)
	m.process(100, "python3")
	m.process(101, "hipcc")
	m.open(100)
	clock := newFakeClock()
	opts := Options{Quiet: 90 * time.Second, Max: 10 * time.Minute, Poll: 7 * time.Second, Clock: clock}
	res, err := Wait(context.Background(), m.probe(), opts)
	var te *TimeoutError
	if !errors.As(err, &te) || isConfig(err) {
		t.Fatalf("want a *TimeoutError, got %v", err)
	}
	if res.Waited != opts.Max {
		t.Errorf("gave up after %s, want %s", res.Waited, opts.Max)
	}
	for _, s := range []string{"pid 100 python3 [GPU (KFD)]", "pid 101 hipcc [compiler]", "still running", "MLXBUILD_IDLE_MAX"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message lacks %q: %v", s, err)
		}
	}

	// Quiet too late: the message names what ran last and when.
	m2 := newMachine(t)
	m2.process(100, "python3")
	m2.open(100)
	clock = newFakeClock(event{opts.Max - 30*time.Second, func() { m2.close(100) }})
	_, err = Wait(context.Background(), m2.probe(), Options{Quiet: opts.Quiet, Max: opts.Max, Poll: time.Second, Clock: clock})
	if !errors.As(err, &te) || len(te.Running) != 0 || !strings.Contains(err.Error(), "last busy 31s ago: pid 100 python3") {
		t.Fatalf("late quiet: %v", err)
	}
}

func TestWaitZeroQuiet(t *testing.T) {
	m := newMachine(t)
	m.process(100, "python3")
	m.open(100)
	clock := newFakeClock(event{3 * time.Second, func() { m.close(100) }})
	res, err := Wait(context.Background(), m.probe(), Options{Max: time.Minute, Poll: time.Second, Clock: clock})
	if err != nil || res.Waited != 3*time.Second {
		t.Fatalf("zero quiet time must end at the first empty check: %+v %v", res, err)
	}
}

func TestWaitCancel(t *testing.T) {
	m := newMachine(t)
	m.open(100)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Wait(ctx, m.probe(), Options{Quiet: time.Hour, Max: 2 * time.Hour, Poll: 10 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("cancel: %v after %s", err, time.Since(start))
	}
}

func TestValidate(t *testing.T) {
	for _, o := range []Options{
		{Quiet: -time.Second, Max: time.Minute, Poll: time.Second},
		{Quiet: time.Second, Max: time.Minute},
		{Quiet: 2 * time.Minute, Max: time.Minute, Poll: time.Second},
	} {
		if _, err := Wait(context.Background(), &Probe{}, o); !isConfig(err) {
			t.Errorf("%+v: want a *ConfigError, got %v", o, err)
		}
	}
}

func TestRun(t *testing.T) {
	m := newMachine(t)
	m.process(4242, "python3")
	m.open(4242)
	env := map[string]string{EnvKFDProc: m.kfd, "PATH": t.TempDir()}
	getenv := func(k string) string { return env[k] }
	var log bytes.Buffer
	zero := time.Duration(0)
	// A zero maximum gives one check: it finds the KFD user (whatever the real
	// /proc holds besides) and says so.
	err := Run(context.Background(), 0, &zero, getenv, &log)
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "pid 4242") {
		t.Fatalf("busy GPU: %v", err)
	}
	if !strings.Contains(log.String(), "KFD: "+m.kfd) || !strings.Contains(log.String(), "CUDA: no nvidia-smi") {
		t.Errorf("the log does not say what is watched:\n%s", log.String())
	}
	for name, call := range map[string]func() error{
		"negative seconds": func() error { return Run(context.Background(), -time.Second, nil, getenv, &log) },
		"max below quiet":  func() error { d := time.Second; return Run(context.Background(), time.Minute, &d, getenv, &log) },
		"bad MLXBUILD_IDLE": func() error {
			env[EnvIdleMax] = "later"
			defer delete(env, EnvIdleMax)
			return Run(context.Background(), 0, nil, getenv, &log)
		},
		"missing KFD dir": func() error {
			env[EnvKFDProc] = filepath.Join(m.kfd, "nope")
			defer func() { env[EnvKFDProc] = m.kfd }()
			return Run(context.Background(), 0, &zero, getenv, &log)
		},
	} {
		if err := call(); !isConfig(err) {
			t.Errorf("%s: want a *ConfigError, got %v", name, err)
		}
	}
}

// isConfig reports whether err is the user's to fix (exit status 2).
func isConfig(err error) bool { return err != nil && fail.KindOf(err) == fail.Config }
