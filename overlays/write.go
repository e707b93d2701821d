package overlays

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
)

// writeAtomic replaces path with data (a link's target for kindLink): the
// data goes to a temporary file in the same directory, which is then renamed
// over path, so path holds the old or the new content at every moment. The
// tree file gets mode 0644 (0755 for kindExec) whatever the source's mode,
// so the tree stays writable for the build even over a read-only checkout.
//
// There is no fsync: the guarantee is against a killed process (the page
// cache survives it), not a power cut. After a power cut a file can come
// back empty, which the next run sees as a size change and rewrites.
func writeAtomic(path string, data []byte, kind kind) (statOf, error) {
	dir, base := dirOf(path), path[len(dirOf(path))+1:]
	if len(base) > 100 {
		base = base[:100]
	}
	for attempt := 0; ; attempt++ {
		tmp := dir + "/" + tmpPrefix + base + "-" + strconv.FormatUint(rand.Uint64()&0xffffffff, 36)
		var st statOf
		f, err := create(tmp, data, kind, &st)
		if os.IsExist(err) && attempt < 10 {
			continue
		}
		if err == nil {
			err = os.Rename(tmp, path)
		}
		if err == nil {
			// rename moves the file's ctime: record the one it has now,
			// or the next run would take every file just written for a
			// changed one and read it again. A regular file is asked
			// through its own descriptor (still ours whatever happened
			// to the name since); a link by name, kept only if it is
			// still the inode we made.
			st = statAfterRename(f, path, st)
		}
		if f != nil {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			os.Remove(tmp)
			return statOf{}, fmt.Errorf("overlays: writing tree file %s: %w; make %s writable (or set MLXBUILD_CACHE to a writable directory) and check free space", path, err, dir)
		}
		return st, nil
	}
}

// statAfterRename is the stat data of the file just renamed to path: f's
// (a regular file, still open) or, for a link (f nil), path's if it is
// still the inode in st. On any doubt it keeps st, whose ctime then differs
// and makes the next run verify the file by content.
func statAfterRename(f *os.File, path string, st statOf) statOf {
	var fi os.FileInfo
	var err error
	if f != nil {
		fi, err = f.Stat()
	} else {
		fi, err = os.Lstat(path)
	}
	if err != nil {
		return st
	}
	if now := statData(fi); now.ino == st.ino && now.size == st.size && now.mtime == st.mtime && now.kind == st.kind {
		return now
	}
	return st
}

// create makes the temporary file and reports its stat data, which rename
// keeps (same inode, same mtime; not the ctime, see statAfterRename). A
// regular file is returned open, for statAfterRename.
func create(tmp string, data []byte, kind kind, st *statOf) (*os.File, error) {
	if kind == kindLink {
		if err := os.Symlink(string(data), tmp); err != nil {
			return nil, err
		}
		fi, err := os.Lstat(tmp)
		if err != nil {
			return nil, err
		}
		*st = statData(fi)
		return nil, nil
	}
	perm := os.FileMode(0o644)
	if kind == kindExec {
		perm = 0o755
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm) // the umask may have taken bits away
	}
	if err == nil {
		var fi os.FileInfo
		if fi, err = f.Stat(); err == nil {
			*st = statData(fi)
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
