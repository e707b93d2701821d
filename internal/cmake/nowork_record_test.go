package cmake

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/memo"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// sampleRecord is a record of each kind of line.
func sampleRecord() noWorkRecord {
	return noWorkRecord{dir: "/c/rocm/build", ninja: "/usr/bin/ninja", ninjaPath: "/usr/bin/ninja", files: []recordedFile{
		{path: "/c/rocm/build/build.ninja", present: true, id: memo.Stat{Mode: 0o100644, Size: 20587, Mtime: 1796138084761203980, Ctime: 1796138084761203980, Ino: 5367234, Dev: 65024}},
		{path: "/c/rocm/build/all"},
		{path: "/c/rocm/tree/a dir/it's.h", present: true, id: memo.Stat{Mode: 0o100600, Size: 1}},
	}}
}

// TestNoWorkRecordRoundTrip: a record reads back as written, and every
// torn or altered form is refused (the caller then asks Ninja).
func TestNoWorkRecordRoundTrip(t *testing.T) {
	for _, r := range []noWorkRecord{sampleRecord(), {dir: "/b", never: "an edge has a dyndep file", files: []recordedFile{{path: "/b/build.ninja"}}}} {
		got, err := decodeNoWorkRecord(string(r.encode()))
		if err != nil || !reflect.DeepEqual(got, r) {
			t.Errorf("round trip: %+v, %v; want %+v", got, err, r)
		}
	}
	good := string(sampleRecord().encode())
	for name, text := range map[string]string{
		"empty":           "",
		"torn":            good[:len(good)-3],
		"no end line":     strings.Join(strings.Split(good, "\n")[:5], "\n") + "\n",
		"wrong count":     strings.Replace(good, "end 6", "end 5", 1),
		"other header":    strings.Replace(good, "mlxbuild memo 4 "+noWorkKind, "mlxbuild ninja no-work 3", 1),
		"no dir":          strings.Replace(good, `key "dir"`, `key "dirs"`, 1),
		"no ninja path":   strings.Replace(good, `key "ninja-path" "/usr/bin/ninja"`, `key "ninja-path" ""`, 1),
		"unquoted ninja":  strings.Replace(good, `key "ninja" "/usr/bin/ninja"`, "key \"ninja\" /usr/bin/ninja", 1),
		"bad number":      strings.Replace(good, `"33188 20587`, `"33188 2x587`, 1),
		"a short line":    strings.Replace(good, `"33188 20587 1796138084761203980 1796138084761203980 5367234 65024"`, `"33188 20587"`, 1),
		"an unknown kind": strings.Replace(good, `"/c/rocm/build/all" "absent"`, `"/c/rocm/build/all" "gone"`, 1),
		"text after end":  good + "more\n",
	} {
		if text == good && name != "text after end" {
			t.Fatalf("%s: the record's text did not change", name)
		}
		if r, err := decodeNoWorkRecord(text); err == nil {
			t.Errorf("%s: read as %+v", name, r)
		}
	}
}

// FuzzDecodeNoWorkRecord: no input panics the reader, and what it accepts
// is written back byte for byte.
func FuzzDecodeNoWorkRecord(f *testing.F) {
	f.Add(sampleRecord().encode())
	f.Add(noWorkRecord{dir: "/b", never: "why", files: []recordedFile{{path: "/b/x"}}}.encode())
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeNoWorkRecord(string(data))
		if err != nil {
			return
		}
		if again := r.encode(); string(again) != string(data) {
			t.Fatalf("accepted %q but writes %q", data, again)
		}
	})
}

// TestNoWorkRecordHoldsAcrossWorkers: a record large enough to be checked
// by several workers holds while nothing changes, and fails when any one
// file changes, wherever it is in the list.
func TestNoWorkRecordHoldsAcrossWorkers(t *testing.T) {
	dir := t.TempDir()
	var r noWorkRecord
	for i := 0; i < 3*statsPerWorker+7; i++ {
		p := filepath.Join(dir, fmt.Sprintf("f%04d", i))
		if i%5 != 0 { // every fifth file is recorded absent
			testutil.WriteFile(t, p, "x")
		}
		r.files = append(r.files, lookAt(p))
	}
	if !r.holds() {
		t.Fatal("an unchanged record does not hold")
	}
	for _, i := range []int{0, statsPerWorker + 1, len(r.files) - 1} {
		p := r.files[i].path
		if r.files[i].present {
			testutil.WriteFile(t, p, "yy") // a new size: the same tick may keep the times
		} else {
			testutil.WriteFile(t, p, "")
		}
		if r.holds() {
			t.Errorf("the record holds with file %d changed", i)
		}
		r.files[i] = lookAt(p)
	}
	if !r.holds() {
		t.Error("the record taken again does not hold")
	}
}

// TestNoWorkRecordKeepsFilesFolderByFolder: a record made from real Ninja,
// whose graph lists files of several folders in turn (the build directory,
// sources in s/x and s/y, their copies in o/x and o/y), keeps them folder
// by folder, each folder once, so a check opens each folder once
// (memo.Folders); and it still stops answering when a file of a folder
// in the middle changes.
func TestNoWorkRecordKeepsFilesFolderByFolder(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp", "sh")
	dir := headerNinja(t)
	var extra strings.Builder
	for _, f := range []string{"x/one", "y/two", "x/three", "y/four"} {
		testutil.WriteFile(t, filepath.Join(dir, "s", f), f+"\n")
		fmt.Fprintf(&extra, "build o/%s: cp s/%s\ndefault o/%s\n", f, f, f)
	}
	appendTo(t, filepath.Join(dir, "build.ninja"), extra.String())
	remembered(t, dir)
	rec, ok := readNoWorkRecord(dir)
	if !ok {
		t.Fatal("no record")
	}
	done := map[string]bool{}
	last := ""
	for _, f := range rec.files {
		d := filepath.Dir(f.path)
		if d != last && done[d] {
			t.Errorf("folder %s comes back at %s: the record is not kept folder by folder", d, f.path)
		}
		done[d], last = true, d
	}
	if len(done) < 5 {
		t.Errorf("%d folders in the record, want the build directory, s/x, s/y, o/x and o/y", len(done))
	}
	testutil.WriteFile(t, filepath.Join(dir, "s", "x", "three"), "changed\n")
	if d := ask(t, dir, lockNow(t)); d.Recorded() != 0 || d.NoWork() {
		t.Errorf("a changed source in s/x: recorded %d, no work %v", d.Recorded(), d.NoWork())
	}
}

// TestRecordedFileIdentity: a file's identity is read only in the form
// the record writes (six decimals as strconv writes them, one blank
// between), and without an allocation: a no-op reads a thousand of them.
func TestRecordedFileIdentity(t *testing.T) {
	const id = "33188 194 0 1796672448738347985 11749630 65024"
	f, err := decodeRecordedFile("/b/x", id)
	if err != nil || f.identity() != id {
		t.Fatalf("decode %q: %v, writes back %q", id, err, f.identity())
	}
	for _, bad := range []string{
		"033188 194 0 1796672448738347985 11749630 65024", // a leading zero
		"33188 194 00 1796672448738347985 11749630 65024",
		"+33188 194 0 1796672448738347985 11749630 65024",
		"33188 194 0 1796672448738347985 11749630",         // five fields
		"33188 194 0 1796672448738347985 11749630 65024 1", // seven
		"33188 194 0 1796672448738347985 11749630 65024 ",
		"33188  194 0 1796672448738347985 11749630 65024",
		"33188 194 0 1796672448738347985 11749630 18446744073709551616", // over 64 bits
		"4294967296 194 0 1 2 3",                                        // a mode over 32 bits
	} {
		if _, err := decodeRecordedFile("/b/x", bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = decodeRecordedFile("/b/x", id) }); n != 0 {
		t.Errorf("%.0f allocations per identity, want 0", n)
	}
}
