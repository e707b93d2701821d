package reliability

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// hangingServer is an HTTP server that answers nothing: a git fetch or a
// download from it waits until mlxbuild stops it. hits counts requests, so
// a test knows the target is inside its work before it sends a signal.
func hangingServer(t *testing.T) (url string, hits *atomic.Int32) {
	t.Helper()
	hits = new(atomic.Int32)
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // runs first: handlers return, Close can wait for them
	return srv.URL, hits
}

// TestSignalsReachEveryTarget sends SIGTERM to the compiled mlxbuild while
// each target that once ran without signal handling (build:cargo,
// deps:fetch, overlay:drift, overlay:sync, overlay:apiDrift) waits inside
// its work: on Ninja's sleeping jobs, or on a git fetch or download from a
// server that never answers. Each must exit 1 saying "<target> interrupted
// by SIGTERM" once, and leave no process it started, within stopBound.
// Without the handler SIGTERM killed mlxbuild on the spot, its git
// children orphaned.
func TestSignalsReachEveryTarget(t *testing.T) {
	bin := compiledMlxbuild(t)
	testutil.NeedTools(t, "git")
	url, hits := hangingServer(t)
	pin := strings.Repeat("a", 40)
	gitProject := func(t *testing.T) string {
		dir := t.TempDir()
		testutil.WriteFile(t, filepath.Join(dir, "mlxbuild.yaml"), fmt.Sprintf(`source:
  git: %s/mlx.git
  pin: %s
cache: build/mlxbuild
backends:
  cpu:
    overlay: overlay
    fork:
      git: %s/fork.git
      dirs: [mlx/backend/cpu]
`, url, pin, url))
		testutil.WriteFile(t, filepath.Join(dir, "overlay", "mlx", "backend", "cpu", "ops.cpp"), "int mlx_add(int a, int b) { return a + b; }\n")
		testutil.WriteFile(t, filepath.Join(dir, "overlay", "UPSTREAM"), fmt.Sprintf("source: %s/fork.git\ncommit: %s\nfork_upstream_merge_base: %s\nretargeted_to_mlx_pin: %s\n", url, pin, pin, pin))
		return dir
	}
	depsProject := func(t *testing.T) string {
		dir := t.TempDir()
		testutil.WriteFile(t, filepath.Join(dir, "mlxbuild.yaml"), "source:\n  dir: mlx\ncache: build/mlxbuild\nbackends:\n  cpu:\n    spec: cpu.yaml\n    merge: extend\n")
		sha := strings.Repeat("0", 64)
		testutil.WriteFile(t, filepath.Join(dir, "mlx", "CMakeLists.txt"), "cmake_minimum_required(VERSION 3.24)\nproject(mlx LANGUAGES CXX)\ninclude(FetchContent)\nFetchContent_Declare(hang URL "+url+"/hang.tar.gz URL_HASH SHA256="+sha+")\nFetchContent_MakeAvailable(hang)\n")
		testutil.WriteFile(t, filepath.Join(dir, "cpu.yaml"), "dependencies:\n  - name: hang\n    url: "+url+"/hang.tar.gz\n    sha256: \""+sha+"\"\n    providers: [cache]\n")
		return dir
	}
	for _, c := range []struct {
		target  string
		args    []string
		project func(*testing.T) string // nil: napProject, waiting for Ninja's jobs
	}{
		{"build:cargo", nil, nil},
		{"deps:fetch", []string{"-backend=cpu"}, depsProject},
		{"overlay:drift", []string{"-candidate=" + strings.Repeat("b", 40)}, gitProject},
		{"overlay:sync", []string{strings.Repeat("c", 40)}, gitProject},
		{"overlay:apiDrift", []string{strings.Repeat("d", 40), "-backend=cpu"}, gitProject},
	} {
		t.Run(strings.ReplaceAll(c.target, ":", "_"), func(t *testing.T) {
			cmd, marker := napBuild(t, bin, "targets-"+strings.ReplaceAll(c.target, ":", "-"), append([]string{c.target}, c.args...)...)
			if c.project != nil {
				cmd.Dir = c.project(t)
			}
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stderr, &stderr
			before := hits.Load()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			working := func() bool {
				if c.project == nil {
					return len(sleeping(marker)) >= 3
				}
				return hits.Load() > before
			}
			deadline := time.Now().Add(2 * time.Minute)
			for !working() {
				select {
				case err := <-waited:
					t.Fatalf("%s ended before it waited on its work: %v\n%s", c.target, err, stderr.String())
				default:
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s did not reach its work; output:\n%s", c.target, stderr.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			var werr error
			select {
			case werr = <-waited:
			case <-time.After(stopBound):
				t.Fatalf("mlxbuild %s still runs %s after SIGTERM; output:\n%s", c.target, stopBound, stderr.String())
			}
			took := testutil.NoneMarkedWithin(t, marker, stopBound)
			t.Logf("%s: mlxbuild ended (%v), its last descendant %s later; output:\n%s", c.target, werr, took, stderr.String())
			var ee *exec.ExitError
			if !errors.As(werr, &ee) || ee.ExitCode() != 1 {
				t.Errorf("mlxbuild %s ended with %v, want exit status 1", c.target, werr)
			}
			out := stderr.String()
			if want := c.target + " interrupted by SIGTERM"; !strings.Contains(out, want) || strings.Count(out, "interrupted") != 1 {
				t.Errorf("the output should say %q once:\n%s", want, out)
			}
		})
	}
}
