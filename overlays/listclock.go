package overlays

import (
	"io/fs"
	"os"
	"syscall"

	"github.com/mlxbuild/mlxbuild/internal/memo"
)

// racyClock is the racy rule's clock (memo.Clock), for kept listings (see
// dirRecord) and for files a run read (keptCTime); lock says it is the lock
// file's, written as this run took the lock.
type racyClock struct {
	memo.Clock
	lock bool
}

// clockOf is the clock of a file's stat: any file's ctime read before the
// walk began will do, the most recent the best (the more directories are
// older than it).
func clockOf(fi fs.FileInfo) racyClock {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return racyClock{}
	}
	return racyClock{Clock: memo.Clock{OK: true, Dev: uint64(st.Dev), Ctime: ctimeOf(st)}}
}

// lockClock is the clock of the lock file, else the old manifest's (read
// before the walk too), else none.
func lockClock(lockFile string, old *Manifest) racyClock {
	if lockFile != "" {
		if fi, err := os.Stat(lockFile); err == nil {
			c := clockOf(fi)
			c.lock = c.OK
			return c
		}
	}
	return old.clock
}
