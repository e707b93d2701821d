package records

import (
	"context"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/inputfile"
)

// ReadRecord reads a record file of an overlay (UPSTREAM, LOCAL_FIXES.md,
// README.md, the residual) through inputfile: a FIFO or a device placed
// there is refused instead of read for ever. Records are small regular
// files; the bound ends every read, so no context is needed to stop one.
func ReadRecord(file string) ([]byte, error) {
	return (inputfile.File{Path: file, What: "overlay record", Limit: inputfile.ConfigLimit,
		Fix: "replace it with a regular file"}).Read(context.Background())
}

// unreadable is what an optional record that cannot be read says: nothing
// when it is absent (or unreadable as before), a problem when it is not a
// regular file or too large, which would have hung the check.
func unreadable(file string, err error) []fileProblem {
	if fail.KindOf(err) != fail.Config {
		return nil
	}
	return []fileProblem{{File: file, Problem: Problem{Message: err.Error()}}}
}
