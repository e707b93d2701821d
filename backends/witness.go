package backends

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fileid"
)

// fileID is what a discovery result was derived from, for one path: its
// identity when it was looked at, or that it was absent. A result is reused
// only while every fileID still matches, so a replaced, added or removed file
// (a tool upgrade, a new /opt/rocm, a retargeted symlink) runs discovery again.
type fileID = fileid.ID

// identify reads p's identity without following a final symlink (the link
// itself is one of the files a result depends on; its target is recorded
// separately by witness.file).
func identify(p string) fileID { return fileid.Of(p) }

// witness records every path and environment value a discovery looks at, so
// the result can be cached against exactly those inputs. A nil *witness
// records nothing (doctor and the uncached entry points).
type witness struct {
	files map[string]fileID
	env   map[string]string
}

func newWitness() *witness {
	return &witness{files: map[string]fileID{}, env: map[string]string{}}
}

// file records p and, when p (or a directory above it) is a symlink, the
// file it resolves to: both ends of the link.
func (w *witness) file(p string) {
	if w == nil || p == "" {
		return
	}
	p = filepath.Clean(p)
	if _, ok := w.files[p]; ok {
		return
	}
	id := identify(p)
	w.files[p] = id
	if id.Absent {
		return
	}
	if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
		if _, ok := w.files[real]; !ok {
			w.files[real] = identify(real)
		}
	}
}

// getenv reads k through env and records the value.
func (w *witness) getenv(env func(string) string, k string) string {
	v := env(k)
	if w != nil {
		w.env[k] = v
	}
	return v
}

func (w *witness) isDir(p string) bool        { w.file(p); return isDir(p) }
func (w *witness) isFile(p string) bool       { w.file(p); return isFile(p) }
func (w *witness) isExecutable(p string) bool { w.file(p); return isExecutable(p) }

func (w *witness) readFile(p string) ([]byte, error) {
	w.file(p)
	return os.ReadFile(p)
}

// glob records the directory the pattern lists (its mtime and ctime change
// when an entry is added, removed or renamed) and every match.
func (w *witness) glob(pattern string) []string {
	if i := strings.IndexAny(pattern, "*?["); i >= 0 {
		w.file(filepath.Dir(pattern[:i+1]))
	}
	m, _ := filepath.Glob(pattern)
	for _, p := range m {
		w.file(p)
	}
	return m
}

func (w *witness) hasLib(dir, name string) bool {
	if w.isFile(filepath.Join(dir, "lib"+name+".so")) {
		return true
	}
	return len(w.glob(filepath.Join(dir, "lib"+name+".so.*"))) > 0
}

// lookPath is lookPath, recording each directory searched before the hit
// (a same-named tool added there would win) and the hit itself.
func (w *witness) lookPath(name, path string) string {
	if strings.Contains(name, "/") {
		if w.isExecutable(name) {
			return name
		}
		return ""
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		if p := filepath.Join(dir, name); w.isExecutable(p) {
			return p
		}
		w.file(dir)
	}
	return ""
}

// ran records a program that was run: the executable (both ends), and the
// scripts a wrapper loads beside it (Debian's and AMD's hipconfig and hipcc
// are Perl wrappers that exec name.pl, which loads hipvars.pm), plus the
// variables those scripts read.
func (w *witness) ran(exe string) {
	if w == nil {
		return
	}
	w.file(exe)
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		real = exe
	}
	for _, dir := range []string{filepath.Dir(exe), filepath.Dir(real)} {
		w.file(filepath.Join(dir, filepath.Base(exe)+".pl"))
		w.file(filepath.Join(dir, filepath.Base(exe)+".bin"))
		w.file(filepath.Join(dir, "hipvars.pm"))
	}
	for _, k := range toolEnv {
		w.env["child:"+k] = os.Getenv(k)
	}
}

// toolEnv is what hipvars.pm and the HIP wrappers read from the environment
// (the child runs with this process's environment).
var toolEnv = []string{"PATH", "HIP_PATH", "ROCM_PATH", "HIP_CLANG_PATH", "HIP_PLATFORM", "HIP_COMPILER",
	"HIP_RUNTIME", "HSA_PATH", "CUDA_PATH", "HIP_ROCCLR_HOME", "HIP_DEVICE_LIB_PATH"}

// inputs returns the recorded files in path order.
func (w *witness) inputs() []fileID {
	out := make([]fileID, 0, len(w.files))
	for _, id := range w.files {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
