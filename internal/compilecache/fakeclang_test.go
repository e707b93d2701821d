package compilecache_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// The fake AMD clang: this test binary, run as <dir>/clang++ with
// fakeClangEnv naming the real compiler. Debian's clang-15 has no
// -parallel-jobs, AMD's driver has: with -parallel-jobs=N it runs up to N
// offload jobs at once. The fake runs the real compile without the option
// and, beside it, N-1 processes carrying offloadJobEnv (its value from
// offloadMarkEnv) for as long as the compile takes: the extra jobs AMD's
// driver would run, where the process table shows them.
const (
	fakeClangEnv   = "MLXBUILD_TEST_FAKE_CLANG"
	offloadMarkEnv = "MLXBUILD_TEST_OFFLOAD_MARK"
	offloadJobEnv  = "MLXBUILD_TEST_OFFLOAD_JOB"
)

func TestMain(m *testing.M) {
	if real := os.Getenv(fakeClangEnv); real != "" && filepath.Base(os.Args[0]) == "clang++" {
		os.Exit(fakeAMDClang(real, os.Args[1:]))
	}
	if log := os.Getenv(fakeGXXLogEnv); log != "" && filepath.Base(os.Args[0]) == "g++" {
		os.Exit(loggingGXX(log, os.Args[1:]))
	}
	if obj := os.Getenv(replayObjectEnv); obj != "" {
		os.Exit(replayCompiler(obj, os.Getenv(replayDepfileEnv), os.Args[1:]))
	}
	os.Exit(m.Run())
}

func fakeAMDClang(real string, args []string) int {
	jobs := 1
	var rest []string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "-parallel-jobs="); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				jobs = n
			}
			continue
		}
		rest = append(rest, a)
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	offload := append(os.Environ(), offloadJobEnv+"="+os.Getenv(offloadMarkEnv))
	for i := 1; i < jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			proc.RunLeaf(ctx, proc.Cmd{Path: "sleep", Args: []string{"3600"}, Env: offload})
		}()
	}
	_, err := proc.RunLeaf(context.Background(), proc.Cmd{Path: real, Args: rest, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	wg.Wait()
	return exitStatus("fake clang++", err)
}

// exitStatus is what a fake compiler exits with after running the real one:
// the real one's status, or 1 with the reason when it did not run.
func exitStatus(fake string, err error) int {
	var exit *proc.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.Result.ExitCode > 0:
		return exit.Result.ExitCode
	default:
		os.Stderr.WriteString(fake + ": " + err.Error() + "\n")
		return 1
	}
}

// installFakeClang makes dir/clang++ the fake AMD clang in front of
// Debian's HIP compiler, for HIP_CLANG_PATH=dir, with mark as its offload
// jobs' marker, and sets what the fake reads for the rest of the test. path
// is the fake's path, as CMake and Ninja run it.
func installFakeClang(t *testing.T, mark string) (dir, path string) {
	t.Helper()
	real, err := exec.LookPath("clang++-15")
	if err != nil {
		t.Fatalf("Debian's HIP compiler: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// CMake's hip-lang package finds clang's runtime beside the compiler
	// (<dir>/../lib/clang/*/lib): the fake's lib is the real one's.
	resolved, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir = filepath.Join(root, "bin")
	path = filepath.Join(dir, "clang++")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(filepath.Dir(resolved)), "lib"), filepath.Join(root, "lib")); err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeClangEnv, real)
	t.Setenv(offloadMarkEnv, mark)
	return dir, path
}
