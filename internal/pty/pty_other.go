//go:build !linux

package pty

import (
	"errors"
	"os"
)

// ErrUnsupported: pseudo-terminals are opened on Linux only; elsewhere
// programs write to pipes.
var ErrUnsupported = errors.New("pseudo-terminals are opened on Linux only")

// Open fails with ErrUnsupported off Linux.
func Open(cols, rows uint16) (master, slave *os.File, err error) {
	return nil, nil, ErrUnsupported
}

// Resize fails with ErrUnsupported off Linux.
func Resize(f *os.File, cols, rows uint16) error {
	return ErrUnsupported
}
