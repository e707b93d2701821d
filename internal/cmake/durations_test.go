package cmake

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLastDurationsReadsEveryNinjaLogVersionAndSkipsDamage(t *testing.T) {
	dir := t.TempDir()
	log := "# ninja log v5\n" +
		"0\t376800\t1\tCMakeFiles/mlx.dir/copy_general_input.cu.o\tabc\n" +
		"10\t30\t1\ta.o\tdef\n" +
		"not\ta\tline\n" +
		"50\t40\t1\tbackwards.o\tx\n" +
		"# ninja log v7\n" +
		"5\t25\t1\ta.o\t0123456789abcdef\n" + // a later run: it wins
		"7\t9\t1\ttorn.o" // a kill cut it: no hash
	if err := os.WriteFile(filepath.Join(dir, ".ninja_log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	d := LastDurations(dir)
	want := Durations{"CMakeFiles/mlx.dir/copy_general_input.cu.o": 376800 * time.Millisecond, "a.o": 20 * time.Millisecond}
	if len(d) != len(want) {
		t.Fatalf("durations = %v, want %v", d, want)
	}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s took %v, want %v", k, d[k], v)
		}
	}
	if LastDurations(t.TempDir()) != nil {
		t.Error("a directory without .ninja_log gave durations")
	}
}

func TestRecordRoundTrips(t *testing.T) {
	r := Record{Identity: "nvcc 12.8; archs 90a", Durations: Durations{"b.o": 2 * time.Second, "a.o": 376800 * time.Millisecond, "bad\tname": time.Second}}
	var buf bytes.Buffer
	if err := WriteRecord(&buf, r); err != nil {
		t.Fatal(err)
	}
	want := "mlxbuild edge durations v1\nidentity nvcc 12.8; archs 90a\n376800\ta.o\n2000\tb.o\n"
	if buf.String() != want {
		t.Fatalf("record:\n%s\nwant:\n%s", buf.String(), want)
	}
	got, err := ParseRecord("r", buf.Bytes())
	if err != nil || got.Identity != r.Identity || len(got.Durations) != 2 || got.Durations["a.o"] != 376800*time.Millisecond {
		t.Errorf("parsed %+v, %v", got, err)
	}
}

func TestParseRecordRefusesDamageNamingTheLine(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"", "r:1: the record ends before its identity line"},
		{"{\"json\": 1}\n", "r:1: not a duration record"},
		{"mlxbuild edge durations v1\n", "r:2: the record ends before its identity line"},
		{"mlxbuild edge durations v1\nidentify x\n", "r:2: want \"identity"},
		{"mlxbuild edge durations v1\nidentity x\n12\n", "r:3: want \"<milliseconds><tab><output>\""},
		{"mlxbuild edge durations v1\nidentity x\n-1\ta.o\n", "r:3:"},
		{"mlxbuild edge durations v1\nidentity x\n1\t\n", "r:3:"},
	} {
		_, err := ParseRecord("r", []byte(c.data))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ParseRecord(%q) = %v, want %q", c.data, err, c.want)
		}
	}
}

// TestBoundCountsAnEdgeOnce: Ninja logs a line per output, and the real ROCm
// fork's HIP custom commands name each object twice (relative and
// absolute); summing lines made a 2-job build read "0.73x of 1310s".
func TestBoundCountsAnEdgeOnce(t *testing.T) {
	log := "# ninja log v7\n" +
		"0\t4000\t1\thip_objs/sort.o\t2e38c08a2c8cc621\n" +
		"0\t4000\t1\t/b/hip_objs/sort.o\t2e38c08a2c8cc621\n" +
		"0\t2000\t1\ta.o\t9f0c\n" +
		"2000\t4000\t1\tb.o\t77aa\n"
	b := boundOf(readNinjaLog(strings.NewReader(log)), nil, 2)
	if b.Sum != 8*time.Second || b.Wall != 4*time.Second {
		t.Fatalf("bound %+v: want the three edges' 8s summed once each, wall 4s", b)
	}
	if got := b.String(); got != "bound: 1.00x of 4.0s (longest chain)" {
		t.Errorf("line = %q", got)
	}
}

func TestBoundIsTheLongestChainOrTheSumOverJobs(t *testing.T) {
	items := splitManifest([]byte(coldManifest))
	entries := []logEntry{
		{0, 1000, "gen dir/h.h", "h1"},
		{1000, 301000, "long.o", "h2"},
		{0, 2000, "a.o", "h3"}, {2000, 4000, "b.o", "h4"}, {4000, 6000, "c.o", "h5"},
		{301000, 302000, "lib.a", "h6"},
	}
	b := boundOf(entries, items, 4)
	if b.Chain != 302*time.Second || b.Wall != 302*time.Second || b.Lower() != 302*time.Second {
		t.Errorf("bound %+v: want the chain header, long.o, lib.a = 302s, wall 302s", b)
	}
	if got := b.String(); got != "bound: 1.00x of 302s (longest chain)" {
		t.Errorf("line = %q", got)
	}
	b = boundOf(entries, items, 1)
	if b.Lower() != 308*time.Second || !strings.Contains(b.String(), "cpu sum / 1 jobs") {
		t.Errorf("one job: %+v %s, want the sum 308s", b, b)
	}
}
