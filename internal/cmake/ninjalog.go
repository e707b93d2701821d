package cmake

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// logEntry is one line of Ninja's .ninja_log: an edge's output and when it
// ran, in milliseconds from the start of the Ninja run that ran it. Ninja
// writes a line per output, so an edge with several outputs (CMake's
// custom commands name some twice, relative and absolute) has several
// lines with the same times and command hash.
type logEntry struct {
	start, end int64
	output     string
	hash       string // the command's hash, Ninja's fifth field
}

func (e logEntry) took() time.Duration { return time.Duration(e.end-e.start) * time.Millisecond }

// readNinjaLog reads .ninja_log entries from r. Ninja 1.11 to 1.13 write
// format v5 to v7, all five tab-separated fields a line after a "# ninja
// log vN" header: start, end, mtime, output, command hash. A line that is
// not one (a torn last line after a kill) is skipped: the log is a hint.
func readNinjaLog(r io.Reader) []logEntry {
	var out []logEntry
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for s.Scan() {
		f := strings.Split(s.Text(), "\t")
		if len(f) != 5 || f[3] == "" {
			continue
		}
		start, err1 := strconv.ParseInt(f[0], 10, 64)
		end, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil || start < 0 || end < start {
			continue
		}
		out = append(out, logEntry{start: start, end: end, output: f[3], hash: f[4]})
	}
	return out
}

// LastDurations reads how long each edge took the last time it ran, from
// the build directory's .ninja_log (later lines win, as in Ninja). A
// missing or unreadable log gives none: nothing is known yet.
func LastDurations(dir string) Durations {
	f, err := os.Open(joinBuild(dir, ".ninja_log"))
	if err != nil {
		return nil
	}
	defer f.Close()
	d := Durations{}
	for _, e := range readNinjaLog(f) {
		d[e.output] = e.took()
	}
	return d
}

// logSince reads the entries appended to dir's .ninja_log after its first
// size bytes: the ones the Ninja runs since then wrote.
func logSince(dir string, size int64) []logEntry {
	f, err := os.Open(joinBuild(dir, ".ninja_log"))
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() < size {
		size = 0 // Ninja recompacted it: every line is read, older ones too
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		return nil
	}
	return readNinjaLog(f)
}

// logSize is the size of dir's .ninja_log now; 0 when there is none.
func logSize(dir string) int64 {
	fi, err := os.Stat(joinBuild(dir, ".ninja_log"))
	if err != nil {
		return 0
	}
	return fi.Size()
}
