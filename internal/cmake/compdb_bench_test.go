package cmake

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// BenchmarkCompleteCompileDB compares, on the custom-command stand-in of
// TestCompleteCompileDB, what each build pays for the database when CMake
// did not regenerate (current: the stamp matches), what it pays after a
// regeneration (complete: Ninja lists the custom commands, the file is
// merged and compared), and a bare `ninja -C <build>` no-op. Report the
// ratios of ns/op to ninja's.
//
//	go test -run '^$' -bench CompleteCompileDB -count 5 ./internal/cmake
func BenchmarkCompleteCompileDB(b *testing.B) {
	testutil.NeedTools(b, "cmake", "ninja", "c++")
	ctx := context.Background()
	_, build := configureCustomHIP(b)
	// Build the C++ only (the .hip compiles would need hipcc), so the
	// ninja contender is a no-op over the C++ targets.
	if out, err := exec.Command("ninja", "-C", build, "core", "host").CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	if res, err := CompleteCompileDB(ctx, build); err != nil || res.Added != 2 {
		b.Fatalf("%+v %v", res, err)
	}
	b.Run("current", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if res, err := CompleteCompileDB(ctx, build); err != nil || !res.Current {
				b.Fatalf("%+v %v", res, err)
			}
		}
	})
	b.Run("complete", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			os.Remove(filepath.Join(build, compileDBStampFile))
			if res, err := CompleteCompileDB(ctx, build); err != nil || res.Current || res.Added != 2 {
				b.Fatalf("%+v %v", res, err)
			}
		}
	})
	b.Run("ninja", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if out, err := exec.Command("ninja", "-C", build, "core", "host").CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
}
