package fileid

import "syscall"

// fromSys copies a stat's identity fields.
func fromSys(st *syscall.Stat_t) Stat {
	return Stat{Mode: uint32(st.Mode), Size: st.Size, Mtime: st.Mtimespec.Nano(), Ctime: st.Ctimespec.Nano(), Ino: st.Ino, Dev: uint64(st.Dev)}
}
