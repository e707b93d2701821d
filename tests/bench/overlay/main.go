// Command overlay materializes one tree, as `overlay:apply` does, and prints
// the counts and its own peak RSS. The overlay benchmarks
// (overlays/bench_test.go) build it to time Materialize as a whole process,
// start-up included, next to find, rsync, cp and the CMake glue.
//
// Usage: overlay PRISTINE OVERLAY TREE MANIFEST
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/overlays"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: overlay PRISTINE OVERLAY TREE MANIFEST")
		os.Exit(2)
	}
	st, _, err := overlays.Materialize(os.Args[1], os.Args[2], os.Args[3], os.Args[4], nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("written %d restored %d removed %d unchanged %d maxrss_kib %d\n", st.Written, st.Restored, st.Removed, st.Unchanged, peakRSS())
}

// peakRSS is this process's peak resident set size in KiB: VmHWM, which
// starts afresh at exec. (getrusage's ru_maxrss does not: on Linux it keeps
// the high-water mark of the process that forked us, here the big test
// binary.)
func peakRSS() int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err == nil {
				return n
			}
		}
	}
	return -1
}
