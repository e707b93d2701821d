package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// NeedTools skips on a developer machine that lacks one of names, and fails
// in CI (the CI variable is set), where .ci/run installs everything.
func NeedTools(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("%s is not installed (go run mage.go setup installs it); CI fails here", n)
			}
			t.Fatalf("%s is not installed: CI must install it", n)
		}
	}
}

// NeedFiles is NeedTools for files a package installs outside PATH (a
// glob each, such as Debian's crate registry): it skips on a developer
// machine that has no match, and fails in CI.
func NeedFiles(t testing.TB, what string, globs ...string) {
	t.Helper()
	for _, g := range globs {
		if m, _ := filepath.Glob(g); len(m) == 0 {
			if os.Getenv("CI") == "" {
				t.Skipf("%s is not installed (no %s; go run mage.go setup installs it); CI fails here", what, g)
			}
			t.Fatalf("%s is not installed (no %s): CI must install it", what, g)
		}
	}
}
