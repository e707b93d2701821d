package flow_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// stopOnDone cancels its run when the build's summary ("done: ...") is
// written: a signal that lands between the build and verify's checks.
type stopOnDone struct {
	bytes.Buffer
	stop context.CancelFunc
}

func (w *stopOnDone) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("done: ")) {
		w.stop()
	}
	return w.Buffer.Write(b)
}

// TestVerifyStoppedAfterTheBuildFails stops verify:cpu right after its
// build: the checks left unrun must not make a passing gate.
func TestVerifyStoppedAfterTheBuildFails(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	stderr := &stopOnDone{stop: stop}
	var stdout bytes.Buffer
	r, err := flow.Verify(ctx, flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: stderr}, "cpu")
	if !strings.Contains(stderr.String(), "done: ") {
		t.Fatalf("the build did not finish before the stop: %v\n%s", err, stderr.String())
	}
	if err == nil || fail.ExitCode(err) != 1 {
		t.Fatalf("verify stopped after its build: result %+v, error %v; want an interrupt (exit 1)\n%s", r, err, stdout.String())
	}
}
