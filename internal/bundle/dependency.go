package bundle

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// dependencyDir is the folder CMake took dependency name from: mlxbuild's
// provider forces FETCHCONTENT_SOURCE_DIR_<NAME> into the build's cache
// (internal/deps), so the cache says which verified copy was compiled,
// whatever MLX's CMake did with it afterwards. found is false when CMake
// was not given it (a system provider: the toolkit's own copy).
func dependencyDir(buildDir, name string) (dir string, found bool, err error) {
	cache := filepath.Join(buildDir, "CMakeCache.txt")
	f, err := os.Open(cache)
	if err != nil {
		return "", false, fmt.Errorf("reading %s for dependency %s: %w; build the backend first", cache, name, err)
	}
	defer f.Close()
	key := "FETCHCONTENT_SOURCE_DIR_" + strings.ToUpper(name) + ":"
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, key) {
			continue
		}
		if _, v, ok := strings.Cut(line, "="); ok && filepath.IsAbs(v) {
			return v, true, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", false, fmt.Errorf("reading %s: %w", cache, err)
	}
	return "", false, nil
}

// isDir says whether path is a directory (through links).
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
