// Package inputfile is the one check of "is this a file mlxbuild may read"
// for every file a user names (MLXBUILD_CONFIG, the project file, a spec
// override, the files of arch:check, bench:compare and bench:traces): it
// must be a regular file, and it is read up to a bound. A FIFO, a device
// (/dev/zero) or a socket never ends or blocks for ever: os.ReadFile of a
// FIFO waited for a writer and ignored SIGTERM, and of /dev/zero read until
// the kernel killed the process. The open is non-blocking, so even a FIFO's
// open returns at once; the kind is read from the opened descriptor, so
// what is checked is what is read.
package inputfile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// Bounds for each kind of file: far above any real one, far below what
// would exhaust a machine.
const (
	// ConfigLimit bounds a project file, a spec or a catalog: a few KiB
	// in real use.
	ConfigLimit = 16 << 20
	// TableLimit bounds a benchmark CSV or a logit trace: a trace of a
	// large corpus is some hundreds of MiB.
	TableLimit = 2 << 30
	// BinaryLimit bounds the library or program arch:check reads whole: a
	// static MLX with kernels for many GPUs is a few GiB.
	BinaryLimit = 16 << 30
)

// chunk is how much is read between two looks at the context.
const chunk = 1 << 20

// File is a file the user named and what to say about it.
type File struct {
	Path string
	// What the file is, for errors ("project file", "benchmark CSV").
	What string
	// Fix says what to change when the file cannot be read, in the words
	// of how the user named it ("point MLXBUILD_CONFIG at a regular
	// file"); "" is "name a regular file instead".
	Fix string
	// Limit is the most bytes read; more is an error.
	Limit int64
}

// Read returns the content of f.Path. A path that does not open gives the
// *fs.PathError as it is (for errors.Is(err, fs.ErrNotExist)); a file that
// is not regular or is larger than f.Limit is a configuration error (exit
// 2) that names the file, what it is and what to change. The read stops
// when ctx is done.
func (f File) Read(ctx context.Context) ([]byte, error) {
	file, st, err := f.open()
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if st.Size() > f.Limit {
		return nil, f.tooLarge()
	}
	// A regular file's size is known but may grow, and /proc's files say
	// 0: read until EOF, one byte past the limit at most.
	var buf bytes.Buffer
	buf.Grow(int(st.Size()) + 1)
	r := io.LimitReader(file, f.Limit+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading %s %s: %w", f.What, f.Path, err)
		}
		_, err := io.CopyN(&buf, r, chunk)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s %s: %w", f.What, f.Path, err)
		}
	}
	if int64(buf.Len()) > f.Limit {
		return nil, f.tooLarge()
	}
	return buf.Bytes(), nil
}

// Open opens f.Path for a caller that streams it, after the same check as
// Read (f.Limit is the caller's to keep).
func (f File) Open() (*os.File, error) {
	file, _, err := f.open()
	return file, err
}

// open opens f.Path without blocking and refuses what is not a regular
// file.
func (f File) open() (*os.File, fs.FileInfo, error) {
	file, err := os.OpenFile(f.Path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, nil, fmt.Errorf("reading %s %s: %w", f.What, f.Path, err)
	}
	if !st.Mode().IsRegular() {
		file.Close()
		return nil, nil, fail.Configf("reading %s %s: it is %s, not a regular file, and mlxbuild reads only regular files (so that every read ends); %s",
			f.What, f.Path, kindOf(st.Mode()), f.fix())
	}
	return file, st, nil
}

func (f File) tooLarge() error {
	return fail.Configf("reading %s %s: it is larger than %s, the most mlxbuild reads of such a file, so likely not the file meant; %s", f.What, f.Path, size(f.Limit), f.fix())
}

func (f File) fix() string {
	if f.Fix == "" {
		return "name a regular file instead"
	}
	return f.Fix
}

// kindOf names a file that is not regular, with its article.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// size writes a bound in the largest binary unit that divides it.
func size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
