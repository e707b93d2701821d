package verify

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so a CI system never reads half a report.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing report %s: %w; check that the directory can be created", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing report %s: %w; check that the directory is writable", path, err)
	}
	_, werr := tmp.Write(data)
	if err := tmp.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing report %s: %w; check free space and permissions", path, werr)
	}
	return nil
}
