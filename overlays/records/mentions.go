package records

import (
	"path"
	"strings"
)

// Mentions reports whether the text of LOCAL_FIXES.md names the overlay
// file p, the way the reference's overlay tool decides it:
//
//   - by its full path;
//   - by its path under its backend directory, when that still has a
//     directory in it (`quantized/qmm.hip`);
//   - by its bare file name, when no other overlay file has that name.
//
// Every form counts only on its own, never as the tail of a longer path, so
// `mlx/device.cpp` does not name mlx/backend/rocm/device.cpp, and
// `mlx/backend/rocm/CMakeLists.txt` does not name the top-level
// CMakeLists.txt (whose full path is a bare name).
func (l *Layout) Mentions(text, p string) bool {
	if containsWord(text, p) {
		return true
	}
	var short []string
	if d := l.BackendDir(p); d != "" {
		if rel := strings.TrimPrefix(p, d+"/"); strings.Contains(rel, "/") {
			short = append(short, rel)
		}
	}
	name := path.Base(p)
	unique := true
	for other := range l.Hashes {
		if other != p && path.Base(other) == name {
			unique = false
			break
		}
	}
	if unique {
		short = append(short, name)
	}
	for _, s := range short {
		if containsWord(text, s) {
			return true
		}
	}
	return false
}

// containsWord finds s in text where it is not glued to a longer name:
// the byte before is not a letter, digit, '_', '.', '-' or '/' (so a tail of
// a longer path does not count), and the byte after is not a letter, digit,
// '_' or '-'. A following '.' is allowed: sentences end with one.
func containsWord(text, s string) bool {
	if s == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(text[i:], s)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(s)
		before := at == 0 || !(wordByte(text[at-1]) || text[at-1] == '.' || text[at-1] == '-' || text[at-1] == '/')
		after := end == len(text) || !(wordByte(text[end]) || text[end] == '-')
		if before && after {
			return true
		}
		i = at + 1
	}
}

func wordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
