package reliability

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// stopBound is how long a process mlxbuild started may outlive mlxbuild:
// proc.Grace (2 s) between SIGTERM and SIGKILL, and room for a slow machine.
const stopBound = 8 * time.Second

// napProject writes a project whose CPU build runs three custom commands
// that sleep for ten minutes, in parallel (MLXBUILD_JOBS=3): a build that
// is surely running Ninja's jobs when the signal comes.
func napProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "mlxbuild.yaml"), "source:\n  dir: mlx\ncache: build/mlxbuild\n")
	testutil.WriteFile(t, filepath.Join(dir, "mlx", "CMakeLists.txt"), `cmake_minimum_required(VERSION 3.21)
project(mlx LANGUAGES CXX)
foreach(n 1 2 3)
  add_custom_command(OUTPUT nap${n} COMMAND sleep 600 COMMAND touch nap${n} COMMENT "nap ${n}")
  list(APPEND naps nap${n})
endforeach()
add_custom_target(naps ALL DEPENDS ${naps})
add_library(mlx STATIC mlx/ops.cpp)
`)
	testutil.WriteFile(t, filepath.Join(dir, "mlx", "mlx", "ops.cpp"), "int mlx_add(int a, int b) { return a + b; }\n")
	return dir
}

// sleeping lists the marked sleep processes: Ninja's jobs at work.
func sleeping(marker string) []int {
	var out []int
	for _, p := range testutil.Marked(marker) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); strings.TrimSpace(string(comm)) == "sleep" {
			out = append(out, p)
		}
	}
	return out
}

// TestSignalsStopTheBuild runs build:cpu of napProject with the compiled
// mlxbuild binary and sends it SIGKILL, SIGTERM, SIGHUP or SIGINT while
// Ninja's three jobs sleep. Within stopBound no process carrying the run's
// marker variable (every descendant inherits it) may live; for the three
// signals mlxbuild handles, it exits 1 and says "interrupted by <signal>",
// never "timed out".
func TestSignalsStopTheBuild(t *testing.T) {
	bin := compiledMlxbuild(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, marker := napBuild(t, bin, fmt.Sprintf("signals-%d", sig), "build:cpu")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			deadline := time.Now().Add(2 * time.Minute)
			for len(sleeping(marker)) < 3 {
				select {
				case err := <-waited:
					t.Fatalf("build:cpu ended before its jobs slept: %v\n%s", err, stderr.String())
				default:
				}
				if time.Now().After(deadline) {
					t.Fatalf("Ninja's three jobs did not start; stderr:\n%s", stderr.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var werr error
			select {
			case werr = <-waited:
			case <-time.After(stopBound):
				t.Fatalf("mlxbuild still runs %s after %v; stderr:\n%s", stopBound, sig, stderr.String())
			}
			took := testutil.NoneMarkedWithin(t, marker, stopBound)
			t.Logf("%v: mlxbuild ended (%v), its last descendant %s later; stderr:\n%s", sig, werr, took, stderr.String())
			if sig == syscall.SIGKILL {
				return
			}
			var ee *exec.ExitError
			if !errors.As(werr, &ee) || ee.ExitCode() != 1 {
				t.Errorf("mlxbuild ended with %v, want exit status 1", werr)
			}
			out := stderr.String()
			want := "build:cpu interrupted by " + map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT (Ctrl-C)"}[sig]
			if !strings.Contains(out, want) || strings.Contains(out, "timed out") || strings.Count(out, "interrupted") != 1 {
				t.Errorf("stderr should say %q once and never \"timed out\":\n%s", want, out)
			}
		})
	}
}

// TestMageDeadlineStopsTheBuild runs the same sleeping build under Mage's
// own deadline (-t 4s): Mage returns at the deadline without waiting for the
// target and exits 1 saying the deadline passed (not "interrupted"); the
// process's end stops every program it started.
func TestMageDeadlineStopsTheBuild(t *testing.T) {
	bin := compiledMlxbuild(t)
	cmd, marker := napBuild(t, bin, "deadline", "-t", "4s", "build:cpu")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || took > 4*time.Second+stopBound {
		t.Fatalf("mlxbuild -t 4s ended after %s with %v, want exit status 1 soon after 4s:\n%s", took, err, out.String())
	}
	if !strings.Contains(out.String(), "deadline exceeded") || strings.Contains(out.String(), "interrupted") {
		t.Errorf("output should name the deadline, not an interrupt:\n%s", out.String())
	}
	gone := testutil.NoneMarkedWithin(t, marker, stopBound)
	t.Logf("ended after %s; its last descendant %s later:\n%s", took, gone, out.String())
}
