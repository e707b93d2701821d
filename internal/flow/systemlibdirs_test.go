package flow

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/multiarch"
)

// TestSystemLibDirsAreThisHosts: the system folders a library's existence
// is checked in hold this host's multiarch folders and no other
// architecture's (a multiarch Debian on aarch64 may hold x86-64's).
func TestSystemLibDirsAreThisHosts(t *testing.T) {
	foreign := "arm64"
	if runtime.GOARCH == "arm64" {
		foreign = "amd64"
	}
	covers := func(dir string) bool {
		for _, d := range systemLibDirs {
			if d == dir {
				return true
			}
		}
		for _, g := range systemLibGlobs {
			if ok, _ := filepath.Match(g, dir); ok {
				return true
			}
		}
		return false
	}
	for _, root := range []string{"/usr/lib/", "/lib/"} {
		if dir := root + multiarch.Host(); !covers(dir) {
			t.Errorf("%s is not searched", dir)
		}
		if dir := root + multiarch.For(foreign); covers(dir) {
			t.Errorf("%s (another architecture's) is searched", dir)
		}
	}
}
