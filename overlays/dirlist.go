package overlays

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// dirEnt is one name of a directory listing and its type as the listing
// reports it (see entType).
type dirEnt struct {
	name string
	typ  fs.FileMode
}

func (d *dirEnt) isDir() bool { return d.typ == fs.ModeDir }

// listDir lists the directory dir sorted by name; what names its side in
// an error. A missing directory is empty.
func listDir(what, dir string) ([]dirEnt, error) {
	es, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("overlays: reading %s directory %s: %w; check its permissions", what, dir, bareErr(err))
	}
	out := make([]dirEnt, len(es))
	for i, e := range es {
		out[i] = dirEnt{name: e.Name(), typ: entType(e.Type())}
	}
	return out, nil
}

// entType maps a file's type to the ones the walk tells apart: fs.ModeDir,
// fs.ModeSymlink, 0 for a regular file, or fs.ModeIrregular for anything
// else.
func entType(t fs.FileMode) fs.FileMode {
	switch t &= fs.ModeType; t {
	case 0, fs.ModeDir, fs.ModeSymlink:
		return t
	}
	return fs.ModeIrregular
}

// lstat is the stat data and type (see entType) of path, not following a
// link. Its error is the bare errno: the caller names the path.
func lstat(path string) (statOf, fs.FileMode, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return statOf{}, 0, bareErr(err)
	}
	return statData(fi), entType(fi.Mode()), nil
}

// irregularType names, for an error, what kind of file path is:
// "p---------" for a named pipe, as fs.FileMode prints it.
func irregularType(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "unknown type"
	}
	return fi.Mode().Type().String()
}

// bareErr is err without the operation and path of an *fs.PathError, for a
// message that names the path itself.
func bareErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
