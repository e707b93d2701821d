package atomicfile

import (
	"fmt"
)

// The steps of a write, for Error.Op.
const (
	OpCreate = "create" // making the temporary file: the directory is missing or not writable
	OpChmod  = "chmod"
	OpWrite  = "write"
	OpSync   = "sync"
	OpClose  = "close"
	OpRename = "rename"
)

// Error is a failed write: Op is the step that failed, Path the file that
// was to be replaced, What what the file is. Its text is complete, with what
// to do, so callers return it as it is: a missing or read-only directory
// (OpCreate) is told from a failure midway (no space, a directory in the
// way).
type Error struct {
	Op   string
	Path string
	What string
	Err  error
}

func (e *Error) Error() string {
	what := e.What
	if what == "" {
		what = "file"
	}
	fix := "check free space and permissions"
	if e.Op == OpCreate {
		fix = "check that its directory exists and is writable"
	}
	return fmt.Sprintf("writing %s %s: %v; %s", what, e.Path, e.Err, fix)
}

// Unwrap gives the os error, for errors.Is(err, fs.ErrPermission) and the like.
func (e *Error) Unwrap() error { return e.Err }
