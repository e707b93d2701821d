package testutil

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// runLimit bounds one program a test runs, so a hung one fails the test
// instead of the whole test binary's timeout.
const runLimit = 5 * time.Minute

// Run runs a program with explicit arguments (no shell) in dir ("" for the
// current directory) and returns its stdout and stderr interleaved as
// written. env nil means this process's environment.
func Run(env []string, dir, name string, args ...string) (string, error) {
	var both LockedBuffer
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	_, err := proc.Run(ctx, proc.Cmd{Path: name, Args: args, Dir: dir, Env: env, Stdout: &both, Stderr: &both})
	return both.String(), err
}

// RunOK is Run that fails the test, with the output, when the program fails.
func RunOK(t testing.TB, env []string, dir, name string, args ...string) string {
	t.Helper()
	out, err := Run(env, dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// EnvWithout returns this process's environment minus the named variables.
func EnvWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		keep := true
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				keep = false
			}
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

// LockedBuffer is a buffer written from several goroutines (proc copies
// stdout and stderr each in its own) and read while they write.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// CompileMlxbuild compiles the repository's Mage targets into one binary
// (go run mage.go -compile), the way a developer runs mlxbuild with its
// exit codes and signals intact, and returns its path under t's temporary
// directory. repo is the repository root.
func CompileMlxbuild(t testing.TB, repo string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mlxbuild")
	RunOK(t, nil, repo, "go", "run", "mage.go", "-compile", bin)
	return bin
}
