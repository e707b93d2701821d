package bundle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/cmakecache"
)

// dependencyDir is the folder CMake took dependency name from: mlxbuild's
// provider forces FETCHCONTENT_SOURCE_DIR_<NAME> into the build's cache
// (internal/deps), so the cache says which verified copy was compiled,
// whatever MLX's CMake did with it afterwards. found is false when CMake
// was not given it (a system provider: the toolkit's own copy).
func dependencyDir(buildDir, name string) (dir string, found bool, err error) {
	c, err := cmakecache.Read(buildDir)
	if err != nil {
		return "", false, err
	}
	if c == nil {
		return "", false, fmt.Errorf("no %s in %s for dependency %s; build the backend first", cmakecache.FileName, buildDir, name)
	}
	e, ok := c.Get("FETCHCONTENT_SOURCE_DIR_" + strings.ToUpper(name))
	if !ok || !filepath.IsAbs(e.Value) {
		return "", false, nil
	}
	return e.Value, true, nil
}

// isDir says whether path is a directory (through links).
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
