//go:build !linux && !darwin

package forksync

// exchange has no atomic form here; swap uses two renames and recoverSwap.
func exchange(a, b string) error { return errNoExchange }
