package fileid

import "syscall"

// fromSys copies a stat's identity fields.
func fromSys(st *syscall.Stat_t) Stat {
	return Stat{Mode: st.Mode, Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: st.Dev}
}
