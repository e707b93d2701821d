package cache

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// childEnv makes the test binary hold a lock as a separate process: flock
// locks belong to processes, and the dead-holder case needs one to kill.
const childEnv = "MLXBUILD_CACHE_TEST_LOCK"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		unlock, err := Lock(context.Background(), path, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("locked")
		time.Sleep(time.Minute) // until killed
		unlock()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestLayoutIsPerBackend(t *testing.T) {
	root := t.TempDir()
	rocm, cpu := For(root, "rocm"), For(root, "cpu")
	for _, p := range [][2]string{{rocm.Tree, cpu.Tree}, {rocm.Build, cpu.Build}, {rocm.Stamp, cpu.Stamp}, {rocm.Lock, cpu.Lock}, {rocm.Manifest, cpu.Manifest}} {
		if p[0] == p[1] || !strings.HasPrefix(p[0], filepath.Join(root, "rocm")+"/") || !strings.HasPrefix(p[1], filepath.Join(root, "cpu")+"/") {
			t.Errorf("%s and %s are not separate per-backend paths", p[0], p[1])
		}
	}
	if err := Prepare(rocm, ""); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "CACHEDIR.TAG")); err != nil || !strings.HasPrefix(string(b), "Signature: 8a477f597d28d172789f06886806bc55") {
		t.Errorf("CACHEDIR.TAG: %q, %v", b, err)
	}
	if err := Prepare(For(root, "../x"), ""); err == nil || !strings.Contains(err.Error(), "not a plain name") {
		t.Errorf("Prepare(../x): %v", err)
	}
}

func TestStampRoundTripAndErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stamp.json")
	if s, err := ReadStamp(path); s != nil || err != nil {
		t.Fatalf("missing stamp: %v, %v", s, err)
	}
	s := &Stamp{Inputs: map[string]string{"pin": "abc", "architectures": "gfx1100"}}
	s.SetOverlay(map[string]string{"mlx/backend/rocm/qmm.hip": "h1"})
	if err := WriteStamp(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadStamp(path)
	if err != nil || len(diff(s, got)) != 0 || got.Inputs["overlay:mlx/backend/rocm/qmm.hip"] != "h1" {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	s.SetOverlay(map[string]string{"b": "h2"})
	if _, ok := s.Inputs["overlay:mlx/backend/rocm/qmm.hip"]; ok || s.Inputs["overlay:b"] != "h2" {
		t.Errorf("SetOverlay kept a stale file: %v", s.Inputs)
	}
	os.WriteFile(path, []byte("{not json"), 0o644)
	if _, err := ReadStamp(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "cache:clean") {
		t.Errorf("corrupt stamp: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("WriteStamp left temporary files: %v", entries)
	}
}

func TestDiffSaysWhatChanged(t *testing.T) {
	old := &Stamp{Inputs: map[string]string{
		"pin": "81ba1c6a", "architectures": "gfx1100", "env:ROCM_PATH": "/opt/rocm",
		"overlay:mlx/backend/rocm/qmm.hip": "aaaa", "overlay:mlx/backend/rocm/gone.hip": "bbbb",
		"spec": strings.Repeat("1", 64),
	}}
	new := &Stamp{Inputs: map[string]string{
		"pin": "81ba1c6a", "architectures": "gfx1100;gfx1151",
		"overlay:mlx/backend/rocm/qmm.hip": "cccc", "overlay:mlx/backend/rocm/new.hip": "dddd",
		"spec": strings.Repeat("2", 64), "toolchain.version": "6.2.0",
	}}
	var got []string
	for _, c := range diff(old, new) {
		got = append(got, c.String())
	}
	want := []string{
		"architectures: gfx1100 -> gfx1100;gfx1151",
		"env:ROCM_PATH: /opt/rocm -> (none)",
		"overlay: mlx/backend/rocm/gone.hip removed",
		"overlay: mlx/backend/rocm/new.hip added",
		"overlay: mlx/backend/rocm/qmm.hip changed",
		"spec: 111111111111 -> 222222222222",
		"toolchain.version: (none) -> 6.2.0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := diff(nil, new); len(d) != 1 || d[0].String() != "no previous successful build" {
		t.Errorf("Diff(nil, s) = %v", d)
	}
	if d := diff(new, new); d != nil {
		t.Errorf("Diff(s, s) = %v", d)
	}
	many := &Stamp{Inputs: map[string]string{"pin": "x"}}
	for i := 0; i < 12; i++ {
		many.Inputs[fmt.Sprintf("overlay:f%02d.hip", i)] = "h"
	}
	d := diff(&Stamp{Inputs: map[string]string{"pin": "y"}}, many)
	if len(d) != 2 || d[0].String() != "overlay: 12 files (12 added): f00.hip, f01.hip, f02.hip and 9 more" || d[1].String() != "pin: y -> x" {
		t.Errorf("many overlay files: %q", d)
	}
}

// holdLock starts a child process that holds the lock at path.
func holdLock(t *testing.T, path string) (pid int, kill func(), done <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw, _ := os.Pipe()
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		proc.Run(ctx, proc.Cmd{Path: os.Args[0], Env: append(os.Environ(), childEnv+"="+path), Stdout: pw})
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	if !sc.Scan() || sc.Text() != "locked" {
		cancel()
		t.Fatalf("the child did not take the lock: %q", sc.Text())
	}
	b, _ := os.ReadFile(path)
	pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	t.Cleanup(cancel)
	return pid, cancel, ch
}

func TestLockWaitsNamesTheHolderAndTakesOverFromTheDead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rocm", "lock")
	pid, kill, dead := holdLock(t, path)
	if pid <= 0 || pid == os.Getpid() {
		t.Fatalf("holder pid %d", pid)
	}
	// A waiter with a deadline gives up, naming the holder.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	reported := 0
	if _, err := Lock(ctx, path, func(p int) { reported = p }); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("held by another mlxbuild (pid %d)", pid)) {
		t.Fatalf("Lock under a live holder: %v", err)
	}
	if reported != pid {
		t.Errorf("waiting reported pid %d, want %d", reported, pid)
	}
	// A waiter without a deadline proceeds once the holder dies by SIGKILL.
	got := make(chan error, 1)
	calls := 0
	go func() {
		unlock, err := Lock(context.Background(), path, func(int) { calls++ })
		if err == nil {
			if b, _ := os.ReadFile(path); strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
				err = fmt.Errorf("lock file holds %q after the take-over", b)
			}
			if uerr := unlock(); err == nil {
				err = uerr
			}
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	kill()
	<-dead
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the lock of a killed process was not taken over")
	}
	if calls != 1 {
		t.Errorf("waiting called %d times, want once", calls)
	}
	// Free now: a third Lock does not wait.
	unlock, err := Lock(context.Background(), path, func(int) { t.Error("waited on a free lock") })
	if err != nil {
		t.Fatal(err)
	}
	unlock()
}

// all is every backend, as flow.Clean passes them.
var all = []string{"cpu", "rocm", "cuda", "metal"}

func TestCleanAndPurge(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	for _, b := range []string{"rocm", "cpu"} {
		l := For(root, b)
		if err := Prepare(l, ""); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{l.Tree, l.Build, l.Out} {
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(d, "f"), []byte("x"), 0o644)
		}
		os.WriteFile(l.Stamp, []byte("{}"), 0o644)
		os.WriteFile(l.Manifest, []byte("m"), 0o644)
		os.WriteFile(l.Lock, nil, 0o644)
	}
	os.MkdirAll(filepath.Join(root, "src", "git"), 0o755)
	l := For(root, "rocm")
	if err := PurgeForPin(l, "aaa", "aaa"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.Build); err != nil {
		t.Error("same pin purged the build")
	}
	if err := PurgeForPin(l, "aaa", "bbb"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{l.Build, l.Tree, l.Out, l.Manifest} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("pin change left %s", p)
		}
	}
	if _, err := os.Stat(l.Stamp); err != nil {
		t.Error("pin change removed the stamp (it explains the rebuild)")
	}
	for _, bad := range []string{"../x", "/etc", ".", ".."} {
		if _, err := Clean(root, []string{bad}, CleanScope{}); err == nil || !strings.Contains(err.Error(), "not a plain name") {
			t.Errorf("Clean(%q): %v", bad, err)
		}
	}
	// A busy backend is reported, not cleaned.
	pid, kill, dead := holdLock(t, For(root, "cpu").Lock)
	if _, err := Clean(root, []string{"cpu"}, CleanScope{}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", pid)) {
		t.Errorf("Clean of a locked backend: %v", err)
	}
	kill()
	<-dead
	if _, err := Clean(root, []string{"cpu"}, CleanScope{}); err != nil {
		t.Fatal(err)
	}
	if e, _ := os.ReadDir(For(root, "cpu").Dir); len(e) != 1 || e[0].Name() != "lock" {
		t.Errorf("cpu after Clean holds %v, want only its lock", e)
	}
	if _, err := os.Stat(For(root, "rocm").Stamp); err != nil {
		t.Error("cleaning cpu touched rocm")
	}
	if _, err := Clean(root, all, CleanScope{Shared: true, Deps: true}); err != nil {
		t.Fatal(err)
	}
	e, _ := os.ReadDir(root)
	var names []string
	for _, x := range e {
		names = append(names, x.Name())
	}
	if strings.Join(names, ",") != "CACHEDIR.TAG,cpu,rocm" {
		t.Errorf("root after Clean(all): %v", names)
	}
	// A directory mlxbuild did not make is never emptied.
	project := t.TempDir()
	os.WriteFile(filepath.Join(project, "main.rs"), []byte("fn main(){}"), 0o644)
	if _, err := Clean(project, all, CleanScope{Shared: true, Deps: true}); err == nil || !strings.Contains(err.Error(), "has no CACHEDIR.TAG") {
		t.Errorf("Clean of a project dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(project, "main.rs")); err != nil {
		t.Error("Clean deleted a project file")
	}
	if _, err := Clean("/", all, CleanScope{Shared: true, Deps: true}); err == nil {
		t.Error("Clean(/) was not refused")
	}
}

// A no-op build writes the same stamp: the file is left alone (same inode,
// so no create, sync and rename), while a changed stamp replaces it.
func TestWriteStampLeavesAnIdenticalStamp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stamp.json")
	s := &Stamp{Inputs: map[string]string{"pin": "abc"}}
	if err := WriteStamp(path, s); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteStamp(path, &Stamp{Inputs: map[string]string{"pin": "abc"}}); err != nil {
		t.Fatal(err)
	}
	same, err := os.Stat(path)
	if err != nil || !os.SameFile(before, same) {
		t.Fatalf("an identical stamp was rewritten (%v)", err)
	}
	if err := WriteStamp(path, &Stamp{Inputs: map[string]string{"pin": "def"}}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadStamp(path)
	if err != nil || got.Inputs["pin"] != "def" {
		t.Fatalf("a changed stamp was not written: %+v, %v", got, err)
	}
}
