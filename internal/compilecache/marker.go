package compilecache

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MarkerFile is written into the build directory after a configure with the
// launcher defines it used. The launcher is not a stamp input (switching it
// on must not rebuild the tree), yet CMake must be configured again when it
// changes: compare with MarkerChanged before deciding to configure.
const MarkerFile = "mlxbuild-launcher.txt"

// markerText is the defines as sorted KEY=VALUE lines. They hold tool paths
// only, never the remote or credentials (those live in the environment).
func markerText(defines map[string]string) string {
	var lines []string
	for k, v := range defines {
		lines = append(lines, k+"="+v+"\n")
	}
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// MarkerChanged reports whether the build directory was configured with
// other launcher defines than these (or has no marker yet but a CMake
// cache, i.e. was configured before the launcher was known).
func MarkerChanged(buildDir string, defines map[string]string) bool {
	old, err := os.ReadFile(filepath.Join(buildDir, MarkerFile))
	if err != nil {
		return true
	}
	return string(old) != markerText(defines)
}

// WriteMarker records the launcher defines of a successful configure.
func WriteMarker(buildDir string, defines map[string]string) error {
	return os.WriteFile(filepath.Join(buildDir, MarkerFile), []byte(markerText(defines)), 0o644)
}
