package atomicfile

import "errors"

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
// was to be replaced. Its text is Err's alone, since os errors already name
// the operation and the file; callers wrap it with what they were writing
// and what to do, and tell a missing or read-only directory (OpCreate) from
// a failure midway (no space, a directory in the way) by Op.
type Error struct {
	Op   string
	Path string
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap gives the os error, for errors.Is(err, fs.ErrPermission) and the like.
func (e *Error) Unwrap() error { return e.Err }

// IsCreate reports whether err is a write that could not make its temporary
// file, i.e. the target's directory is missing or not writable.
func IsCreate(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Op == OpCreate
}
