package memo

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// fromSys copies a stat's identity fields.
func fromSys(st *syscall.Stat_t) Stat {
	return Stat{Mode: uint32(st.Mode), Size: st.Size, Mtime: st.Mtimespec.Nano(), Ctime: st.Ctimespec.Nano(), Ino: st.Ino, Dev: uint64(st.Dev)}
}

// folderFlags open a folder to stat names in it. Darwin has no O_PATH: a
// folder that may be searched but not read fails to open, and its files
// are stat-ed by path.
const folderFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

// fromUnix copies a stat's identity fields, as fromSys does.
func fromUnix(st *unix.Stat_t) Stat {
	return Stat{Mode: uint32(st.Mode), Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: uint64(st.Dev)}
}
