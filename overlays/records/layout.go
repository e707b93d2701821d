package records

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/overlays"
)

// ResidualName is the record of what the core files carry beyond "MLX pin +
// the fork's own change"; readmeName the overlay's README, whose counts are
// checked against the files.
const (
	ResidualName = "CORE_RESIDUAL.diff"
	readmeName   = "README.md"
)

// allNames are every records file an overlay vendored from a fork keeps at
// its root, as the reference's overlay has them: none is ever copied.
var allNames = []string{readmeName, UpstreamName, LocalFixesName, ResidualName}

// ignoredName is the file a desktop drops into every directory it shows
// (Finder's .DS_Store): neither an overlay file nor a record, so the records
// never count it, as the reference's do not.
const ignoredName = ".DS_Store"

// Layout is an overlay's files split the way its records describe them:
// backend files (under one of BackendDirs, the directories vendored whole
// from the fork) and core files (MLX files the overlay replaces).
type Layout struct {
	Root        string
	BackendDirs []string          // slash-separated, no trailing slash
	Hashes      map[string]string // every overlay file (records excluded) -> SHA-256 hex
}

// ReadLayout hashes the overlay at root, leaving out the records files
// recs (allNames when nil). With no backendDirs, every mlx/backend/<name>
// directory of the overlay that holds a CMakeLists.txt is a backend
// directory: a backend vendored whole carries its build file, while a core
// edit of mlx/backend/common or mlx/backend/gpu never does.
func ReadLayout(root string, backendDirs, recs []string) (*Layout, error) {
	if recs == nil {
		recs = allNames
	}
	hashes, err := overlays.OverlayFiles(root, recs)
	if err != nil {
		return nil, err
	}
	for p := range hashes {
		if path.Base(p) == ignoredName {
			delete(hashes, p)
		}
	}
	l := &Layout{Root: root, Hashes: hashes}
	for _, d := range backendDirs {
		l.BackendDirs = append(l.BackendDirs, strings.Trim(filepath.ToSlash(d), "/"))
	}
	if len(backendDirs) == 0 {
		es, _ := os.ReadDir(filepath.Join(root, "mlx", "backend"))
		for _, e := range es {
			if _, ok := hashes["mlx/backend/"+e.Name()+"/CMakeLists.txt"]; e.IsDir() && ok {
				l.BackendDirs = append(l.BackendDirs, "mlx/backend/"+e.Name())
			}
		}
	}
	sort.Strings(l.BackendDirs)
	return l, nil
}

// files lists every overlay file, sorted.
func (l *Layout) files() []string {
	out := make([]string, 0, len(l.Hashes))
	for p := range l.Hashes {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// BackendDir gives the backend directory path lies in, or "".
func (l *Layout) BackendDir(path string) string {
	for _, d := range l.BackendDirs {
		if strings.HasPrefix(path, d+"/") {
			return d
		}
	}
	return ""
}

// Backend lists the files under the backend directories, sorted.
func (l *Layout) Backend() []string {
	var out []string
	for _, p := range l.files() {
		if l.BackendDir(p) != "" {
			out = append(out, p)
		}
	}
	return out
}

// Core lists the MLX files the overlay replaces outside the backend
// directories, sorted: the top-level CMakeLists.txt and every file in a
// directory. Other files at the overlay's root (a NOTICE naming the fork's
// licence) are copied into the tree but are no MLX file: the reference's
// overlay copies only CMakeLists.txt and mlx/, so they are never core files
// there either.
func (l *Layout) Core() []string {
	var out []string
	for _, p := range l.files() {
		if l.BackendDir(p) == "" && (p == "CMakeLists.txt" || strings.Contains(p, "/")) {
			out = append(out, p)
		}
	}
	return out
}

// Resolve says which overlay file a path named in LOCAL_FIXES.md is: the
// path itself, or the path under one of the backend directories (items
// write `quantized/qmm.hip` for mlx/backend/rocm/quantized/qmm.hip). It
// returns "" for a path that is not in the overlay: an upstream file, a file
// of the engine, a test, a model name. Those are not defects.
func (l *Layout) Resolve(path string) string {
	p := strings.TrimPrefix(path, "./")
	if _, ok := l.Hashes[p]; ok {
		return p
	}
	for _, d := range l.BackendDirs {
		if _, ok := l.Hashes[d+"/"+p]; ok {
			return d + "/" + p
		}
	}
	return ""
}
