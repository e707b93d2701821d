//go:build linux

package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// hideLibs is the program `hidelibs BUNDLE -- PROGRAM ARGS...`, run inside
// `unshare --mount --propagation private` (as root): in that mount
// namespace only, it binds /dev/null over the system's file of every
// library the bundle's manifest says it bundles, so at its build-time
// place each is an empty file the loader refuses ("file too short"), and
// then it runs PROGRAM in its place. A program that starts there loaded
// those libraries from the bundle's own lib/, wherever the bundle lies.
func hideLibs() int {
	args := os.Args[1:]
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "usage: hidelibs BUNDLE -- PROGRAM ARGS...")
		return 2
	}
	data, err := os.ReadFile(filepath.Join(args[0], "manifest.json"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "hidelibs:", err)
		return 2
	}
	var m struct {
		Libraries []struct{ Soname, How string }
	}
	if err := json.Unmarshal(data, &m); err != nil {
		fmt.Fprintln(os.Stderr, "hidelibs:", err)
		return 2
	}
	hidden := 0
	for _, l := range m.Libraries {
		if l.How != "bundled" {
			continue
		}
		for _, d := range []string{"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib", "/lib"} {
			real, err := filepath.EvalSymlinks(filepath.Join(d, l.Soname))
			if err != nil {
				continue
			}
			if err := syscall.Mount("/dev/null", real, "", syscall.MS_BIND, ""); err != nil {
				fmt.Fprintf(os.Stderr, "hidelibs: bind /dev/null over %s: %v (run under unshare --mount as root)\n", real, err)
				return 2
			}
			hidden++
		}
	}
	fmt.Fprintf(os.Stderr, "hidelibs: hid %d library files\n", hidden)
	err = proc.Exec(args[2], args[2:], os.Environ())
	fmt.Fprintln(os.Stderr, "hidelibs:", err)
	return 2
}
