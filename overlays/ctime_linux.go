package overlays

import "syscall"

// ctimeOf is a stat's status change time in ns.
func ctimeOf(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
