package cmake

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// meminfoPath is read for MemAvailable; a variable so tests can use a fixture.
var meminfoPath = "/proc/meminfo"

// DefaultJobs returns how many compile jobs to run: one per core, fewer when
// MemAvailable (from /proc/meminfo) would not give each job memPerJobGiB.
// Heavy CUDA translation units take about 5 GiB each, and a build that runs
// out of memory dies with exit 137 instead of finishing slower. A
// memPerJobGiB of 0 or less means memory does not limit. Never less than 1.
func DefaultJobs(memPerJobGiB float64) int {
	availKiB, _ := memAvailableKiB(meminfoPath)
	return jobsFor(runtime.NumCPU(), availKiB, memPerJobGiB)
}

// jobsFor is DefaultJobs' arithmetic; availKiB 0 means unknown.
func jobsFor(cores int, availKiB uint64, memPerJobGiB float64) int {
	n := cores
	if memPerJobGiB > 0 && availKiB > 0 {
		byMem := int(float64(availKiB) / (memPerJobGiB * 1024 * 1024))
		if byMem < n {
			n = byMem
		}
	}
	if n < 1 {
		n = 1
	}
	return n
}

// memAvailableKiB reads the MemAvailable line of a meminfo file.
func memAvailableKiB(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			return strconv.ParseUint(fields[1], 10, 64)
		}
	}
	return 0, s.Err()
}
