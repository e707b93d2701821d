package proc_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	. "github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestStopReachesNinjasJobsOnATerminal: a Ninja on a pseudo-terminal (as
// a build for a person runs) is stopped as one on pipes is: Run returns
// promptly as interrupted, Ninja says so on its terminal, no job survives.
func TestStopReachesNinjasJobsOnATerminal(t *testing.T) {
	testutil.NeedTools(t, "ninja", "sleep")
	marker, env := marked(t)
	dir := sleepingNinja(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type out struct {
		res Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := Run(ctx, Cmd{Path: "ninja", Args: []string{"-C", dir, "-j", "3"}, Env: append(env, "TERM=xterm"), Terminal: true})
		done <- out{res, err}
	}()
	testutil.WaitMarked(t, marker, 5, 10*time.Second)
	cancel()
	var o out
	select {
	case o = <-done:
	case <-time.After(stopBound):
		t.Fatalf("Run did not return %s after the stop", stopBound)
	}
	if !errors.Is(o.err, ErrInterrupted) || !o.res.Interrupted || !o.res.Terminal {
		t.Errorf("cancelled: %v (%+v)", o.err, o.res)
	}
	// On a terminal Ninja shows each edge as it starts, and then the stop.
	if s := string(o.res.Stdout); !strings.Contains(s, "\x1b[K") || !strings.Contains(s, "interrupted by user") {
		t.Errorf("ninja's terminal output:\n%q", s)
	}
	testutil.NoneMarkedWithin(t, marker, stopBound)
}
