//go:build linux && (amd64 || arm64)

package overlays

import (
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstatat is lstat of name relative to the descriptor dirfd, retried on
// EINTR. The name goes to the kernel from a buffer on the stack, and the
// call is raw: unix.Fstatat copies every name to the heap and tells the
// scheduler of every call, about 0.7 ms of a real-shape no-op's 2,000
// stats (docs/benchmarks.md, "round three"). A raw call keeps its thread's
// processor while the kernel reads one directory entry; the walk's other
// workers run on theirs.
func fstatat(dirfd int, name string, st *unix.Stat_t) error {
	var buf [256]byte // NAME_MAX (255) and the NUL
	if len(name) >= len(buf) || strings.IndexByte(name, 0) >= 0 {
		return unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW) // its error: ENAMETOOLONG, EINVAL
	}
	copy(buf[:], name)
	for {
		_, _, e := unix.RawSyscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
		if e != unix.EINTR {
			if e == 0 {
				return nil
			}
			return e
		}
	}
}
