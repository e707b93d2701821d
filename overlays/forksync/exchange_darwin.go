package forksync

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps two directories in one renamex_np(RENAME_SWAP), macOS's
// atomic exchange. A volume without it (ENOTSUP, EINVAL) becomes
// errNoExchange so swap falls back to two renames.
func exchange(a, b string) error {
	err := unix.RenamexNp(a, b, unix.RENAME_SWAP)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return errNoExchange
	}
	return err
}
