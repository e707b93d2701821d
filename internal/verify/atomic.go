package verify

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
)

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so a CI system never reads half a report.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing report %s: %w; check that the directory can be created", path, err)
	}
	// No fsync: a report guards against a reader seeing half of it, and a
	// CI run that lost power is run again anyway.
	err := atomicfile.Options{Perm: 0o644, NoSync: true, TempPattern: "." + filepath.Base(path) + ".*"}.Write(path, data)
	switch {
	case err == nil:
		return nil
	case atomicfile.IsCreate(err):
		return fmt.Errorf("writing report %s: %w; check that the directory is writable", path, err)
	default:
		return fmt.Errorf("writing report %s: %w; check free space and permissions", path, err)
	}
}
