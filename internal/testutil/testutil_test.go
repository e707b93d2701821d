package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Skipf and Fatalf, to see which one
// NeedTools calls; like the real ones they end the goroutine.
type recorder struct {
	testing.TB
	skipped, fatal string
}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// needTools runs NeedTools with a recorder in its own goroutine.
func needTools(t *testing.T, names ...string) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		NeedTools(r, names...)
	}()
	<-done
	return r
}

func TestNeedTools(t *testing.T) {
	const missing = "mlxbuild-no-such-tool"
	r := needTools(t, "ls", "pwd")
	if r.skipped != "" || r.fatal != "" {
		t.Errorf("installed tools: skipped %q, fatal %q", r.skipped, r.fatal)
	}
	t.Setenv("CI", "")
	r = needTools(t, "ls", missing)
	if !strings.Contains(r.skipped, missing) || r.fatal != "" {
		t.Errorf("missing tool outside CI: skipped %q, fatal %q; want a skip naming it", r.skipped, r.fatal)
	}
	t.Setenv("CI", "true")
	r = needTools(t, missing)
	if r.skipped != "" || !strings.Contains(r.fatal, missing) {
		t.Errorf("missing tool in CI: skipped %q, fatal %q; want a failure naming it", r.skipped, r.fatal)
	}
}

func TestCopyTree(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	files := map[string]string{"a.txt": "A", "d/b.cpp": "B\n", "d/e/f/c.h": ""}
	for rel, c := range files {
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(src, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	CopyTree(t, src, dst)
	for rel, c := range files {
		b, err := os.ReadFile(filepath.Join(dst, rel))
		if err != nil || string(b) != c {
			t.Errorf("%s: %q, %v; want %q", rel, b, err, c)
		}
	}
	if _, err := os.Stat(filepath.Join(dst, "empty")); err == nil {
		t.Error("an empty directory was copied; CopyTree copies files only")
	}
}

func TestEnvWithout(t *testing.T) {
	t.Setenv("MLXBUILD_T", "1")
	t.Setenv("MLXBUILD_TT", "2")
	env := EnvWithout("MLXBUILD_T")
	has := func(kv string) bool {
		for _, e := range env {
			if e == kv {
				return true
			}
		}
		return false
	}
	if has("MLXBUILD_T=1") || !has("MLXBUILD_TT=2") {
		t.Errorf("EnvWithout(MLXBUILD_T) kept MLXBUILD_T=1: %v, dropped MLXBUILD_TT=2: %v", has("MLXBUILD_T=1"), !has("MLXBUILD_TT=2"))
	}
}

// TestRun: both streams are captured together (ls writes its listing to
// stdout and the missing name to stderr), dir and env are honoured, and a
// failure gives an error with the output.
func TestRun(t *testing.T) {
	NeedTools(t, "ls", "pwd", "env")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "present"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Run(nil, dir, "ls", "present", "absent")
	if err == nil || !strings.Contains(out, "present") || !strings.Contains(out, "absent") {
		t.Errorf("ls present absent: %q, %v; want both streams and an error", out, err)
	}
	if got := strings.TrimSpace(RunOK(t, nil, dir, "pwd")); got != dir {
		if real, _ := filepath.EvalSymlinks(dir); got != real {
			t.Errorf("pwd in %s printed %s", dir, got)
		}
	}
	out = RunOK(t, append(EnvWithout("MLXBUILD_R"), "MLXBUILD_R=set"), "", "env")
	if !strings.Contains(out, "\nMLXBUILD_R=set\n") && !strings.HasPrefix(out, "MLXBUILD_R=set\n") {
		t.Errorf("env did not see MLXBUILD_R=set:\n%s", out)
	}
}

func TestField(t *testing.T) {
	dyn := " 0x000000000000001d (RUNPATH)            Library runpath: [/opt/rocm/lib:/x]\n" +
		" 0x0000000000000001 (NEEDED)             Shared library: [libamdhip64.so.5]\n"
	for _, c := range []struct{ prefix, want string }{
		{"Library runpath: [", "/opt/rocm/lib:/x"},
		{"Shared library: [", "libamdhip64.so.5"},
		{"Library rpath: [", ""},
	} {
		if got := Field(dyn, c.prefix); got != c.want {
			t.Errorf("Field(%q) = %q, want %q", c.prefix, got, c.want)
		}
	}
	if got := Field("Library runpath: [unclosed", "Library runpath: ["); got != "" {
		t.Errorf("unclosed bracket gave %q", got)
	}
}

func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "mlxbuild.yaml")
	WriteFile(t, path, "first\n")
	WriteFile(t, path, "second\n")
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "second\n" {
		t.Fatalf("%s holds %q (%v), want the second content", path, b, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm()&0o644 != 0o644 {
		t.Errorf("mode %v, want at least 0644", fi.Mode().Perm())
	}
}

func TestNeedFiles(t *testing.T) {
	present := filepath.Join(t.TempDir(), "cc-1.0.73")
	WriteFile(t, filepath.Join(present, "Cargo.toml"), "")
	missing := filepath.Join(t.TempDir(), "cc-*")
	run := func(globs ...string) *recorder {
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			NeedFiles(r, "the cc crate", globs...)
		}()
		<-done
		return r
	}
	if r := run(filepath.Join(filepath.Dir(present), "cc-*")); r.skipped != "" || r.fatal != "" {
		t.Errorf("present files: skipped %q, fatal %q", r.skipped, r.fatal)
	}
	t.Setenv("CI", "")
	if r := run(missing); !strings.Contains(r.skipped, missing) || r.fatal != "" {
		t.Errorf("missing files outside CI: skipped %q, fatal %q; want a skip naming the glob", r.skipped, r.fatal)
	}
	t.Setenv("CI", "true")
	if r := run(missing); r.skipped != "" || !strings.Contains(r.fatal, "the cc crate") {
		t.Errorf("missing files in CI: skipped %q, fatal %q; want a failure naming them", r.skipped, r.fatal)
	}
}
