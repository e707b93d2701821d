package cmake

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// BenchmarkNoWorkAnswer compares, in the same loop, the two ways a no-op
// build learns that Ninja has nothing to do: `ninja -n` (the dry run, a
// process that parses the manifests and both logs and stats every node)
// and the no-work record (a stat of every recorded file). The graph has
// the size of real MLX's CPU build: 220 compile edges whose headers come
// from the deps log, 130 each out of 1,000, about 29,000 deps lines and
// 1,445 files in all (real MLX: 29,650 and 1,143). Reported: each side's
// ms/op and record/ninja.
//
//	go test ./internal/cmake -run '^$' -bench NoWorkAnswer -benchtime 50x -count 3
func BenchmarkNoWorkAnswer(b *testing.B) {
	testutil.NeedTools(b, "ninja", "cp", "sh")
	dir := b.TempDir()
	const sources, headers, perSource = 220, 1000, 130
	var manifest strings.Builder
	manifest.WriteString("rule cc\n  command = cp $in $out && cp $in.d $out.d\n  depfile = $out.d\n  deps = gcc\n")
	for h := 0; h < headers; h++ {
		testutil.WriteFile(b, filepath.Join(dir, "include", fmt.Sprintf("h%04d.h", h)), "h\n")
	}
	for s := 0; s < sources; s++ {
		src := fmt.Sprintf("src/s%03d.cpp", s)
		testutil.WriteFile(b, filepath.Join(dir, src), "s\n")
		var deps strings.Builder
		fmt.Fprintf(&deps, "obj/s%03d.o:", s)
		for k := 0; k < perSource; k++ {
			fmt.Fprintf(&deps, " %s/include/h%04d.h", dir, (s*37+k*7)%headers)
		}
		testutil.WriteFile(b, filepath.Join(dir, src+".d"), deps.String()+"\n")
		fmt.Fprintf(&manifest, "build obj/s%03d.o: cc %s\n", s, src)
	}
	testutil.WriteFile(b, filepath.Join(dir, "build.ninja"), manifest.String())
	if err := os.MkdirAll(filepath.Join(dir, "obj"), 0o755); err != nil {
		b.Fatal(err)
	}
	buildNinja(b, dir)
	time.Sleep(20 * time.Millisecond) // past the clock tick of the build
	lock := filepath.Join(b.TempDir(), "lock")
	testutil.WriteFile(b, lock, "1\n")
	if d := ask(b, dir, lock); !d.NoWork() {
		b.Fatalf("work after a build:\n%s", d.said())
	}
	if why, err := rememberNoWork(context.Background(), dir, "ninja", lookAt(lock)); why != "" || err != nil {
		b.Fatalf("no record: %s %v", why, err)
	}
	rec, _ := readNoWorkRecord(dir)
	b.Logf("%d files recorded", len(rec.files))

	var ninjaTime, recordTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		out, err := exec.Command("ninja", "-n", "-C", dir).CombinedOutput()
		if err != nil || !dryRunNoWork(out) {
			b.Fatalf("ninja -n: %v\n%s", err, out)
		}
		ninjaTime += time.Since(t)
		t = time.Now()
		if CheckNoWork(dir).Recorded() == 0 {
			b.Fatal("the record did not answer")
		}
		recordTime += time.Since(t)
	}
	n := float64(b.N)
	b.ReportMetric(float64(ninjaTime.Microseconds())/1000/n, "ninja-ms/op")
	b.ReportMetric(float64(recordTime.Microseconds())/1000/n, "record-ms/op")
	b.ReportMetric(float64(recordTime)/float64(ninjaTime), "record/ninja")
}
