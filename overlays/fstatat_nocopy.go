//go:build linux && (amd64 || arm64)

package overlays

import (
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstatat is lstat of name relative to dirfd, retried on EINTR. It passes
// the name to the kernel from a buffer on the stack: unix.Fstatat allocates
// a NUL-terminated copy of it on the heap, which was two allocations for
// every file of a no-op, and with them most of its garbage.
//
// It is a raw system call, as getdents is (dirlist_linux.go says why).
func fstatat(dirfd int, name string, st *unix.Stat_t) error {
	var buf [256]byte // NAME_MAX (255) and the NUL
	if len(name) >= len(buf) || strings.IndexByte(name, 0) >= 0 {
		return fstatatCopy(dirfd, name, st) // its error: ENAMETOOLONG, EINVAL
	}
	copy(buf[:], name)
	for {
		_, _, e := unix.RawSyscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
		switch e {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return e
	}
}
