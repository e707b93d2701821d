// Package atomicfile replaces files so that a reader sees the old content or
// the whole new content, never a torn mix: the data goes to a temporary file
// in the target's directory (same file system, so the rename is atomic),
// which gets its mode, is synced, and is renamed over the target. A failed
// write removes its temporary file and leaves the target as it was.
package atomicfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
)

// Options says how to write; Perm is the mode the file gets whatever the
// umask. The zero value of every other field is the safe default.
type Options struct {
	Perm os.FileMode
	// NoSync skips the fsync before the rename. The write then stays atomic
	// for readers and against a killed process (the page cache survives
	// it), not against a power cut, which can leave an empty file.
	NoSync bool
	// TempPattern is the os.CreateTemp pattern of the temporary file in the
	// target's directory; "" means "."+base+".tmp*". A caller that cleans up
	// or skips its own temporary files by name sets it.
	TempPattern string
	// What names the file in errors ("stamp", "verify report"); "" is
	// "file".
	What string
	// MkdirAll creates the target's directory first.
	MkdirAll bool
}

// Write replaces path with data, synced, with mode perm.
func Write(path string, data []byte, perm os.FileMode) error {
	return Options{Perm: perm}.Write(path, data)
}

// WriteIfChanged is Write unless path already holds exactly data, in which
// case it leaves the file alone (its mtime too, so whatever watches it does
// not rerun) and reports false.
func WriteIfChanged(path string, data []byte, perm os.FileMode) (bool, error) {
	return Options{Perm: perm}.WriteIfChanged(path, data)
}

// WriteIfChanged is o.Write unless path already holds exactly data.
func (o Options) WriteIfChanged(path string, data []byte) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	return true, o.Write(path, data)
}

// Write replaces path with data as o says.
func (o Options) Write(path string, data []byte) error {
	return o.WriteFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc replaces path with what fill writes, as o says, for content
// that is streamed rather than held in memory. An error from fill abandons
// the write: path keeps its old content.
func (o Options) WriteFunc(path string, fill func(w io.Writer) error) error {
	pattern := o.TempPattern
	if pattern == "" {
		pattern = "." + filepath.Base(path) + ".tmp*"
	}
	if o.MkdirAll {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return &Error{Op: OpCreate, Path: path, What: o.What, Err: err}
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return &Error{Op: OpCreate, Path: path, What: o.What, Err: err}
	}
	tmp := f.Name()
	fail := func(op string, err error) error {
		f.Close()
		os.Remove(tmp)
		return &Error{Op: op, Path: path, What: o.What, Err: err}
	}
	// CreateTemp makes the file private (0600); set the mode on the open
	// file so the name never holds other bits.
	if err := f.Chmod(o.Perm); err != nil {
		return fail(OpChmod, err)
	}
	if err := fill(f); err != nil {
		return fail(OpWrite, err)
	}
	if !o.NoSync {
		if err := f.Sync(); err != nil {
			return fail(OpSync, err)
		}
	}
	if err := f.Close(); err != nil {
		return fail(OpClose, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return &Error{Op: OpRename, Path: path, What: o.What, Err: err}
	}
	return nil
}
