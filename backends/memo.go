package backends

import (
	"os"
	"path/filepath"
	"strings"

	imemo "github.com/mlxbuild/mlxbuild/internal/memo"
)

// discoveryKind names the discovery memo's entries (internal/memo).
const discoveryKind = "discovery"

// memo caches discovery results under dir (the mlxbuild cache root's
// discovery/ folder), one internal/memo entry per key. Discovery runs
// programs (hipconfig, a Perl script; cmake --version) on every build,
// while their answers change only when a file they were derived from or a
// variable they read changes: the entry holds both, and is used only
// while all hold. A memo with dir "" caches nothing.
type memo struct{ dir string }

func (m memo) path(key string) string { return filepath.Join(m.dir, key+".memo") }

// load fills result from key's entry while the variables it read (through
// env) and the files it looked at are unchanged.
func (m memo) load(key string, env func(string) string, result memoResult) bool {
	if m.dir == "" {
		return false
	}
	values, ok := imemo.Load(m.path(key), discoveryKind, nil, func(k string) string { return readEnv(env, k) })
	return ok && len(values) > 0 && setMemoFields(result, values)
}

// store keeps result against what w witnessed.
func (m memo) store(key string, w *witness, result memoResult) {
	if m.dir == "" {
		return
	}
	m.write(key, discoveryKind, (*imemo.Witness)(w).Entry(nil, memoFields(result)))
}

// write replaces key's entry, only inside a cache root mlxbuild made
// (memo.StoreInCache).
func (m memo) write(key, kind string, e imemo.Entry) {
	imemo.StoreInCache(m.dir, key+".memo", kind, e)
}

// readEnv reads a recorded variable: "child:K" is what a program run by
// discovery inherits (this process's environment), K what discovery itself
// read through env.
func readEnv(env func(string) string, k string) string {
	if c, ok := strings.CutPrefix(k, "child:"); ok {
		return os.Getenv(c)
	}
	return env(k)
}
