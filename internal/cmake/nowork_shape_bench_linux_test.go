package cmake

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mlxbuild/mlxbuild/internal/fileid"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// realNoWorkShape is the no-work record of the real ROCm fork's build
// (1243 files: its manifests and logs, 260 tree files, 604 system headers
// and CMake modules, 192 absent nodes), recorded with the project's path
// replaced by /PROJECT.
const realNoWorkShape = "../../bench/realshape/rocm-nowork.txt"

// BenchmarkNoWorkRecordRealShape checks a record of the real fork's shape,
// its files made empty under a temporary root at their recorded paths (so
// the path lengths and the folders they share are the real ones), three
// ways in one loop: holds as shipped (a few workers), one goroutine
// stat-ing every path whole, and one goroutine stat-ing each name relative
// to its folder's descriptor (the records sorted by folder, one open per
// folder: the idea of sparing the kernel the walk of each path). Reported:
// each one's ms/op and their ratios to the one goroutine by path.
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
	if len(rec.files) < 1000 || !rec.holds() {
		b.Fatalf("%d files recorded; the record must hold", len(rec.files))
	}
	byDir := append([]recordedFile(nil), rec.files...)
	sortByDir(byDir)
	var shipped, whole, relative time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		if !rec.holds() {
			b.Fatal("holds: changed")
		}
		shipped += time.Since(t)
		t = time.Now()
		if !allHold(rec.files, nil) {
			b.Fatal("by path: changed")
		}
		whole += time.Since(t)
		t = time.Now()
		if !holdRelative(byDir) {
			b.Fatal("relative: changed")
		}
		relative += time.Since(t)
	}
	n := float64(b.N)
	b.ReportMetric(float64(shipped.Microseconds())/1000/n, "holds-ms/op")
	b.ReportMetric(float64(whole.Microseconds())/1000/n, "bypath-ms/op")
	b.ReportMetric(float64(relative.Microseconds())/1000/n, "relative-ms/op")
	b.ReportMetric(float64(shipped)/float64(whole), "holds/bypath")
	b.ReportMetric(float64(relative)/float64(whole), "relative/bypath")
	b.ReportMetric(float64(len(rec.files)), "files")
}

// sortByDir orders files by folder, so holdRelative opens each once.
func sortByDir(files []recordedFile) {
	dir := func(f recordedFile) string { return filepath.Dir(f.path) }
	for i := 1; i < len(files); i++ { // insertion sort: stable, and small
		for j := i; j > 0 && dir(files[j]) < dir(files[j-1]); j-- {
			files[j], files[j-1] = files[j-1], files[j]
		}
	}
}

// holdRelative is allHold with fstatat relative to each folder's
// descriptor: the idea the benchmark measures, not what ships.
func holdRelative(files []recordedFile) bool {
	cur, fd := "", -1
	defer func() {
		if fd >= 0 {
			unix.Close(fd)
		}
	}()
	var st unix.Stat_t
	for _, f := range files {
		d, name := filepath.Split(f.path)
		if d != cur {
			if fd >= 0 {
				unix.Close(fd)
			}
			cur = d
			if fd, _ = unix.Open(d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); fd < 0 {
				fd = -1
			}
		}
		if fd < 0 || unix.Fstatat(fd, name, &st, 0) != nil {
			if f.present {
				return false
			}
			continue
		}
		got := fileid.Stat{Mode: uint32(st.Mode), Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: uint64(st.Dev)}
		if !f.present || got != f.id {
			return false
		}
	}
	return true
}
