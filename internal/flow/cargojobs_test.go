package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/procscan"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestCargoJobserver runs build:cargo as `cargo build -j 4` runs a build
// script while two other jobs hold tokens: NUM_JOBS=4 and a jobserver pipe
// (CARGO_MAKEFLAGS, the fds Cargo passes) with one token free. mlxbuild
// takes that token and runs two compile jobs, never more (the compilers
// are counted in the process table while it builds), and puts the token
// back: after an interrupted build as after one that succeeded.
func TestCargoJobserver(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	// A compiler that takes a second, so jobs that run together are seen
	// together; the shell stays the compile's parent while it runs.
	cxx := filepath.Join(t.TempDir(), "slow-c++")
	testutil.WriteFile(t, cxx, "#!/bin/sh\nsleep 1\n/usr/bin/c++ \"$@\"\n")
	if err := os.Chmod(cxx, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CXX", cxx)
	tree := filepath.Join(p.Cache, "cpu", "tree") + string(filepath.Separator)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := w.Write([]byte("+")); err != nil {
		t.Fatal(err)
	}
	auth := strconv.Itoa(int(r.Fd())) + "," + strconv.Itoa(int(w.Fd()))
	env := map[string]string{"NUM_JOBS": "4", "MLXBUILD_CACHE": p.Cache, "CARGO_MAKEFLAGS": "-j --jobserver-fds=" + auth + " --jobserver-auth=" + auth}
	var stdout, stderr bytes.Buffer
	o := flow.Options{Dir: p.Dir, Env: func(k string) string { return env[k] }, Stdout: &stdout, Stderr: &stderr}
	tokenBack := func(when string) {
		t.Helper()
		// The pipe is blocking: a token that is not back would hang the
		// read, so it is asked with a deadline.
		got := make(chan string, 1)
		go func() {
			b := make([]byte, 8)
			n, _ := r.Read(b)
			got <- string(b[:n])
		}()
		select {
		case tok := <-got:
			if tok != "+" {
				t.Fatalf("%s the jobserver holds %q, want its one token", when, tok)
			}
			if _, err := w.Write([]byte(tok)); err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s the token did not come back to the jobserver", when)
		}
	}

	// Interrupted while Ninja's compilers run.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if n, _ := compilers(cxx, tree); n > 0 {
				cancel()
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	if _, err := flow.BuildForCargo(ctx, o); err == nil {
		t.Fatalf("the interrupted build succeeded:\n%s", stderr.String())
	}
	cancel()
	tokenBack("after the interrupted build")

	stderr.Reset()
	stop := testutil.SamplePeak(func() (int, string) { return compilers(cxx, tree) })
	_, err = flow.BuildForCargo(context.Background(), o)
	peak, at := stop()
	if err != nil {
		t.Fatalf("build:cargo: %v\n%s", err, stderr.String())
	}
	t.Logf("peak %d compilers: %s", peak, at)
	if !strings.Contains(stderr.String(), "build with 2 jobs") {
		t.Errorf("with one token free mlxbuild did not build with 2 jobs:\n%s", stderr.String())
	}
	if peak > 2 {
		t.Errorf("%d compilers ran at once with one free token and the implicit one: %s", peak, at)
	}
	if peak == 0 {
		t.Error("no sample saw a compiler: the sampler proves nothing")
	}
	tokenBack("after the build")
}

// compilers counts the running compiles of the slow compiler cxx of files
// in tree (CMake's own checks compile elsewhere).
func compilers(cxx, tree string) (int, string) {
	var what []string
	for _, pr := range procscan.All() {
		if !pr.Alive() {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + strconv.Itoa(pr.PID) + "/cmdline")
		if err != nil {
			continue
		}
		if args := strings.Split(string(cmd), "\x00"); len(args) > 1 && args[1] == cxx && strings.Contains(string(cmd), tree) {
			what = append(what, strconv.Itoa(pr.PID))
		}
	}
	return len(what), strings.Join(what, " ")
}
