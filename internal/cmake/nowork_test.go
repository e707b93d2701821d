package cmake

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// headerNinja writes a Ninja project shaped as CMake's: an edge whose
// headers come from the deps log (deps = gcc, a depfile written by the
// command), a copy, and a phony default over both.
func headerNinja(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "build.ninja"), `# as CMake writes: rules in an include
include rules.ninja
build out: cp in
build obj: cc src
  DEP = header.h
# CMake 4 gives a target with no other order dependency the build
# directory as an order-only input.
build all: phony out obj || .
default all
`)
	testutil.WriteFile(t, filepath.Join(dir, "rules.ninja"), `rule cp
  command = cp $in $out
rule cc
  command = cp $in $out && echo "$out: $DEP" > $out.d
  depfile = $out.d
  deps = gcc
`)
	for _, f := range []string{"in", "src", "header.h"} {
		testutil.WriteFile(t, filepath.Join(dir, f), f+"\n")
	}
	return dir
}

// buildNinja builds dir with real Ninja.
func buildNinja(t testing.TB, dir string) {
	t.Helper()
	if _, err := Build(context.Background(), BuildOptions{Dir: dir, LogPath: filepath.Join(t.TempDir(), "log")}); err != nil {
		t.Fatal(err)
	}
}

// asked is what a no-op build learns of dir: the record's answer, else
// `ninja -n`'s.
type asked struct {
	check *NoWorkCheck
	lock  string
}

// ask checks dir's record and, where it does not answer, asks ninja -n;
// lock is the lock file the caller took before (see NoWorkCheck.Remember).
func ask(t testing.TB, dir, lock string) *asked {
	t.Helper()
	a := &asked{check: CheckNoWork(dir), lock: lock}
	a.check.NoWork(context.Background())
	return a
}

// NoWork says whether the record or Ninja found nothing to do.
func (a *asked) NoWork() bool { return a.check.NoWork(context.Background()) }

// Recorded is how many files the record checked when it answered.
func (a *asked) Recorded() int { return a.check.Recorded() }

// Remember makes the record as a no-op build does after Ninja's answer.
func (a *asked) Remember(ctx context.Context) error { return a.check.Remember(ctx, a.lock) }

// said is what Ninja said, for a failure's message.
func (a *asked) said() string { return string(a.check.out) }

// remembered builds dir, lets Ninja find no work and remember it, and
// checks that the next no-op is answered by the record.
func remembered(t *testing.T, dir string) {
	t.Helper()
	buildNinja(t, dir)
	lock := lockNow(t)
	d := ask(t, dir, lock)
	if !d.NoWork() || d.Recorded() != 0 {
		t.Fatalf("after a build: no work %v, recorded %d; Ninja said:\n%s", d.NoWork(), d.Recorded(), d.said())
	}
	ninja, err := ninjaFor(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Files the build wrote within the file system's clock tick of the
	// sentinel are racy (olderThan): a later look makes the record.
	for try := 0; ; try++ {
		why, err := rememberNoWork(context.Background(), dir, ninja, lookAt(lock))
		if err != nil {
			t.Fatal(err)
		}
		if why == "" {
			break
		}
		if try == 20 || !strings.Contains(why, "changed during the dry run") {
			t.Fatalf("no record after %d tries: %s", try+1, why)
		}
		time.Sleep(10 * time.Millisecond)
		lock = lockNow(t)
		if d = ask(t, dir, lock); !d.NoWork() {
			t.Fatalf("work on a no-op again:\n%s", d.said())
		}
	}
	if d := ask(t, dir, lockNow(t)); !d.NoWork() || d.Recorded() == 0 {
		t.Fatalf("the record did not answer: no work %v, recorded %d\n%s", d.NoWork(), d.Recorded(), readFile(t, filepath.Join(dir, noWorkRecordFile)))
	}
}

// TestNoWorkRecordAnswersUntilAFileChanges runs real Ninja. After Ninja
// found no work, the record answers, and keeps answering while nothing
// changes; every kind of change to what Ninja reads makes Ninja answer
// again, and where Ninja then has work the record must not have said
// otherwise.
func TestNoWorkRecordAnswersUntilAFileChanges(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp", "sh")
	ninja := lookPath(t, "ninja")
	// Later than anything the case's own build wrote, however long that
	// took: taken when the change is made, not when the test began.
	later := func() time.Time { return time.Now().Add(3 * time.Second) }
	cases := []struct {
		name   string
		change func(t *testing.T, dir string)
		work   bool // Ninja itself has work after the change
	}{
		{"nothing", func(*testing.T, string) {}, false},
		{"an input touched", func(t *testing.T, dir string) { chtimes(t, filepath.Join(dir, "in"), later()) }, true},
		{"a header from the deps log touched", func(t *testing.T, dir string) { chtimes(t, filepath.Join(dir, "header.h"), later()) }, true},
		{"a header edited in place, mtime kept", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "header.h")
			st, _ := os.Stat(p)
			testutil.WriteFile(t, p, "edited\n")
			chtimes(t, p, st.ModTime())
		}, false},
		{"an output removed", func(t *testing.T, dir string) { remove(t, filepath.Join(dir, "obj")) }, true},
		{"an absent node made", func(t *testing.T, dir string) { testutil.WriteFile(t, filepath.Join(dir, "all"), "") }, false},
		{"the included manifest changed", func(t *testing.T, dir string) { appendTo(t, filepath.Join(dir, "rules.ninja"), "# a comment\n") }, false},
		{"an edge added", func(t *testing.T, dir string) {
			appendTo(t, filepath.Join(dir, "build.ninja"), "build more: cp in\ndefault more\n")
		}, true},
		{"the build log touched", func(t *testing.T, dir string) { chtimes(t, filepath.Join(dir, ".ninja_log"), later()) }, false},
		{"CMakeCache.txt names a Ninja", func(t *testing.T, dir string) {
			testutil.WriteFile(t, filepath.Join(dir, "CMakeCache.txt"), "CMAKE_MAKE_PROGRAM:FILEPATH="+ninja+"\n")
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := headerNinja(t)
			remembered(t, dir)
			c.change(t, dir)
			d := ask(t, dir, lockNow(t))
			if c.name == "nothing" {
				if d.Recorded() == 0 || !d.NoWork() {
					t.Errorf("with nothing changed the record did not answer (no work %v)", d.NoWork())
				}
				return
			}
			if d.Recorded() != 0 {
				t.Errorf("the record answered after %s", c.name)
			}
			if d.NoWork() == c.work {
				t.Errorf("Ninja's answer: no work %v, want %v; it said:\n%s", d.NoWork(), !c.work, d.said())
			}
		})
	}
}

// TestNoWorkRecordOfAnOlderFormIsAMiss: a record an older mlxbuild wrote
// (no-work 3, before internal/memo) answers nothing; Ninja answers
// instead, and finds no work (no rebuild after an upgrade); the record is
// then made anew in today's form and answers.
func TestNoWorkRecordOfAnOlderFormIsAMiss(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp", "sh")
	dir := headerNinja(t)
	remembered(t, dir)
	older := "mlxbuild ninja no-work 3\ndir " + strconv.Quote(dir) + "\nninja \"ninja\" \"/usr/bin/ninja\"\nend 0\n"
	testutil.WriteFile(t, filepath.Join(dir, noWorkRecordFile), older)
	d := ask(t, dir, lockNow(t))
	if d.Recorded() != 0 || !d.NoWork() {
		t.Fatalf("with an older record: recorded %d, no work %v; want Ninja's answer, no work\n%s", d.Recorded(), d.NoWork(), d.said())
	}
	remembered(t, dir)
	if rec := readFile(t, filepath.Join(dir, noWorkRecordFile)); !strings.HasPrefix(rec, "mlxbuild memo 4 "+noWorkKind+"\n") {
		t.Errorf("the record was not made anew:\n%s", rec)
	}
}

// TestNoWorkRecordFollowsTheNinjaProgram: the record names the Ninja
// binary CMake chose; a new binary there, or a copy of the build
// directory, is not answered by it.
func TestNoWorkRecordFollowsTheNinjaProgram(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp", "sh")
	dir := headerNinja(t)
	prog := filepath.Join(t.TempDir(), "ninja")
	testutil.RunOK(t, nil, "", "cp", lookPath(t, "ninja"), prog)
	testutil.WriteFile(t, filepath.Join(dir, "CMakeCache.txt"), "CMAKE_MAKE_PROGRAM:FILEPATH="+prog+"\n")
	remembered(t, dir)
	if rec, ok := readNoWorkRecord(dir); !ok || rec.ninja != prog || rec.ninjaPath != prog {
		t.Fatalf("the record names Ninja as %q (%q), want %q", rec.ninja, rec.ninjaPath, prog)
	}

	copied := filepath.Join(t.TempDir(), "copy")
	testutil.RunOK(t, nil, "", "cp", "-a", dir, copied)
	if d := ask(t, copied, lockNow(t)); d.Recorded() != 0 {
		t.Error("the record answered for a copy of its build directory")
	}

	// A new binary in place (a package upgrade renames one in).
	testutil.RunOK(t, nil, "", "cp", lookPath(t, "ninja"), prog+".new")
	if err := os.Rename(prog+".new", prog); err != nil {
		t.Fatal(err)
	}
	if d := ask(t, dir, lockNow(t)); d.Recorded() != 0 || !d.NoWork() {
		t.Errorf("after Ninja was replaced: recorded %d, no work %v", d.Recorded(), d.NoWork())
	}
}

// TestNoWorkRecordIsNotMadeFromARacyLook: a file that changed after the
// Ninja began (here its ctime, by a touch that keeps its times, and a
// node removed, which leaves only its directory's ctime) may not have been
// what Ninja saw, so no record is made.
func TestNoWorkRecordIsNotMadeFromARacyLook(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp", "sh")
	for name, change := range map[string]func(dir string){
		"touched keeping its times": func(dir string) {
			p := filepath.Join(dir, "header.h")
			st, _ := os.Stat(p)
			chtimes(t, p, st.ModTime())
		},
		"removed": func(dir string) { remove(t, filepath.Join(dir, "header.h")) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := headerNinja(t)
			buildNinja(t, dir)
			lock := lockNow(t)
			if d := ask(t, dir, lock); !d.NoWork() {
				t.Fatalf("work after a build:\n%s", d.said())
			}
			change(dir)
			why, err := rememberNoWork(context.Background(), dir, "ninja", lookAt(lock))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(why, "changed during the dry run") {
				t.Errorf("rememberNoWork made a record (why %q)", why)
			}
			if _, err := os.Stat(filepath.Join(dir, noWorkRecordFile)); !os.IsNotExist(err) {
				t.Errorf("a record was written: %v", err)
			}
		})
	}
}

// TestNoWorkRecordNeverWhereNinjaReadsMore: an edge whose depfile has no
// deps log makes Ninja read a file that is no node of its graph, so the
// record says "never" and the record does not answer; its tools are not
// run again until a manifest changes, and then it is made again.
func TestNoWorkRecordNeverWhereNinjaReadsMore(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp", "sh")
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "build.ninja"), `rule cc
  command = cp $in $out && echo "$out: header.h" > $out.d
  depfile = $out.d
build obj: cc src
`)
	testutil.WriteFile(t, filepath.Join(dir, "src"), "src\n")
	testutil.WriteFile(t, filepath.Join(dir, "header.h"), "h\n")
	buildNinja(t, dir)
	d := ask(t, dir, lockNow(t))
	if !d.NoWork() {
		t.Fatalf("work after a build:\n%s", d.said())
	}
	if err := d.Remember(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec, ok := readNoWorkRecord(dir)
	if !ok || !strings.Contains(rec.never, "depfile") || len(rec.files) == 0 || rec.files[0].path != filepath.Join(dir, "build.ninja") {
		t.Fatalf("the record: %+v (ok %v)", rec, ok)
	}
	d = ask(t, dir, lockNow(t))
	if d.Recorded() != 0 || !d.check.never || !d.NoWork() {
		t.Errorf("with a never record: recorded %d, never %v, no work %v", d.Recorded(), d.check.never, d.NoWork())
	}
	// The header, known only from the depfile, changes: Ninja must see it.
	chtimes(t, filepath.Join(dir, "header.h"), time.Now().Add(3*time.Second))
	if d := ask(t, dir, lockNow(t)); d.NoWork() || d.Recorded() != 0 {
		t.Errorf("a header known from a depfile changed, and no work was reported")
	}
	appendTo(t, filepath.Join(dir, "build.ninja"), "# changed\n")
	if d := ask(t, dir, lockNow(t)); d.Recorded() != 0 || d.check.never {
		t.Error("a never record held after its manifest changed")
	}
}

// TestGraphNodesReadsRealTools runs Ninja's query tools on a graph with
// names Ninja quotes and checks every node is found: outputs, explicit,
// implicit and order-only inputs, and the deps log's headers.
func TestGraphNodesReadsRealTools(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp", "sh")
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "build.ninja"), `rule cp
  command = cp $in $out
rule cc
  command = cp $in $out && cp deps.txt $out.d
  depfile = $out.d
  deps = gcc
build out$ file: cp it's$ in | imp$:x || ord
build obj: cc src
build all: phony out$ file obj
`)
	for _, f := range []string{"it's in", "imp:x", "ord", "src", "a header.h"} {
		testutil.WriteFile(t, filepath.Join(dir, f), "x\n")
	}
	testutil.WriteFile(t, filepath.Join(dir, "deps.txt"), "obj: a\\ header.h\n")
	buildNinja(t, dir)
	nodes, err := graphNodes(context.Background(), dir, "ninja")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"out file", "obj", "all", "it's in", "imp:x", "ord", "src", "a header.h"} {
		if !slices.Contains(nodes, want) {
			t.Errorf("graphNodes lacks %q: %q", want, nodes)
		}
	}
}

// lockNow writes a file as a build writes its lock file when it takes the
// lock, before Ninja runs, and returns its path.
func lockNow(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "lock")
	testutil.WriteFile(t, p, "1\n")
	return p
}

func lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func chtimes(t *testing.T, p string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestNoWorkRecordNeedsALockFile: a no-op without a lock file
// cannot tell what changed during the dry run, so it leaves no record.
func TestNoWorkRecordNeedsALockFile(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp", "sh")
	dir := headerNinja(t)
	buildNinja(t, dir)
	time.Sleep(20 * time.Millisecond) // past the clock tick of the build
	d := ask(t, dir, "")
	if !d.NoWork() {
		t.Fatalf("work after a build:\n%s", d.said())
	}
	if err := d.Remember(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, noWorkRecordFile)); !os.IsNotExist(err) {
		t.Errorf("a record was made without a lock file: %v", err)
	}
}

// TestNoWorkRecordNeverWithoutNinjasTools: a Ninja whose query tools fail
// (one older than 1.11 has no -t inputs) gets a never record, so later
// no-ops do not run the tools again; a new Ninja binary tries again.
func TestNoWorkRecordNeverWithoutNinjasTools(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp", "sh")
	dir := headerNinja(t)
	buildNinja(t, dir)
	calls := filepath.Join(t.TempDir(), "tool-calls")
	fake := filepath.Join(t.TempDir(), "ninja")
	testutil.WriteFile(t, fake, "#!/bin/sh\ncase \" $* \" in *\" -t \"*) echo x >> "+calls+"; echo 'ninja: error: unknown tool' >&2; exit 1;; esac\necho \"ninja: no work to do.\"\n")
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(dir, "CMakeCache.txt"), "CMAKE_MAKE_PROGRAM:FILEPATH="+fake+"\n")
	time.Sleep(20 * time.Millisecond) // past the clock tick of the writes
	d := ask(t, dir, lockNow(t))
	if !d.NoWork() {
		t.Fatalf("the fake Ninja: %s", d.said())
	}
	if err := d.Remember(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rec, ok := readNoWorkRecord(dir); !ok || !strings.Contains(rec.never, "ninja -t targets") {
		t.Fatalf("the record: %+v (ok %v)", rec, ok)
	}
	for i := 0; i < 2; i++ {
		d := ask(t, dir, lockNow(t))
		if d.Recorded() != 0 || !d.check.never {
			t.Fatalf("run %d: never %v, recorded %d", i, d.check.never, d.Recorded())
		}
		if err := d.Remember(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(readFile(t, calls), "x"); n != 1 {
		t.Errorf("the tools ran %d times, want once", n)
	}
	testutil.RunOK(t, nil, "", "cp", "-p", fake, fake+".new")
	if err := os.Rename(fake+".new", fake); err != nil {
		t.Fatal(err)
	}
	if d := ask(t, dir, lockNow(t)); d.Recorded() != 0 || d.check.never {
		t.Error("the never record held for a new Ninja binary")
	}
}

// TestNoWorkRecordKeepsTheBuildDirectoryByExistence: Ninja 1.13's tools
// list the build directory (".", CMake 4's order-only input of targets
// with no other order dependency) as a node. On the real ROCm fork every
// no-op re-ran ninja -n and remade the record, since writing the record
// changed the directory's mtime. The directory is kept as "must be a
// directory": a file written there leaves the record answering, as its
// identity would not.
func TestNoWorkRecordKeepsTheBuildDirectoryByExistence(t *testing.T) {
	dir := t.TempDir()
	node := buildDirNode(dir)
	rec := noWorkRecord{dir: dir, ninja: "ninja", ninjaPath: "/usr/bin/ninja", files: []recordedFile{{path: node, buildDir: true}}}
	got, err := decodeNoWorkRecord(string(rec.encode()))
	if err != nil || len(got.files) != 1 || !got.files[0].buildDir || got.files[0].path != node {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	byIdentity := noWorkRecord{files: []recordedFile{lookAt(node)}}
	time.Sleep(20 * time.Millisecond)
	testutil.WriteFile(t, filepath.Join(dir, noWorkRecordFile), "a record written after the look\n")
	if !got.holds() {
		t.Error("a file written in the build directory voided the record")
	}
	if byIdentity.holds() {
		t.Error("the directory's identity did not change with a file written in it: the test proves nothing")
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if got.holds() {
		t.Error("the record holds with the build directory gone")
	}
}
