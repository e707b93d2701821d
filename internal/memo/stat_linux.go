package memo

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// fromSys copies a stat's identity fields.
func fromSys(st *syscall.Stat_t) Stat {
	return Stat{Mode: st.Mode, Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: st.Dev}
}

// folderFlags open a folder only to stat names in it: O_PATH needs no read
// permission, as a stat by path needs none.
const folderFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC

// fromUnix copies a stat's identity fields, as fromSys does.
func fromUnix(st *unix.Stat_t) Stat {
	return Stat{Mode: st.Mode, Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: st.Dev}
}
