//go:build !linux

package proc

import "io"

// Prestart starts nothing where programs run without a supervisor.
func Prestart() (release func()) { return func() {} }

func usePrestarted(string, Cmd, io.Writer, io.Writer) *running { return nil }
