package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"
)

// names lists dir's entries, sorted, to catch a temporary file left behind.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWriteModeIgnoresUmask: the file gets perm exactly, whether it is new
// or replaces a file with other bits, under a umask that would take bits.
func TestWriteModeIgnoresUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	for _, perm := range []os.FileMode{0o644, 0o755, 0o600, 0o644} {
		data := []byte("mode " + perm.String())
		if err := Write(path, data, perm); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != perm {
			t.Errorf("mode %v after Write with %v", fi.Mode().Perm(), perm)
		}
		if got := readString(t, path); got != string(data) {
			t.Errorf("content %q, want %q", got, data)
		}
	}
	if got := names(t, dir); len(got) != 1 || got[0] != "f" {
		t.Errorf("directory holds %q, want only f", got)
	}
}

// TestReadersNeverSeeTornFile rewrites a file between a long and a short
// content while readers read it: every read must be one of the two whole.
func TestReadersNeverSeeTornFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report")
	long := bytes.Repeat([]byte("long content\n"), 40000) // about 500 KB
	short := []byte("short\n")
	for _, o := range []Options{{Perm: 0o644}, {Perm: 0o644, NoSync: true}} {
		if err := o.Write(path, short); err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var torn, reads int
		var mu sync.Mutex
		for r := 0; r < 2; r++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					b, err := os.ReadFile(path)
					mu.Lock()
					reads++
					if err != nil || !bytes.Equal(b, long) && !bytes.Equal(b, short) {
						torn++
					}
					mu.Unlock()
				}
			}()
		}
		for i := 0; i < 60; i++ {
			data := long
			if i%2 == 1 {
				data = short
			}
			if err := o.Write(path, data); err != nil {
				t.Fatal(err)
			}
		}
		close(stop)
		wg.Wait()
		if reads == 0 {
			t.Fatal("the readers never read")
		}
		if torn > 0 {
			t.Errorf("NoSync=%v: %d of %d reads saw a missing or torn file", o.NoSync, torn, reads)
		}
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("directory holds %q, want only the report", got)
	}
}

// TestFailedWriteKeepsOldFile: whichever step fails, the target keeps its
// content, no temporary file stays, and the error names the step.
func TestFailedWriteKeepsOldFile(t *testing.T) {
	errFill := errors.New("fill failed")
	cases := []struct {
		name   string
		target func(dir string) string // sets up and returns the path to write
		fill   func(w io.Writer) error
		op     string
	}{
		{"fill fails midway", func(dir string) string { return filepath.Join(dir, "f") },
			func(w io.Writer) error { w.Write([]byte("half of the new")); return errFill }, OpWrite},
		{"a directory is in the way", func(dir string) string {
			p := filepath.Join(dir, "d")
			if err := os.MkdirAll(filepath.Join(p, "child"), 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }, OpRename},
		{"the directory is missing", func(dir string) string { return filepath.Join(dir, "missing", "f") },
			func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }, OpCreate},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			path := c.target(dir)
			before := names(t, dir)
			err := Options{Perm: 0o644}.WriteFunc(path, c.fill)
			var e *Error
			if !errors.As(err, &e) || e.Op != c.op || e.Path != path {
				t.Fatalf("error %#v, want an *Error with Op %q and Path %s", err, c.op, path)
			}
			if c.op == OpWrite && !errors.Is(err, errFill) {
				t.Errorf("error %v does not wrap fill's error", err)
			}
			fix := "; check free space and permissions"
			if c.op == OpCreate {
				fix = "; check that its directory exists and is writable"
			}
			if want := "writing file " + path + ": " + e.Err.Error() + fix; err.Error() != want {
				t.Errorf("text %q, want %q (what, where, the os error and what to do, once)", err.Error(), want)
			}
			if got := readString(t, filepath.Join(dir, "f")); got != "old" {
				t.Errorf("the old file now holds %q", got)
			}
			if got := names(t, dir); !equal(got, before) {
				t.Errorf("directory holds %q after the failure, had %q", got, before)
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWriteIfChanged: equal bytes leave the file (inode and mtime) alone,
// other bytes replace it.
func TestWriteIfChanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cargo.txt")
	if wrote, err := WriteIfChanged(path, []byte("a\n"), 0o644); err != nil || !wrote {
		t.Fatalf("first write: wrote=%v, %v", wrote, err)
	}
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	if wrote, err := WriteIfChanged(path, []byte("a\n"), 0o644); err != nil || wrote {
		t.Fatalf("same bytes: wrote=%v, %v", wrote, err)
	}
	after, _ := os.Stat(path)
	if !after.ModTime().Equal(past) || !os.SameFile(before, after) {
		t.Errorf("same bytes rewrote the file: mtime %v (was %v), same inode %v", after.ModTime(), past, os.SameFile(before, after))
	}
	if wrote, err := WriteIfChanged(path, []byte("b\n"), 0o644); err != nil || !wrote {
		t.Fatalf("other bytes: wrote=%v, %v", wrote, err)
	}
	if got := readString(t, path); got != "b\n" {
		t.Errorf("content %q after a change", got)
	}
}

// TestTempPattern: the temporary file is named by the pattern, in the
// target's directory, while fill runs.
func TestTempPattern(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tree.manifest")
	for _, c := range []struct{ pattern, glob string }{{"", ".tree.manifest.tmp*"}, {".mlxbuild-tmp-manifest-*", ".mlxbuild-tmp-manifest-*"}} {
		var seen []string
		err := Options{Perm: 0o644, TempPattern: c.pattern}.WriteFunc(path, func(w io.Writer) error {
			seen, _ = filepath.Glob(filepath.Join(dir, c.glob))
			_, err := io.WriteString(w, "x")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) != 1 {
			t.Errorf("pattern %q: files matching %s during the write: %q, want one", c.pattern, c.glob, seen)
		}
		if got := names(t, dir); len(got) != 1 || got[0] != "tree.manifest" {
			t.Errorf("pattern %q: directory holds %q afterwards", c.pattern, got)
		}
	}
}
