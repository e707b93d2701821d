package memo

import (
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Folders stats paths relative to a descriptor of the folder of the last
// one (fstatat), so a check of many files that come folder by folder (the
// no-work record keeps its files so) spares the kernel the walk of each
// whole path (BenchmarkNoWorkRecordRealShape; docs/benchmarks.md). The zero value is
// ready; Close lets its descriptor go. It is for one pass over a list: a
// folder replaced while it is open is seen as it was when opened, as a
// pass by path that had stat-ed it a moment earlier would have. Not for
// concurrent use.
type Folders struct {
	dir string
	fd  int // the open folder + 1: 0 is none, so the zero value is ready
}

// StatFollowed is the package's StatFollowed of p, through the descriptor
// of p's folder where it can be opened, else by the whole path (a folder
// that cannot be opened may still be searched).
func (f *Folders) StatFollowed(p string) (Stat, bool) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 || i == len(p)-1 {
		return StatFollowed(p)
	}
	dir, name := p[:i+1], p[i+1:]
	if dir != f.dir {
		f.Close()
		f.dir = dir
		if fd, err := unix.Open(dir, folderFlags, 0); err == nil {
			f.fd = fd + 1
		}
	}
	if f.fd == 0 {
		return StatFollowed(p)
	}
	var st unix.Stat_t
	for {
		err := unix.Fstatat(f.fd-1, name, &st, 0)
		if err == nil {
			return fromUnix(&st), true
		}
		if err != syscall.EINTR {
			return Stat{}, false
		}
	}
}

// Close closes the open folder, if any.
func (f *Folders) Close() {
	if f.fd != 0 {
		unix.Close(f.fd - 1)
	}
	f.dir, f.fd = "", 0
}
