package memo

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"
)

// FuzzParseEntry feeds arbitrary files to the one entry reader: it must not
// fail, and an entry it accepts must be written back byte for byte by
// Format (so nothing of a torn or foreign file is half read).
func FuzzParseEntry(f *testing.F) {
	for _, s := range []string{
		header + "k\nkey \"targets\" \"mlx\"\nenv \"ROCM_PATH\" \"\"\nfile \"/opt/rocm\" absent\nfile \"/usr/bin/hipconfig\" 420 10 1 2 3 4 -> \"hipconfig.pl\"\nset \"root\" \"/usr\"\nend 5\n",
		header + "k\nset \"path\" \"\"\nend 1\n",
		header + "k\nset \"path\" \"/x\"\nfile \"/x\" absent\nend 2\n",
		header + "k\nenv \"K\"\nset \"path\" \"/x\"\nend 2\n",
		header + "k\nfile \"relative\" absent\nend 1\n",
		header + "k\nend 0\n",
		"mlxbuild memo 3\nset \"path\" \"/x\"\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, ok := Parse("k", data)
		if !ok {
			return
		}
		if back := Format("k", e); !bytes.Equal(back, data) {
			t.Errorf("accepted %q, but it writes back as %q", data, back)
		}
	})
}

// TestParseRefusesOtherForms: another kind, an older header, a torn entry,
// lines out of order, a relative file path or a quote in another spelling
// is a miss.
func TestParseRefusesOtherForms(t *testing.T) {
	for _, bad := range []string{
		header + "other\nset \"path\" \"/x\"\nend 1\n",
		"mlxbuild memo 3\nset \"path\" \"/x\"\n",
		header + "k\nset \"path\" \"/x\"",
		header + "k\nset \"path\" \"/x\"\nfile \"/x\" absent\nend 2\n",
		header + "k\nset \"path\" \"/x\"\nkey \"a\" \"b\"\nend 2\n",
		header + "k\nfile \"x\" absent\nend 1\n",
		header + "k\nset \"path\" \"\\x2f\"\nend 1\n",
		header + "k\nresult {}\nend 1\n",
		header + "k\n",
		header + "k\nset \"path\" \"/x\"\n",
		header + "k\nset \"a\" \"1\"\nend 2\n",
		header + "k\nset \"a\" \"1\"\nend 01\n",
		header + "k\nset \"a\" \"1\"\nend +1\n",
		`{"version":2,"env":{},"files":[],"result":{"path":"/usr/bin/cmake"}}`,
	} {
		if _, ok := Parse("k", []byte(bad)); ok {
			t.Errorf("entry %q was read", bad)
		}
	}
}

// TestEntryRoundTrip: every part of an entry, values with newlines and
// quotes included, reads back as written.
func TestEntryRoundTrip(t *testing.T) {
	e := Entry{
		Keys:   [][2]string{{"targets", "mlx\n\"x\""}},
		Env:    [][2]string{{"PATH", "/a\nb"}},
		Files:  []string{Of("/nonexistent").Key()},
		Values: [][2]string{{"name", "a"}, {"name", "b"}},
	}
	got, ok := Parse("k", Format("k", e))
	if !ok || !reflect.DeepEqual(got, e) {
		t.Fatalf("read back %+v, %v; want %+v", got, ok, e)
	}
}

// TestGetWhileWitnessesHold: a stored result comes back while its keys,
// variables and files hold, and is a miss once any of them changes.
func TestGetWhileWitnessesHold(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "input")
	if err := os.WriteFile(input, []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"V": "one"}
	getenv := func(k string) string { return env[k] }
	w := NewWitness()
	w.File(input)
	w.File(filepath.Join(dir, "absent"))
	w.Env("V", getenv("V"))
	path := filepath.Join(dir, "entry")
	keys := [][2]string{{"targets", "mlx"}}
	Store(path, "k", w.Entry(keys, [][2]string{{"answer", "42"}}))
	decode := func(v [][2]string) (string, bool) { return v[0][1], len(v) == 1 }
	if got, ok := Get(path, "k", keys, getenv, decode); !ok || got != "42" {
		t.Fatalf("Get = %q, %v; want 42", got, ok)
	}
	refuse := func([][2]string) (string, bool) { return "half", false }
	if got, ok := Get(path, "k", keys, getenv, refuse); ok || got != "" {
		t.Errorf("Get = %q, %v for a result that does not decode; want a miss", got, ok)
	}
	if _, ok := Get(path, "other", keys, getenv, decode); ok {
		t.Error("an entry of another kind was read")
	}
	if _, ok := Get(path, "k", [][2]string{{"targets", "other"}}, getenv, decode); ok {
		t.Error("an entry kept for other keys was read")
	}
	env["V"] = "two"
	if _, ok := Get(path, "k", keys, getenv, decode); ok {
		t.Error("an entry was read after its variable changed")
	}
	env["V"] = "one"
	if err := os.WriteFile(filepath.Join(dir, "absent"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get(path, "k", keys, getenv, decode); ok {
		t.Error("an entry was read after a path it saw absent appeared")
	}
}

// TestWitnessBothEndsOfLink: a link's target is witnessed too, so a
// change to the file behind an unchanged link is seen.
func TestWitnessBothEndsOfLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link")
	if err := os.WriteFile(target, []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	w := NewWitness()
	w.File(link)
	e := w.Entry(nil, [][2]string{{"v", "x"}})
	if len(e.Files) != 2 {
		t.Fatalf("witnessed %q, want the link and its target", e.Files)
	}
	if !e.Holds(nil, os.Getenv) {
		t.Fatal("a fresh entry does not hold")
	}
	if err := os.WriteFile(target, []byte("22"), 0o644); err != nil {
		t.Fatal(err)
	}
	if e.Holds(nil, os.Getenv) {
		t.Error("the entry holds after the link's target changed")
	}
}

// TestNilWitnessRecordsNothing: the uncached paths pass a nil witness.
func TestNilWitnessRecordsNothing(t *testing.T) {
	var w *Witness
	w.File("/x")
	w.Env("K", "V")
	if e := w.Entry(nil, nil); e.Env != nil || e.Files != nil {
		t.Errorf("nil witness recorded %+v", e)
	}
}

// TestParseStringKeepsTheText: the values of a large entry are parts of
// the text it was read from, not copies, in one slice (a no-op reads the
// no-work record's thousand values on every run).
func TestParseStringKeepsTheText(t *testing.T) {
	var e Entry
	for i := range 1000 {
		e.Values = append(e.Values, [2]string{fmt.Sprintf("/tree/mlx/file%d.h", i), "33188 194 0 1796672448738347985 11749630 65024"})
	}
	text := string(Format("k", e))
	got, ok := ParseString("k", text)
	if !ok || !reflect.DeepEqual(got, e) {
		t.Fatalf("ParseString of a formatted entry: ok %v, %d values", ok, len(got.Values))
	}
	start := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	for _, kv := range got.Values[:3] {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(kv[1]))); p < start || p >= start+uintptr(len(text)) {
			t.Fatalf("value %q is a copy, not a part of the text", kv[1])
		}
	}
	if cap(got.Values) != len(got.Values) {
		t.Errorf("values grown by appends: cap %d for %d", cap(got.Values), len(got.Values))
	}
	allocs := testing.AllocsPerRun(10, func() { ParseString("k", text) })
	if allocs > 1 {
		t.Errorf("ParseString of %d values: %.0f allocations, want 1 (the values)", len(e.Values), allocs)
	}
}

// TestReadStringReadsTheFile: ReadString is the file's content, and a
// missing file's error.
func TestReadStringReadsTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "entry")
	if _, err := ReadString(p); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
	for _, want := range []string{"", "x", header + "k\nend 0\n"} {
		if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := ReadString(p); err != nil || got != want {
			t.Errorf("ReadString = %q, %v; want %q", got, err, want)
		}
	}
}
