package memo

import "syscall"

// Stat is a file's identity as stat(2) gives it, in plain numbers: through
// links from StatFollowed, what a check of many files compares without
// building an ID or its key for each (the no-work record checks every node
// of a build); of the link itself in an ID.
type Stat struct {
	Mode         uint32 // st_mode: type and permission bits
	Size         int64
	Mtime, Ctime int64 // nanoseconds
	Ino, Dev     uint64
}

// StatFollowed stats p through links; ok is false when p cannot be stat-ed
// (absent, or a dangling link).
func StatFollowed(p string) (s Stat, ok bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return Stat{}, false
	}
	return fromSys(&st), true
}
