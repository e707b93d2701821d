package overlays

import "golang.org/x/sys/unix"

// fstatat is lstat of name relative to dirfd through unix.Fstatat,
// retried on EINTR.
func fstatat(dirfd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}
