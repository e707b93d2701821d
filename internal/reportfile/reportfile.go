// Package reportfile writes a file whose path the user named for mlxbuild's
// output (MLXBUILD_REPORT's reports) the way the user means it: a link is
// followed and its target written, a character device (/dev/null,
// /dev/stdout, a terminal) or a FIFO is written into as it is, and only a
// regular file or a new one is replaced atomically (a temporary file beside
// it, renamed over it), so a CI step never reads half a report. Renaming
// over every kind of path, as before, replaced a device node, a link or
// /dev/stdout itself with a regular file.
package reportfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// Target is a path the user named and how they named it, for errors.
type Target struct {
	Path string
	// What the file is ("verify report").
	What string
	// Variable is the setting that named the path (MLXBUILD_REPORT): every
	// refusal says to change it.
	Variable string
}

// maxLinks bounds a chain of links, as the kernel's ELOOP does.
const maxLinks = 40

// Write writes data to t.Path. A folder that does not exist, a directory,
// a socket or a block device in the way, and a FIFO no process reads are
// configuration errors (exit 2) naming the path and t.Variable. A write
// into a device or a FIFO stops when ctx is done, so a reader that stopped
// reading cannot hang mlxbuild.
func Write(ctx context.Context, t Target, data []byte) error {
	st, err := os.Stat(t.Path) // through every link, /proc's too
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return writeNew(t, data)
	case errors.Is(err, syscall.ENOTDIR):
		return t.refuse("a part of its folder is not a folder")
	case err != nil:
		return fmt.Errorf("writing %s %s: %w", t.What, t.Path, err)
	}
	switch m := st.Mode(); {
	case m.IsDir():
		return t.refuse("it is a directory")
	case m&fs.ModeCharDevice != 0 || m&fs.ModeNamedPipe != 0:
		return writeInto(ctx, t, t.Path, data, 0)
	case m.IsRegular():
		real, err := resolve(t.Path)
		if err != nil {
			return fmt.Errorf("writing %s %s: %w", t.What, t.Path, err)
		}
		if rs, err := os.Stat(real); err != nil || !os.SameFile(st, rs) {
			// A link of /proc (/proc/self/fd/1 of a shell's `> file`)
			// reads as a name that is not the file: write the file the
			// kernel opens, in place.
			return writeInto(ctx, t, t.Path, data, syscall.O_TRUNC)
		}
		return t.atomic(real, st.Mode().Perm(), data)
	}
	return t.refuse(fmt.Sprintf("it is a %s, not a file, a character device or a FIFO", kindOf(st.Mode())))
}

// writeNew writes a file that does not exist yet, at the target of a
// dangling link when t.Path is one, into a folder that must exist: a
// missing folder is a typo more often than a wish (creating it would
// hide the typo), so it is refused.
func writeNew(t Target, data []byte) error {
	real, err := resolve(t.Path)
	if err != nil {
		return fmt.Errorf("writing %s %s: %w", t.What, t.Path, err)
	}
	dir := filepath.Dir(real)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return t.refuse(fmt.Sprintf("its folder %s does not exist", dir))
	case err != nil:
		return fmt.Errorf("writing %s %s: %w", t.What, t.Path, err)
	case !st.IsDir():
		return t.refuse(fmt.Sprintf("%s is not a folder", dir))
	}
	return t.atomic(real, 0o644, data)
}

// atomic replaces the regular file (or creates the file) at real. No
// fsync: a report guards against a reader seeing half of it, and a CI run
// that lost power is run again anyway.
func (t Target) atomic(real string, perm os.FileMode, data []byte) error {
	return atomicfile.Options{Perm: perm, NoSync: true, What: t.What}.Write(real, data)
}

// writeInto writes data into what path opens, as it is: a device, a FIFO,
// or a regular file behind a /proc link (flag O_TRUNC). The open is
// non-blocking, so a FIFO with no reader fails at once (ENXIO) instead of
// waiting for one forever; writes then wait in Go's poller, which a done
// ctx wakes through the write deadline.
func writeInto(ctx context.Context, t Target, path string, data []byte, flag int) error {
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|flag, 0)
	if errors.Is(err, syscall.ENXIO) {
		return t.refuse("it is a FIFO that no process reads; start its reader first")
	}
	if err != nil {
		return fmt.Errorf("writing %s %s: %w", t.What, t.Path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	stop := context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Now()) })
	_, werr := f.Write(data)
	stop()
	cerr := f.Close()
	if werr != nil && ctx.Err() != nil {
		return fmt.Errorf("writing %s %s: %w", t.What, t.Path, ctx.Err())
	}
	if werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("writing %s %s: %w", t.What, t.Path, werr)
	}
	return nil
}

// refuse is the configuration error for a path that cannot be written as
// named: what it is, the path and the setting to change.
func (t Target) refuse(why string) error {
	return fail.Configf("writing %s %s: %s; change %s or the path", t.What, t.Path, why, t.Variable)
}

// resolve follows path's links (a chain of them included) to the name
// they end at, which may not exist yet (a dangling link names the file to
// create).
func resolve(path string) (string, error) {
	for range maxLinks {
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	return "", fmt.Errorf("more than %d links in a chain: %w", maxLinks, syscall.ELOOP)
}

// kindOf names what a path is that no report can be written to.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "special file"
}
