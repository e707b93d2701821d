package cache

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Seeds for these targets are in testdata/fuzz/<name>/: a stamp and a
// configure record of the shape a ROCm build writes, torn and foreign
// files, and lock files with and without a pid.

// fuzzDir is a directory on tmpfs when there is one: each iteration writes
// a file, and the disk makes that cost milliseconds.
func fuzzDir(f *testing.F) string {
	if d, err := os.MkdirTemp("/dev/shm", "mlxbuild-cache-fuzz-"); err == nil {
		f.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	return f.TempDir()
}

// FuzzReadStamp: a stamp file of any content is a stamp or an error that
// names the file and says what to do; a stamp that was read writes back and
// reads back with the same inputs.
func FuzzReadStamp(f *testing.F) {
	path := filepath.Join(fuzzDir(f), "stamp.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := ReadStamp(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "cache:clean") {
				t.Fatalf("error without the file or the fix: %v", err)
			}
			return
		}
		if s == nil || s.Inputs == nil {
			t.Fatalf("no error and no stamp (%+v) for an existing file", s)
		}
		if err := WriteStamp(path, s); err != nil {
			t.Fatal(err)
		}
		again, err := ReadStamp(path)
		if err != nil || !reflect.DeepEqual(again.Inputs, s.Inputs) {
			t.Fatalf("inputs %q read back as %+v (%v)", s.Inputs, again, err)
		}
	})
}

// FuzzReadConfigureRecord: a record of any content is a record or absent
// (a torn one must reconfigure, never pass for a configured directory);
// one that was read writes back and reads back the same.
func FuzzReadConfigureRecord(f *testing.F) {
	dir := fuzzDir(f)
	path := filepath.Join(dir, ConfigureRecordFile)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := ReadConfigureRecord(dir)
		if err != nil {
			t.Fatalf("an existing readable record gave an error: %v", err)
		}
		if r == nil {
			return
		}
		if r.Inputs == nil {
			t.Fatal("a record without an inputs map")
		}
		if err := WriteConfigureRecord(dir, *r); err != nil {
			t.Fatal(err)
		}
		again, err := ReadConfigureRecord(dir)
		if err != nil || again == nil || again.Done != r.Done || !reflect.DeepEqual(again.Inputs, r.Inputs) {
			t.Fatalf("record %+v read back as %+v (%v)", r, again, err)
		}
	})
}

// FuzzReadPID: the holder's pid read from a lock file of any content is a
// positive pid or 0 (unknown), never a negative number (kill(2) reads -N as
// a process group); the pid Lock writes reads back exactly.
func FuzzReadPID(f *testing.F) {
	path := filepath.Join(fuzzDir(f), "lock")
	read := func(t *testing.T, data []byte) int {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		return readPID(fh)
	}
	f.Fuzz(func(t *testing.T, data []byte, pid int) {
		if got := read(t, data); got < 0 {
			t.Fatalf("pid %d read from %q", got, data)
		}
		if pid > 0 {
			if got := read(t, []byte(strconv.Itoa(pid)+"\n")); got != pid {
				t.Fatalf("pid %d written, %d read", pid, got)
			}
		}
	})
}
