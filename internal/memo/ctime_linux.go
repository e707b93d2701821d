package memo

import "syscall"

// ctimeNanos is a stat's status change time in ns.
func ctimeNanos(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
