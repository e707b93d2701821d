package cmake

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// realNoWorkShape is the no-work record of the real ROCm fork's build
// (1243 files: its manifests and logs, 260 tree files, 604 system headers
// and CMake modules, 192 absent nodes), recorded with the project's path
// replaced by /PROJECT.
const realNoWorkShape = "../../bench/realshape/rocm-nowork.txt"

// BenchmarkNoWorkRecordRealShape checks a record of the real fork's shape,
// its files made empty under a temporary root at their recorded paths (so
// the path lengths and the folders they share are the real ones), folder by
// folder as rememberNoWork keeps them, three ways in one loop: holds as
// shipped (a few workers), allHold alone (one goroutine, each name stat-ed
// relative to its folder's descriptor, memo.Folders), and one goroutine
// stat-ing every whole path (what allHold did before). Reported: each one's
// ms/op and their ratios to the one by path.
//
//	go test ./internal/cmake -run '^$' -bench NoWorkRecordRealShape -benchtime 200x -count 3
func BenchmarkNoWorkRecordRealShape(b *testing.B) {
	root := b.TempDir()
	f, err := os.Open(realNoWorkShape)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var paths []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		if kind != "f" && kind != "a" {
			continue
		}
		p := rest[strings.Index(rest, "/"):]
		p = filepath.Join(root, strings.Replace(p, "/PROJECT", "/project", 1))
		switch {
		case kind == "f" && strings.HasPrefix(rest, "16877 "): // a folder (mode 040755)
			if err := os.MkdirAll(p, 0o755); err != nil {
				b.Fatal(err)
			}
		case kind == "f":
			testutil.WriteFile(b, p, "")
		}
		paths = append(paths, p)
	}
	// Looked at once all exist: a folder changes as files are made in it.
	var rec noWorkRecord
	for _, p := range paths {
		rec.files = append(rec.files, lookAt(p))
	}
	slices.SortStableFunc(rec.files, func(a, b recordedFile) int { return strings.Compare(filepath.Dir(a.path), filepath.Dir(b.path)) })
	if len(rec.files) < 1000 || !rec.holds() || !holdByPath(rec.files) {
		b.Fatalf("%d files recorded; the record must hold", len(rec.files))
	}
	var shipped, relative, whole time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		if !rec.holds() {
			b.Fatal("holds: changed")
		}
		shipped += time.Since(t)
		t = time.Now()
		if !allHold(rec.files, nil) {
			b.Fatal("relative: changed")
		}
		relative += time.Since(t)
		t = time.Now()
		if !holdByPath(rec.files) {
			b.Fatal("by path: changed")
		}
		whole += time.Since(t)
	}
	n := float64(b.N)
	b.ReportMetric(float64(shipped.Microseconds())/1000/n, "holds-ms/op")
	b.ReportMetric(float64(relative.Microseconds())/1000/n, "relative-ms/op")
	b.ReportMetric(float64(whole.Microseconds())/1000/n, "bypath-ms/op")
	b.ReportMetric(float64(shipped)/float64(whole), "holds/bypath")
	b.ReportMetric(float64(relative)/float64(whole), "relative/bypath")
	b.ReportMetric(float64(len(rec.files)), "files")
}

// holdByPath is allHold as it was: a stat of every whole path.
func holdByPath(files []recordedFile) bool {
	for _, f := range files {
		if lookAt(f.path) != f {
			return false
		}
	}
	return true
}
