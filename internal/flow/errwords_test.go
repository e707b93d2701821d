package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// refusedSaying runs fn and checks that it is refused as bad usage (exit
// 2) with an error that says want and none of wrong.
func refusedSaying(t *testing.T, err error, want string, wrong ...string) {
	t.Helper()
	if err == nil || fail.ExitCode(err) != 2 {
		t.Fatalf("got %v (exit %d), want a refusal (exit 2) saying %q", err, fail.ExitCode(err), want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("the error does not say %q:\n%v", want, err)
	}
	for _, w := range wrong {
		if strings.Contains(err.Error(), w) {
			t.Errorf("the error says %q, which sends the user the wrong way:\n%v", w, err)
		}
	}
}

// A build started from a folder that was deleted since (the shell still
// sits in it) says so, rather than that cmake is missing.
func TestDeletedWorkingDirectoryIsNamed(t *testing.T) {
	p := newProject(t, "")
	gone := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	_, err := flow.Build(context.Background(), flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "cpu")
	refusedSaying(t, err, "the working directory was deleted", "lacks", "reinstall")
	if _, err := os.Stat(p.Cache); !os.IsNotExist(err) {
		t.Errorf("the cache was made (%v)", err)
	}
	// doctor, where a user goes next, says it first.
	fs, _, _ := flow.Doctor(context.Background(), flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}, "")
	if len(fs) == 0 || fs[0].What != "working directory" || fs[0].OK || !strings.Contains(fs[0].Detail, "deleted") {
		t.Errorf("doctor does not say first that the working directory was deleted: %+v", fs)
	}
}

// Cargo's NUM_JOBS stands in for an unset MLXBUILD_JOBS: a bad value is
// reported under its own name.
func TestBadNumJobsIsNamedAsNumJobs(t *testing.T) {
	p := newProject(t, "")
	t.Setenv("MLXBUILD_JOBS", "")
	env := map[string]string{"NUM_JOBS": "abc", "MLXBUILD_CACHE": p.Cache}
	var stdout bytes.Buffer
	_, err := flow.BuildForCargo(context.Background(), flow.Options{Dir: p.Dir, Env: func(k string) string { return env[k] }, Stdout: &stdout, Stderr: &bytes.Buffer{}})
	refusedSaying(t, err, `NUM_JOBS="abc"`, "MLXBUILD_JOBS=")
	if !strings.HasPrefix(stdout.String(), `cargo:warning=error: NUM_JOBS="abc"`) || !strings.Contains(stdout.String(), "Cargo sets NUM_JOBS") {
		t.Errorf("Cargo is not shown the error:\n%s", stdout.String())
	}
}
