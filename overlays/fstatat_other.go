//go:build !(linux && (amd64 || arm64))

package overlays

import "golang.org/x/sys/unix"

// fstatat is lstat of name relative to the descriptor dirfd, retried on
// EINTR (fstatat_nocopy.go is Linux's, which copies no name to the heap).
func fstatat(dirfd int, name string, st *unix.Stat_t) error {
	for {
		if err := unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW); err != unix.EINTR {
			return err
		}
	}
}
