package forksync

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps two directories in one renameat2(RENAME_EXCHANGE). A file
// system without it answers EINVAL or ENOSYS, which becomes errNoExchange so
// swap falls back to two renames.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return errNoExchange
	}
	return err
}
