package backends

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
)

// memoVersion changes whenever an entry's meaning changes, so an older
// mlxbuild's entries are ignored rather than misread.
const memoVersion = 2 // 2: ROCm fields under snake_case json tags

// memoEntry is one cached discovery: what it read and what it found.
type memoEntry struct {
	Version int               `json:"version"`
	Env     map[string]string `json:"env"`
	Files   []fileID          `json:"files"`
	Result  json.RawMessage   `json:"result"`
}

// memo caches discovery results under dir (the mlxbuild cache root's
// discovery/ folder), one JSON file per key. Discovery runs programs
// (hipconfig, a Perl script, costs about 45 ms; cmake --version a few ms)
// on every build, while their answers change only when a file they were
// derived from or a variable they read changes: the entry holds both, and
// is used only while all match. A memo with dir "" caches nothing.
type memo struct{ dir string }

func (m memo) path(key string) string { return filepath.Join(m.dir, key+".json") }

// load fills result from key's entry when the entry's environment values
// (read through env) and files are unchanged.
func (m memo) load(key string, env func(string) string, result any) bool {
	if m.dir == "" {
		return false
	}
	data, err := os.ReadFile(m.path(key))
	if err != nil {
		return false
	}
	var e memoEntry
	if json.Unmarshal(data, &e) != nil || e.Version != memoVersion {
		return false
	}
	for k, v := range e.Env {
		if readEnv(env, k) != v {
			return false
		}
	}
	if !unchanged(e.Files) {
		return false
	}
	return json.Unmarshal(e.Result, result) == nil
}

// store writes key's entry atomically. A failure to write only costs the
// next run a discovery, so it is not an error.
func (m memo) store(key string, w *witness, result any) {
	if m.dir == "" {
		return
	}
	res, err := json.Marshal(result)
	if err != nil {
		return
	}
	data, err := json.Marshal(memoEntry{Version: memoVersion, Env: w.env, Files: w.inputs(), Result: res})
	if err != nil {
		return
	}
	// Only inside a cache root mlxbuild made (it holds CACHEDIR.TAG): plan
	// and doctor must not create one, and a directory with files but no
	// tag is refused as a cache root (the first build writes the tag).
	if _, err := os.Stat(filepath.Join(filepath.Dir(m.dir), "CACHEDIR.TAG")); err != nil {
		return
	}
	if err := os.Mkdir(m.dir, 0o755); err != nil && !os.IsExist(err) {
		return
	}
	_ = atomicfile.Write(m.path(key), data, 0o644)
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
