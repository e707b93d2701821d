package backends

import (
	"os"
	"path/filepath"
)

// isDir reports whether p is an existing directory (following links).
func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// isFile reports whether p is an existing regular file (following links).
func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// isExecutable reports whether p is a regular file with an execute bit.
func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// hasLib reports whether dir holds lib<name>.so or a versioned lib<name>.so.N.
func hasLib(dir, name string) bool {
	if isFile(filepath.Join(dir, "lib"+name+".so")) {
		return true
	}
	m, _ := filepath.Glob(filepath.Join(dir, "lib"+name+".so.*"))
	return len(m) > 0
}
