package flow

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/internal/cmake"
)

// producedBy says, for an archive found in buildDir, why it is not a
// product of the build graph there (nil when it is). An archive written
// after build.ninja was is one: the graph built it. An older one was
// built by this graph only if the graph names it as an output; one an
// earlier configure's graph made (a kernel library whose target CMake
// dropped) is no product, and is never linked. The graph is asked only
// about such an older archive, and its answer kept (cmake.GraphProducts):
// after a configure that rebuilt nothing, every no-op asks.
func producedBy(buildDir string) func(string) error {
	graph := cmake.NewGraphProducts(buildDir)
	return func(archive string) error {
		gi, err := os.Stat(filepath.Join(buildDir, "build.ninja"))
		if err != nil {
			return fmt.Errorf("%s has no build graph (%v)", buildDir, err)
		}
		ai, err := os.Stat(archive)
		if err != nil {
			return err
		}
		if !ai.ModTime().Before(gi.ModTime()) {
			return nil
		}
		if built, err := graph.Builds(archive); err != nil || built {
			return err
		}
		return fmt.Errorf("%s is older than the build graph, which does not build it: an earlier configure left it", archive)
	}
}
