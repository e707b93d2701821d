package overlays

import (
	"io/fs"
	"os"
	"syscall"
	"time"
)

// The racy rule's clock, for files a run read (keptCTime): a file whose
// ctime is older than a ctime read before the walk began changes its ctime
// with any change after the walk looked at it.

// otherDeviceSlack is how much older than the clock a file on
// another file system must be: that file system's time stamps may be whole
// seconds.
const otherDeviceSlack = time.Second

// racyClock is the racy rule's clock: a file's device and ctime.
type racyClock struct {
	ok    bool
	lock  bool // the lock file's, written as this run took the lock
	dev   uint64
	ctime int64
}

// clockOf is the clock of a file's stat: any file's ctime read before the
// walk began will do, the most recent the best (the more directories are
// older than it).
func clockOf(fi fs.FileInfo) racyClock {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return racyClock{}
	}
	return racyClock{ok: true, dev: uint64(st.Dev), ctime: ctimeOf(st)}
}

// lockClock is the clock of the lock file, else the old manifest's (read
// before the walk too), else none.
func lockClock(lockFile string, old *Manifest) racyClock {
	if lockFile != "" {
		if fi, err := os.Stat(lockFile); err == nil {
			c := clockOf(fi)
			c.lock = c.ok
			return c
		}
	}
	return old.clock
}

// older reports whether a file or directory on device dev whose ctime a
// stat gave was last changed before the clock: then any later change moves
// its ctime, so what was read after that stat may be trusted while the
// ctime stays.
func (c racyClock) older(dev uint64, ctime int64) bool {
	if !c.ok {
		return false
	}
	limit := c.ctime
	if dev != c.dev {
		limit -= int64(otherDeviceSlack)
	}
	return ctime < limit
}
