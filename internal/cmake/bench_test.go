package cmake

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// BenchmarkNoopBuild compares a no-op Build (Ninja with the status parser,
// the log file and the result) with a bare `ninja -C <build>` no-op of the
// same CPU build of the example, and a no-op Build for a terminal (Ninja on
// a pseudo-terminal) with one for a pipe. Report the ratios of the ns/op.
//
//	go test -run '^$' -bench NoopBuild -count 5 ./internal/cmake
func BenchmarkNoopBuild(b *testing.B) {
	testutil.NeedTools(b, "cmake", "ninja", "c++")
	ctx := context.Background()
	src, _ := filepath.Abs(filepath.Join(exampleDir, "mlx"))
	build := filepath.Join(b.TempDir(), "build")
	if err := Configure(ctx, ConfigureOptions{Source: src, Build: build}); err != nil {
		b.Fatal(err)
	}
	if _, err := Build(ctx, BuildOptions{Dir: build}); err != nil {
		b.Fatal(err)
	}
	b.Run("Build", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			res, err := Build(ctx, BuildOptions{Dir: build})
			if err != nil || res.Steps != 0 {
				b.Fatalf("not a no-op: %v %v", err, stepsOf(res))
			}
		}
	})
	b.Run("BuildTTY", func(b *testing.B) {
		var tty fakeTTY
		for i := 0; i < b.N; i++ {
			res, err := Build(ctx, BuildOptions{Dir: build, Progress: &tty, TTY: true})
			if err != nil || res.Steps != 0 {
				b.Fatalf("not a no-op: %v %v", err, stepsOf(res))
			}
		}
	})
	b.Run("ninja", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if out, err := exec.Command("ninja", "-C", build).CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
}
