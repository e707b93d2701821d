package deps

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// declareRe finds the dependencies a CMake file asks for:
// FetchContent_Declare(json ...), and find_package(rocwmma ...), which a
// dependency served as a CMake package answers.
var declareRe = lazyregexp.New(`(?im)^[ \t]*(?:FetchContent_Declare|find_package)\s*\(\s*([A-Za-z0-9_.+-]+)`)

// Declared returns the lower-cased names every CMakeLists.txt and *.cmake
// file under tree passes to FetchContent_Declare or find_package. A spec
// may declare dependencies its tree never uses (the built-in spec knows
// MLX's; a project may build something smaller): only those the tree asks
// for must be provided. Commented-out calls do not count.
func Declared(trees ...string) (map[string]bool, error) {
	names := map[string]bool{}
	for _, tree := range trees {
		if err := declaredIn(tree, names); err != nil {
			return nil, err
		}
	}
	return names, nil
}

func declaredIn(tree string, names map[string]bool) error {
	return filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "CMakeLists.txt" && !strings.HasSuffix(d.Name(), ".cmake") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range declareRe.FindAllSubmatch(data, -1) {
			names[strings.ToLower(string(m[1]))] = true
		}
		return nil
	})
}
