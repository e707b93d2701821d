package flow

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/cache"
)

func durationsPrepared(t *testing.T, env map[string]string) *Prepared {
	t.Helper()
	l := cache.For(t.TempDir(), "cuda")
	if err := os.MkdirAll(l.Build, 0o755); err != nil {
		t.Fatal(err)
	}
	return &Prepared{Opts: Options{Env: func(k string) string { return env[k] }}, Backend: "cuda", Layout: l, archList: "90a"}
}

type warnings []string

func (w *warnings) warn(f string, a ...any) { *w = append(*w, fmt.Sprintf(f, a...)) }

func TestDurationsComeFromTheLogThenTheRecord(t *testing.T) {
	p := durationsPrepared(t, nil)
	var w warnings
	if d := p.expectedDurations(w.warn); d != nil || len(w) > 0 {
		t.Fatalf("a first build knows %v, warned %q; want nothing, silently", d, w)
	}
	log := "# ninja log v5\n0\t376800\t1\tlong.o\th\n0\t10\t1\ta.o\th\n"
	if err := os.WriteFile(filepath.Join(p.Layout.Build, ".ninja_log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	p.recordDurations(w.warn)
	if d := p.expectedDurations(w.warn); d["long.o"] != 376800*time.Millisecond {
		t.Errorf("from .ninja_log: %v", d)
	}
	// A configure from scratch empties the build directory: the record
	// still knows.
	if err := os.Remove(filepath.Join(p.Layout.Build, ".ninja_log")); err != nil {
		t.Fatal(err)
	}
	if d := p.expectedDurations(w.warn); d["long.o"] != 376800*time.Millisecond || len(w) > 0 {
		t.Errorf("from the record: %v, warned %q", d, w)
	}
	off := durationsPrepared(t, map[string]string{EnvOrder: "off", EnvDurations: p.Layout.Durations})
	if d := off.expectedDurations(w.warn); d != nil {
		t.Errorf("%s=off still ordered by %v", EnvOrder, d)
	}
}

func TestDamagedOrForeignRecordIsIgnoredWithOneWarning(t *testing.T) {
	id := "cuda " + runtime.GOARCH
	for name, c := range map[string]struct{ record, want string }{
		"damaged":        {"mlxbuild edge durations v1\nidentity " + id + "; archs 90a\n12 a.o\n", "edge-durations.txt:3: want"},
		"json":           {`{"a.o": 12}`, "edge-durations.txt:1: not a duration record"},
		"other archs":    {"mlxbuild edge durations v1\nidentity " + id + "; archs 80\n12\ta.o\n", `records "` + id + `; archs 80", this build is "` + id + `; archs 90a"`},
		"other compiler": {"mlxbuild edge durations v1\nidentity rocm " + runtime.GOARCH + "; archs 90a\n12\ta.o\n", "this build is"},
	} {
		t.Run(name, func(t *testing.T) {
			p := durationsPrepared(t, nil)
			if err := os.WriteFile(p.Layout.Durations, []byte(c.record), 0o644); err != nil {
				t.Fatal(err)
			}
			var w warnings
			d := p.expectedDurations(w.warn)
			if d != nil || len(w) != 1 || !strings.Contains(w[0], c.want) {
				t.Errorf("got %v, warnings %q; want none used and one warning with %q", d, w, c.want)
			}
		})
	}
}

func TestPlanShowsTheExpectedCriticalPath(t *testing.T) {
	p := durationsPrepared(t, nil)
	var buf strings.Builder
	c, why := p.criticalPath(nil)
	printCritical(&buf, c, why)
	if !strings.Contains(buf.String(), "not known yet") {
		t.Errorf("before a build: %q", buf.String())
	}
	manifest := "rule cc\n  command = touch $out\nbuild short.o: cc short.c\nbuild long.o: cc long.c\nbuild lib.a: cc short.o long.o\nbuild all: phony lib.a\n"
	log := "# ninja log v5\n0\t376800\t1\tlong.o\th\n0\t1200\t1\tshort.o\th\n376800\t380000\t1\tlib.a\th\n"
	// Times known, no graph yet (a new build folder with a record): plan
	// says the graph is what is missing, not the times.
	if err := os.WriteFile(filepath.Join(p.Layout.Build, ".ninja_log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	c, why = p.criticalPath(nil)
	printCritical(&buf, c, why)
	if want := "critical:  not known before the first configure (no build graph yet; 3 edge times known from the last build's .ninja_log)\n"; buf.String() != want {
		t.Errorf("times without a graph: %q, want %q", buf.String(), want)
	}
	if err := os.WriteFile(filepath.Join(p.Layout.Build, "build.ninja"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	c, why = p.criticalPath(nil)
	printCritical(&buf, c, why)
	want := "critical:  380s expected (times from the last build's .ninja_log; a build starts them first)\n" +
		"    380s  long.o 377s -> lib.a 3.2s\n" +
		"    4.4s  short.o 1.2s -> lib.a 3.2s\n"
	if buf.String() != want {
		t.Errorf("plan says:\n%s\nwant:\n%s", buf.String(), want)
	}
}
