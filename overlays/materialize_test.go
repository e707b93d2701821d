package overlays

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fixture is a pristine checkout, an overlay and a cache, in one temp dir.
type fixture struct {
	pristine, overlay, tree, manifest string
	p, o                              files
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	d := t.TempDir()
	f := &fixture{
		pristine: filepath.Join(d, "mlx"), overlay: filepath.Join(d, "patches"),
		tree: filepath.Join(d, "cache", "rocm", "tree"), manifest: filepath.Join(d, "cache", "rocm", "tree.manifest"),
		p: files{
			"CMakeLists.txt":             "project(mlx)\n",
			"mlx/array.cpp":              "// pristine array\n",
			"mlx/array.h":                "// pristine array.h\n",
			"mlx/backend/cpu/add.cpp":    "// cpu add\n",
			"mlx/backend/cuda/qmm.cu":    "// cuda\n",
			"tools/gen.sh*":              "#!/bin/sh\necho gen\n",
			"a.txt":                      "a.txt sorts after a/ in a walk\n",
			"a/b":                        "a/b\n",
			".git/HEAD":                  "not copied\n",
			"python/mlx/__init__.py":     "",
			"docs/src/_static/big.png":   strings.Repeat("png", 50000),
			"mlx/backend/metal/empty.h":  "",
			"mlx/backend/common/util.h":  "// util\n",
			"mlx/backend/common/copy.h":  "// copy\n",
			"mlx/backend/common/utils.h": "// utils\n",
		},
		o: files{
			"CMakeLists.txt":                  "project(mlx) # rocm\n",
			"mlx/backend/rocm/qmm.hip":        "// rocm qmm\n",
			"mlx/backend/rocm/device/x.hpp":   "// rocm x\n",
			"mlx/backend/common/util.h":       "// util, fixed for rocm\n",
			"mlx/backend/rocm/bin2h.cmake*":   "# exec in the overlay\n",
			"UPSTREAM":                        "fork abc123\n",
			"mlx/backend/rocm/LOCAL_FIXES.md": "notes\n",
		},
	}
	writeFiles(t, f.pristine, f.p)
	writeFiles(t, f.overlay, f.o)
	return f
}

var testRecords = []string{"UPSTREAM", "mlx/backend/rocm/LOCAL_FIXES.md"}

// want is the exact tree the fixture must give.
func (f *fixture) want() files {
	w := merged(f.p, f.o)
	delete(w, ".git/HEAD")
	for _, r := range testRecords {
		delete(w, r)
	}
	return w
}

func (f *fixture) run(t *testing.T) Stats {
	t.Helper()
	st, m, err := Materialize(f.pristine, f.overlay, f.tree, f.manifest, testRecords)
	f.check(t, m, err)
	return st
}

// check fails unless a Materialize that gave m and err made the exact tree
// and a manifest of every file.
func (f *fixture) check(t *testing.T, m *Manifest, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.entries) != len(f.want()) {
		t.Errorf("manifest has %d entries, want %d", len(m.entries), len(f.want()))
	}
	sameFiles(t, readFiles(t, f.tree), f.want())
}

func TestMaterializeMakesTheExactTree(t *testing.T) {
	f := newFixture(t)
	st := f.run(t)
	if st.Written != len(f.want()) || st.Unchanged+st.Removed+st.Restored != 0 {
		t.Errorf("cold run stats %+v, want %d written and nothing else", st, len(f.want()))
	}
	_, m, err := Materialize(f.pristine, f.overlay, f.tree, f.manifest, testRecords)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.entries {
		_, fromOverlay := f.o[e.path]
		if _, exec := f.o[e.path+"*"]; exec {
			fromOverlay = true
		}
		if (e.origin == FromOverlay) != fromOverlay {
			t.Errorf("%s: origin %s", e.path, e.origin)
		}
	}
	if !slices.IsSortedFunc(m.entries, func(a, b entry) int { return comparePaths(a.path, b.path) }) {
		t.Error("manifest entries are not sorted")
	}
	ov, err := OverlayFiles(f.overlay, testRecords)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.OverlayFiles(); len(got) != len(ov) || len(ov) != len(f.o)-len(testRecords) {
		t.Errorf("OverlayFiles: %d from the manifest, %d from the overlay, want %d", len(got), len(ov), len(f.o)-len(testRecords))
	} else {
		for p, h := range ov {
			if got[p] != h {
				t.Errorf("OverlayFiles[%s]: manifest %s, overlay %s", p, got[p], h)
			}
		}
	}
}

func TestSecondRunWritesNothing(t *testing.T) {
	f := newFixture(t)
	f.run(t)
	before := statIDs(t, f.tree)
	// Cross a clock tick so that no entry is racy: this is the steady state.
	time.Sleep(20 * time.Millisecond)
	for i := 0; i < 2; i++ {
		st := f.run(t)
		if st.Written+st.Restored+st.Removed != 0 || len(st.Changed) != 0 || st.Unchanged != len(f.want()) {
			t.Errorf("run %d: %+v, want everything unchanged", i+2, st)
		}
	}
	after := statIDs(t, f.tree)
	for p, s := range before {
		if after[p] != s {
			t.Errorf("%s was rewritten by a no-op run: %+v -> %+v", p, s, after[p])
		}
	}
	// The manifest was not rewritten by the last run either.
	m1, _ := os.Lstat(f.manifest)
	f.run(t)
	m2, _ := os.Lstat(f.manifest)
	if statData(m1) != statData(m2) {
		t.Error("a no-op run rewrote the manifest")
	}
	// Reading the manifest is an optimisation only: without one, nothing is
	// rewritten either (content is compared).
	os.Remove(f.manifest)
	if st := f.run(t); st.Written+st.Restored+st.Removed != 0 {
		t.Errorf("run without a manifest: %+v, want nothing written", st)
	}
	if after2 := statIDs(t, f.tree); !mapsEqual(after, after2) {
		t.Error("a run without a manifest rewrote files whose content was right")
	}
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestOnlyTheChangedOverlayFileIsRewritten(t *testing.T) {
	f := newFixture(t)
	f.run(t)
	before := statIDs(t, f.tree)
	time.Sleep(20 * time.Millisecond)
	f.o["mlx/backend/rocm/qmm.hip"] = "// rocm qmm, faster\n"
	writeFiles(t, f.overlay, files{"mlx/backend/rocm/qmm.hip": f.o["mlx/backend/rocm/qmm.hip"]})
	st := f.run(t)
	if st.Written != 1 || st.Restored+st.Removed != 0 || !slices.Equal(st.Changed, []string{"mlx/backend/rocm/qmm.hip"}) {
		t.Errorf("stats %+v, want only mlx/backend/rocm/qmm.hip written", st)
	}
	after := statIDs(t, f.tree)
	for p, s := range before {
		if changed := after[p] != s; changed != (p == "mlx/backend/rocm/qmm.hip") {
			t.Errorf("%s: rewritten=%v", p, changed)
		}
	}
	// A bare touch of an overlay file changes no content: nothing is
	// rewritten (same inode), but the tree copy takes the newer mtime so
	// Ninja rebuilds what depends on it, and only that file is touched.
	now := time.Now().Add(time.Second)
	os.Chtimes(filepath.Join(f.overlay, "CMakeLists.txt"), now, now)
	before = statIDs(t, f.tree)
	st = f.run(t)
	if st.Written != 0 || st.Touched != 1 || !slices.Equal(st.Changed, []string{"CMakeLists.txt"}) {
		t.Errorf("touch: stats %+v, want only CMakeLists.txt touched, nothing written", st)
	}
	fi, err := os.Stat(filepath.Join(f.tree, "CMakeLists.txt"))
	if err != nil || !fi.ModTime().Equal(now) {
		t.Errorf("touched tree file mtime %v, want %v (%v)", fi.ModTime(), now, err)
	}
	after = statIDs(t, f.tree)
	for p, s := range before {
		if changed := after[p] != s; changed != (p == "CMakeLists.txt") {
			t.Errorf("%s: changed=%v after a touch of CMakeLists.txt", p, changed)
		}
	}
	// The touch is passed on once: the next run does nothing.
	if st := f.run(t); st.Written+st.Touched != 0 {
		t.Errorf("second run after a touch: %+v", st)
	}
}

func TestDroppedFilesComeBackOrGo(t *testing.T) {
	f := newFixture(t)
	f.run(t)
	// Dropped from the overlay: util.h (pristine has it), qmm.hip (it does not).
	for _, p := range []string{"mlx/backend/common/util.h", "mlx/backend/rocm/qmm.hip"} {
		os.Remove(filepath.Join(f.overlay, p))
		delete(f.o, p)
	}
	// Debris in the tree: a stray file, a stray directory, a temporary file
	// of a killed run, and a directory where a file belongs.
	writeFiles(t, f.tree, files{"stray.o": "x", "build-junk/a/b.o": "y", "mlx/" + tmpPrefix + "array.cpp-1": "torn"})
	os.Remove(filepath.Join(f.tree, "mlx/array.h"))
	writeFiles(t, f.tree, files{"mlx/array.h/oops": "z"})
	st := f.run(t)
	if st.Restored != 1 {
		t.Errorf("restored %d, want 1 (util.h)", st.Restored)
	}
	want := []string{"build-junk", "mlx/array.h", "mlx/backend/common/util.h", "mlx/backend/rocm/qmm.hip", "stray.o"}
	if !slices.Equal(st.Changed, want) {
		t.Errorf("changed %q, want %q", st.Changed, want)
	}
	if st.Removed != 3 { // qmm.hip, stray.o, build-junk/a/b.o; mlx/array.h counts as written
		t.Errorf("removed %d, want 3", st.Removed)
	}
	// A file the overlay brings back is written again.
	f.o["mlx/backend/rocm/qmm.hip"] = "// back\n"
	writeFiles(t, f.overlay, files{"mlx/backend/rocm/qmm.hip": "// back\n"})
	if st := f.run(t); st.Written != 1 {
		t.Errorf("re-added file: %+v", st)
	}
}

func TestEditsInTheTreeAreUndone(t *testing.T) {
	f := newFixture(t)
	f.run(t)
	time.Sleep(20 * time.Millisecond)
	p := filepath.Join(f.tree, "mlx/backend/rocm/qmm.hip")
	os.WriteFile(p, []byte("// edited by hand\n"), 0o644)
	os.Chmod(filepath.Join(f.tree, "tools/gen.sh"), 0o644) // lost its exec bit
	st := f.run(t)
	if st.Written != 2 {
		t.Errorf("stats %+v, want the edited file and the chmod-ed one written", st)
	}
}

func TestWritingThroughTheTreeNeverChangesPristine(t *testing.T) {
	f := newFixture(t)
	f.run(t)
	for p := range f.want() {
		p = strings.TrimSuffix(p, "*")
		tf, pf := filepath.Join(f.tree, p), filepath.Join(f.pristine, p)
		ts, err1 := os.Stat(tf)
		ps, err2 := os.Stat(pf)
		if err1 != nil || err2 != nil {
			continue
		}
		if os.SameFile(ts, ps) {
			t.Fatalf("%s shares its inode with the pristine checkout", p)
		}
		fh, err := os.OpenFile(tf, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh.WriteString("// written through the tree\n")
		fh.Close()
	}
	got := readFiles(t, f.pristine)
	sameFiles(t, got, f.p)
}

func TestRefusedOverlayEntries(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(t *testing.T, f *fixture)
		records []string
		want    string
	}{
		{"symlink", func(t *testing.T, f *fixture) {
			os.Symlink("/etc/passwd", filepath.Join(f.overlay, "mlx/backend/rocm/evil.h"))
		}, nil, "mlx/backend/rocm/evil.h is a symbolic link"},
		{"symlinked dir", func(t *testing.T, f *fixture) {
			os.Symlink(f.pristine, filepath.Join(f.overlay, "mlx/linked"))
		}, nil, "mlx/linked is a symbolic link"},
		{"fifo", func(t *testing.T, f *fixture) {
			if err := syscall.Mkfifo(filepath.Join(f.overlay, "mlx/pipe"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil, "mlx/pipe is not a regular file"},
		{"newline in a name", func(t *testing.T, f *fixture) {
			writeFiles(t, f.overlay, files{"mlx/a\ncargo:rustc-link-arg=x.h": "x"})
		}, nil, `"a\ncargo:rustc-link-arg=x.h" holds a newline at byte 1`},
		{"file over a pristine dir", func(t *testing.T, f *fixture) {
			writeFiles(t, f.overlay, files{"tools": "x"})
		}, nil, "would replace the pristine directory"},
		{"absolute record", nil, []string{"/etc/UPSTREAM"}, `record "/etc/UPSTREAM" is empty or absolute`},
		{"escaping record", nil, []string{"../UPSTREAM"}, `record "../UPSTREAM" is not a clean path`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			if c.setup != nil {
				c.setup(t, f)
			}
			_, _, err := Materialize(f.pristine, f.overlay, f.tree, f.manifest, c.records)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if _, err2 := OverlayFiles(f.overlay, c.records); c.name != "file over a pristine dir" && (err2 == nil || !strings.Contains(err2.Error(), c.want)) {
				t.Errorf("OverlayFiles error %v, want one containing %q", err2, c.want)
			}
		})
	}
}

func TestMissingDirectoriesAndOverlap(t *testing.T) {
	f := newFixture(t)
	blocker := filepath.Join(filepath.Dir(f.pristine), "blocker")
	writeFiles(t, filepath.Dir(blocker), files{"blocker": "a file, not a directory"})
	for _, c := range []struct {
		pristine, overlay, tree string
		want                    string
	}{
		{filepath.Join(f.pristine, "nope"), f.overlay, f.tree, "pristine source " + filepath.Join(f.pristine, "nope") + ": no such file or directory; run the pristine step first"},
		{f.pristine, filepath.Join(f.overlay, "nope"), f.tree, "overlay directory " + filepath.Join(f.overlay, "nope") + ": no such file or directory; fix the backend's overlay"},
		{f.pristine, f.overlay, filepath.Join(f.pristine, "tree"), "overlap"},
		{f.pristine, f.overlay, filepath.Join(blocker, "tree"), "creating tree " + filepath.Join(blocker, "tree") + ": mkdir " + filepath.Join(blocker) + ": not a directory; make the cache directory writable"},
	} {
		_, _, err := Materialize(c.pristine, c.overlay, c.tree, f.manifest, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Materialize(%s, %s, %s): %v, want an error containing %q", c.pristine, c.overlay, c.tree, err, c.want)
		}
	}
	sameFiles(t, readFiles(t, f.pristine), f.p)
	sameFiles(t, readFiles(t, f.overlay), f.o)
}

func TestNoOverlay(t *testing.T) {
	f := newFixture(t)
	if _, _, err := Materialize(f.pristine, "", f.tree, f.manifest, nil); err != nil {
		t.Fatal(err)
	}
	want := merged(f.p, nil)
	delete(want, ".git/HEAD")
	sameFiles(t, readFiles(t, f.tree), want)
}

func TestPristineSymlinksAreCopiedAsLinks(t *testing.T) {
	f := newFixture(t)
	os.Symlink("array.h", filepath.Join(f.pristine, "mlx/alias.h"))
	f.run2(t)
	if got, err := os.Readlink(filepath.Join(f.tree, "mlx/alias.h")); err != nil || got != "array.h" {
		t.Fatalf("tree link: %q, %v", got, err)
	}
	os.Remove(filepath.Join(f.pristine, "mlx/alias.h"))
	os.Symlink("array.cpp", filepath.Join(f.pristine, "mlx/alias.h"))
	time.Sleep(10 * time.Millisecond)
	if st := f.run2(t); st.Written != 1 {
		t.Errorf("changed link target: %+v", st)
	}
	if got, _ := os.Readlink(filepath.Join(f.tree, "mlx/alias.h")); got != "array.cpp" {
		t.Errorf("tree link -> %q after the change", got)
	}
}

func (f *fixture) run2(t *testing.T) Stats {
	t.Helper()
	st, _, err := Materialize(f.pristine, f.overlay, f.tree, f.manifest, testRecords)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestCorruptManifestIsIgnored(t *testing.T) {
	f := newFixture(t)
	f.run(t)
	data, _ := os.ReadFile(f.manifest)
	for _, bad := range []string{"", "garbage\n", string(data[:len(data)/2]), strings.Replace(string(data), "\tp\t", "\tp\tx", 1)} {
		os.WriteFile(f.manifest, []byte(bad), 0o644)
		if st := f.run(t); st.Written != 0 {
			t.Errorf("after a corrupt manifest: %+v", st)
		}
	}
}

func TestOldFilesKeepTheirManifest(t *testing.T) {
	f := newFixture(t)
	old := time.Unix(-86400*365, 0) // 1969: a negative mtime
	os.Chtimes(filepath.Join(f.pristine, "mlx/array.cpp"), old, old)
	f.run(t)
	m := readManifest(f.manifest)
	if i := m.find("mlx/array.cpp"); i < 0 || m.entries[i].srcMTime != old.UnixNano() {
		t.Fatalf("the manifest did not keep a pre-1970 mtime (found at %d)", i)
	}
}

func TestComparePathsIsWalkOrder(t *testing.T) {
	paths := []string{"a/b", "a.txt", "a", "a/b/c", "a-b", "ab", "a/a", "b"}
	slices.SortFunc(paths, comparePaths)
	want := []string{"a", "a/a", "a/b", "a/b/c", "a-b", "a.txt", "ab", "b"}
	if !slices.Equal(paths, want) {
		t.Errorf("sorted %q, want %q", paths, want)
	}
}

// TestManifestPathsOfAnyBytesRoundTrip: paths are length-prefixed, so a
// tab, a newline, quotes or a backslash in a name cannot break an entry.
func TestManifestPathsOfAnyBytesRoundTrip(t *testing.T) {
	m := &Manifest{}
	for i, p := range []string{"plain/file.h", "tab\there", "new\nline", `back\slash`, `"quoted"`, "ünï", "nul\x00byte"} {
		m.entries = append(m.entries, entry{path: p, size: int64(i), mTime: -int64(i) << 40, ino: uint64(i) << 50, kind: kindExec, origin: FromOverlay,
			srcSize: 7, srcMTime: 1 << 62, srcIno: 9, cTime: -1, srcCTime: int64(i)})
		m.entries[i].hash[i] = byte(i + 1)
	}
	slices.SortFunc(m.entries, func(a, b entry) int { return comparePaths(a.path, b.path) })
	path := filepath.Join(t.TempDir(), "tree.manifest")
	if err := m.write(path); err != nil {
		t.Fatal(err)
	}
	if got := readManifest(path); !slices.Equal(got.entries, m.entries) {
		t.Errorf("read back %+v\nwant %+v", got.entries, m.entries)
	}
	// A file cut short anywhere reads as empty, never as part of a manifest.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(data); n += 7 {
		if err := os.WriteFile(path, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if got := readManifest(path); len(got.entries) != 0 {
			t.Fatalf("cut at %d of %d bytes: read %d entries", n, len(data), len(got.entries))
		}
	}
}

// TestRacyEntriesAreVerifiedOnce: entries whose times are not older than
// the manifest are read by content; the run that finds them unchanged
// rewrites the manifest, so the next no-op trusts them and writes nothing.
func TestRacyEntriesAreVerifiedOnce(t *testing.T) {
	f := newFixture(t)
	f.run(t)
	time.Sleep(20 * time.Millisecond)
	// Back-date the manifest: now every entry is as recent as it, or more.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(f.manifest, old, old); err != nil {
		t.Fatal(err)
	}
	ids := statIDs(t, f.tree)
	if st := f.run(t); st.Unchanged != len(f.want()) || len(st.Changed) != 0 {
		t.Fatalf("racy run: %+v, want everything unchanged", st)
	}
	m1, err := os.Lstat(f.manifest)
	if err != nil || !m1.ModTime().After(old.Add(time.Minute)) {
		t.Fatalf("the run that verified racy entries did not rewrite the manifest (%v, %v)", m1.ModTime(), err)
	}
	time.Sleep(20 * time.Millisecond)
	f.run(t)
	if m2, _ := os.Lstat(f.manifest); statData(m1) != statData(m2) {
		t.Error("a no-op after the racy entries were verified rewrote the manifest again")
	}
	if !mapsEqual(ids, statIDs(t, f.tree)) {
		t.Error("verifying racy entries rewrote tree files")
	}
}

// TestWrittenFilesRecordTheirCtimeAfterRename: rename moves a file's
// ctime, so the manifest must hold the ctime the tree file has after it,
// or the next no-op would read every file just written.
func TestWrittenFilesRecordTheirCtimeAfterRename(t *testing.T) {
	f := newFixture(t)
	writeFiles(t, f.pristine, files{"link-target.h": "x\n"})
	if err := os.Symlink("link-target.h", filepath.Join(f.pristine, "link.h")); err != nil {
		t.Fatal(err)
	}
	_, m, err := Materialize(f.pristine, f.overlay, f.tree, f.manifest, testRecords)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.entries {
		fi, err := os.Lstat(filepath.Join(f.tree, e.path))
		if err != nil {
			t.Fatal(err)
		}
		if s := statData(fi); s.ctime != e.cTime || s.ino != e.ino || s.mtime != e.mTime {
			t.Errorf("%s: manifest has ctime %d ino %d, the tree file %d %d", e.path, e.cTime, e.ino, s.ctime, s.ino)
		}
	}
}
