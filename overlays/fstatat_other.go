//go:build !(linux && (amd64 || arm64))

package overlays

import "golang.org/x/sys/unix"

// fstatat is lstat of name relative to dirfd (see fstatat_nocopy.go for
// the Linux version that copies no name to the heap).
func fstatat(dirfd int, name string, st *unix.Stat_t) error {
	return fstatatCopy(dirfd, name, st)
}
