package overlays

import (
	"io/fs"
	"os"
	"syscall"
	"time"
)

// The racy rule's clock, for kept listings (see dirRecord) and for files a
// run read (keptCTime): a directory or file whose ctime is older than a
// ctime read before the walk began changes its ctime with any change after
// the walk looked at it.

// otherDeviceSlack is how much older than the lock file a directory on
// another file system must be for its listing to be kept: that file system's
// time stamps may be whole seconds.
const otherDeviceSlack = time.Second

// listClock is the racy rule's clock: a file's device and ctime.
type listClock struct {
	ok    bool
	lock  bool // the lock file's, written as this run took the lock
	dev   uint64
	ctime int64
}

// clockOf is the clock of a file's stat: any file's ctime read before the
// walk began will do, the most recent the best (the more directories are
// older than it).
func clockOf(fi fs.FileInfo) listClock {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return listClock{}
	}
	return listClock{ok: true, dev: uint64(st.Dev), ctime: ctimeOf(st)}
}

// lockClock is the clock of the lock file, else the old manifest's (read
// before the walk too), else none.
func lockClock(lockFile string, old *Manifest) listClock {
	if lockFile != "" {
		if fi, err := os.Stat(lockFile); err == nil {
			c := clockOf(fi)
			c.lock = c.ok
			return c
		}
	}
	return old.clock
}

// keeps reports whether a listing made after a stat that gave id may be
// kept.
func (c listClock) keeps(id dirID) bool {
	if !c.ok {
		return false
	}
	limit := c.ctime
	if id.dev != c.dev {
		limit -= int64(otherDeviceSlack)
	}
	return id.ctime < limit
}
