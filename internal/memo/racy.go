package memo

import "time"

// OtherDeviceSlack is how much older than the clock a file on another file
// system must be: that file system's time stamps may be whole seconds.
const OtherDeviceSlack = time.Second

// Clock is the racy rule's clock (git's, with the lock file as the index):
// the device and ctime of a file written before the work began, the lock
// file as a run took the lock. A file whose ctime is older than it changes
// its ctime with any change after the work looked at it, so what was read
// from it may be trusted while that ctime stays; a file changed in the
// clock's tick or later may not, since a change later in the same tick
// would not show. The zero Clock trusts nothing.
type Clock struct {
	OK    bool
	Dev   uint64
	Ctime int64 // nanoseconds
}

// Older reports whether a file on device dev whose ctime a stat gave was
// last changed before the clock.
func (c Clock) Older(dev uint64, ctime int64) bool {
	if !c.OK {
		return false
	}
	limit := c.Ctime
	if dev != c.Dev {
		limit -= int64(OtherDeviceSlack)
	}
	return ctime < limit
}
