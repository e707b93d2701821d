package backends

import (
	"os"
	"path/filepath"
	"strings"

	imemo "github.com/mlxbuild/mlxbuild/internal/memo"
)

// witness records every path and environment value a discovery looks at
// (imemo.Witness), so the result can be cached against exactly those inputs;
// its methods look and record at once. A nil *witness records nothing
// (doctor and the uncached entry points).
type witness imemo.Witness

func newWitness() *witness { return (*witness)(imemo.NewWitness()) }

// file records p and both ends of a link.
func (w *witness) file(p string) { (*imemo.Witness)(w).File(p) }

// getenv reads k through env and records the value.
func (w *witness) getenv(env func(string) string, k string) string {
	v := env(k)
	(*imemo.Witness)(w).Env(k, v)
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
		(*imemo.Witness)(w).Env("child:"+k, os.Getenv(k))
	}
}

// toolEnv is what hipvars.pm and the HIP wrappers read from the environment
// (the child runs with this process's environment).
var toolEnv = []string{"PATH", "HIP_PATH", "ROCM_PATH", "HIP_CLANG_PATH", "HIP_PLATFORM", "HIP_COMPILER",
	"HIP_RUNTIME", "HSA_PATH", "CUDA_PATH", "HIP_ROCCLR_HOME", "HIP_DEVICE_LIB_PATH"}
