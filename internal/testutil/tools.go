package testutil

import (
	"os"
	"os/exec"
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
