package backends

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/fileid"
)

// memoHeader starts every entry; it changes whenever an entry's form or
// meaning changes, so an older mlxbuild's entries are ignored rather than
// misread. 3: lines of quoted text instead of one JSON object (a no-op
// build read two entries, and encoding/json's reflection showed).
const memoHeader = "mlxbuild memo 3"

// memo caches discovery results under dir (the mlxbuild cache root's
// discovery/ folder), one file per key. Discovery runs programs
// (hipconfig, a Perl script; cmake --version) on every build, while their answers change only when a file they were
// derived from or a variable they read changes: the entry holds both, and
// is used only while all match. A memo with dir "" caches nothing.
//
// An entry is lines: the header; `env "K" "V"` for each variable read;
// `file <identity>` for each file looked at (fileid.ID.Key, which starts
// with the quoted path); then `set "field" "value"` for each field of the
// result (memoResult). Checking an entry compares each file's identity line
// with the one it has now, so nothing but the small result is decoded.
type memo struct{ dir string }

func (m memo) path(key string) string { return filepath.Join(m.dir, key+".memo") }

// memoEntry is one cached discovery: what it read and what it found.
type memoEntry struct {
	env    [][2]string // name, value; in name order
	files  []string    // fileid.ID.Key of each file, in path order
	result [][2]string // the result's fields: name, value
}

// load fills result from key's entry when the entry's environment values
// (read through env) and files are unchanged.
func (m memo) load(key string, env func(string) string, result memoResult) bool {
	if m.dir == "" {
		return false
	}
	data, err := os.ReadFile(m.path(key))
	if err != nil {
		return false
	}
	e, ok := parseMemo(data)
	if !ok {
		return false
	}
	for _, kv := range e.env {
		if readEnv(env, kv[0]) != kv[1] {
			return false
		}
	}
	if !fileid.KeysUnchanged(e.files) {
		return false
	}
	return setMemoFields(result, e.result)
}

// store writes key's entry atomically. A failure to write only costs the
// next run a discovery, so it is not an error.
func (m memo) store(key string, w *witness, result memoResult) {
	if m.dir == "" {
		return
	}
	e := memoEntry{result: memoFields(result)}
	for k, v := range w.env {
		e.env = append(e.env, [2]string{k, v})
	}
	slices.SortFunc(e.env, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	for _, id := range w.inputs() {
		e.files = append(e.files, id.Key())
	}
	m.write(key, formatMemo(e))
}

// write replaces key's file with data when it differs. Only into a folder
// mlxbuild may write into (cache.CheckFolder): inside a cache root mlxbuild
// made (it holds CACHEDIR.TAG: plan and doctor must not create one, and a
// directory with files but no tag is refused as a cache root; the first
// build writes the tag), never through a link planted there. A failure
// only costs the next run the work the file saves, so it is not an error.
func (m memo) write(key string, data []byte) {
	if cache.CheckFolder(filepath.Dir(m.dir), m.dir) != nil {
		return
	}
	if err := os.Mkdir(m.dir, 0o755); err != nil && !os.IsExist(err) {
		return
	}
	_, _ = atomicfile.WriteIfChanged(m.path(key), data, 0o644)
}

// formatMemo is an entry's text (see memo).
func formatMemo(e memoEntry) []byte {
	b := []byte(memoHeader + "\n")
	pair := func(kind string, kv [2]string) {
		b = append(b, kind...)
		b = strconv.AppendQuote(b, kv[0])
		b = append(b, ' ')
		b = strconv.AppendQuote(b, kv[1])
		b = append(b, '\n')
	}
	for _, kv := range e.env {
		pair("env ", kv)
	}
	for _, f := range e.files {
		b = append(b, "file "...)
		b = append(b, f...)
		b = append(b, '\n')
	}
	for _, kv := range e.result {
		pair("set ", kv)
	}
	return b
}

// parseMemo reads an entry's text. Anything else (an older form, a torn
// file, a line it does not know, lines out of their order) is not ok: the
// caller discovers again.
func parseMemo(data []byte) (memoEntry, bool) {
	var e memoEntry
	s, ok := strings.CutPrefix(string(data), memoHeader+"\n")
	if !ok || !strings.HasSuffix(s, "\n") {
		return e, false
	}
	order := 0 // env, then file, then set lines
	for line := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		kind, rest, _ := strings.Cut(line, " ")
		step := -1
		switch kind {
		case "env":
			step = 0
		case "file":
			step = 1
		case "set":
			step = 2
		}
		if step < order {
			return e, false
		}
		order = step
		if kind == "file" {
			if _, _, ok := memoQuoted(rest); !ok {
				return e, false
			}
			e.files = append(e.files, rest)
			continue
		}
		k, tail, ok := memoQuoted(rest)
		if !ok || !strings.HasPrefix(tail, " ") {
			return e, false
		}
		v, end, ok := memoQuoted(tail[1:])
		if !ok || end != "" {
			return e, false
		}
		if kind == "env" {
			e.env = append(e.env, [2]string{k, v})
		} else {
			e.result = append(e.result, [2]string{k, v})
		}
	}
	return e, len(e.result) > 0
}

// memoQuoted splits the Go-quoted string s starts with from what follows;
// not ok when s does not start with one in strconv.Quote's own form (any
// other spelling of the value would not be written back as it was read).
func memoQuoted(s string) (value, tail string, ok bool) {
	// Printable ASCII without a quote or a backslash, which strconv.Quote
	// writes as it is: nearly every path and value, read without a copy.
	if len(s) > 0 && s[0] == '"' {
		for i := 1; i < len(s); i++ {
			c := s[i]
			if c == '"' {
				return s[1:i], s[i+1:], true
			}
			if c < ' ' || c > '~' || c == '\\' {
				break
			}
		}
	}
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", s, false
	}
	v, err := strconv.Unquote(q)
	return v, s[len(q):], err == nil && strconv.Quote(v) == q
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
