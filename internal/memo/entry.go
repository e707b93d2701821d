package memo

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
)

// header starts every entry, followed by the entry's kind; it changes
// whenever the form or the meaning of entries changes, so an older
// mlxbuild's entries are a miss rather than misread. A miss only costs
// the work the memo saves (a discovery, a decode), never a rebuild.
const header = "mlxbuild memo 4 "

// Entry is one kept result and what it stands on. It is lines, in this
// order: the header and kind; `key "name" "value"` for each key the caller
// derives afresh (the targets asked for, a fingerprint); `env "K" "V"` for
// each variable read; `file <identity>` for each path looked at
// (ID.Key, which starts with the quoted path); then `set "name"
// "value"` for each of the result's values; then `end N`, N the count of
// lines between, so a file cut short at a line's end is no entry either.
// Checking an entry compares lines with lines, so nothing but the small
// result is decoded.
type Entry struct {
	Keys   [][2]string // name, value: must equal what the caller asks with
	Env    [][2]string // name, value: must equal what getenv reads now
	Files  []string    // identity keys, in path order: must be unchanged
	Values [][2]string // the result: name, value (a name may repeat)
}

// kinds in the order their lines come.
var kinds = [...]string{"key", "env", "file", "set"}

// Format is e's text for an entry of kind (a word).
func Format(kind string, e Entry) []byte {
	b := []byte(header + kind + "\n")
	pair := func(kind string, kv [2]string) {
		b = append(b, kind...)
		b = append(b, ' ')
		b = strconv.AppendQuote(b, kv[0])
		b = append(b, ' ')
		b = strconv.AppendQuote(b, kv[1])
		b = append(b, '\n')
	}
	for _, kv := range e.Keys {
		pair("key", kv)
	}
	for _, kv := range e.Env {
		pair("env", kv)
	}
	for _, f := range e.Files {
		b = append(b, "file "...)
		b = append(b, f...)
		b = append(b, '\n')
	}
	for _, kv := range e.Values {
		pair("set", kv)
	}
	b = append(b, "end "...)
	b = strconv.AppendInt(b, int64(len(e.Keys)+len(e.Env)+len(e.Files)+len(e.Values)), 10)
	return append(b, '\n')
}

// Parse reads an entry of kind. Anything else (another kind, an older
// form, a torn file, a line it does not know, lines out of their order)
// is not ok: the caller works the result out again.
func Parse(kind string, data []byte) (Entry, bool) {
	return ParseString(kind, string(data))
}

// ParseString is Parse of text already in a string (ReadString's): the
// entry's paths and values are parts of it, not copies, since a large
// entry's copy (the no-work record's) costs a no-op more in page faults
// than its parse.
func ParseString(kind, text string) (Entry, bool) {
	var e Entry
	s, ok := strings.CutPrefix(text, header+kind+"\n")
	if !ok || !strings.HasSuffix(s, "\n") {
		return e, false
	}
	i := strings.LastIndex(s[:len(s)-1], "\n") + 1 // the end line's start
	s, last := s[:i], s[i:len(s)-1]
	count, ok := strings.CutPrefix(last, "end ")
	n, err := strconv.Atoi(count)
	// Written as strconv.Itoa writes it: Atoi also takes a sign and
	// leading zeros (checked without Itoa's string).
	canonical := count == "0" || count != "" && '1' <= count[0] && count[0] <= '9'
	if !ok || err != nil || !canonical || n != strings.Count(s, "\n") {
		return e, false
	}
	order, seen := 0, 0
	for line := range strings.Lines(s) {
		line = line[:len(line)-1]
		seen++
		k, rest, _ := strings.Cut(line, " ")
		step := slices.Index(kinds[:], k)
		if step < order {
			return e, false
		}
		order = step
		if k == "file" {
			if _, ok := KeyPath(rest); !ok {
				return e, false
			}
			e.Files = append(e.Files, rest)
			continue
		}
		name, tail, ok := quoted(rest)
		if !ok || !strings.HasPrefix(tail, " ") {
			return e, false
		}
		v, end, ok := quoted(tail[1:])
		if !ok || end != "" {
			return e, false
		}
		kv := [2]string{name, v}
		switch k {
		case "key":
			e.Keys = append(e.Keys, kv)
		case "env":
			e.Env = append(e.Env, kv)
		default:
			if e.Values == nil { // every line left is a value: one allocation
				e.Values = make([][2]string, 0, n-seen+1)
			}
			e.Values = append(e.Values, kv)
		}
	}
	return e, true
}

// quoted splits the Go-quoted string s starts with from what follows; not
// ok when s does not start with one in strconv.Quote's own form (any other
// spelling would not be written back as it was read).
func quoted(s string) (value, tail string, ok bool) {
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

// Holds reports whether e was kept for keys and its witnesses hold: every
// variable still reads (through getenv) as it did and every file keeps its
// identity.
func (e Entry) Holds(keys [][2]string, getenv func(string) string) bool {
	if !slices.Equal(e.Keys, keys) {
		return false
	}
	for _, kv := range e.Env {
		if getenv(kv[0]) != kv[1] {
			return false
		}
	}
	return KeysUnchanged(e.Files)
}

// Load is the result of the entry of kind at path while it holds for keys
// (see Holds); not ok when there is none, or it does not hold.
func Load(path, kind string, keys [][2]string, getenv func(string) string) ([][2]string, bool) {
	text, err := ReadString(path)
	if err != nil {
		return nil, false
	}
	e, ok := ParseString(kind, text)
	if !ok || !e.Holds(keys, getenv) {
		return nil, false
	}
	return e.Values, true
}

// Get is the cached result at path, decoded, while its witnesses hold for
// keys; not ok when it is missing, does not hold or does not decode.
func Get[T any](path, kind string, keys [][2]string, getenv func(string) string, decode func(values [][2]string) (T, bool)) (T, bool) {
	var zero T
	values, ok := Load(path, kind, keys, getenv)
	if !ok {
		return zero, false
	}
	v, ok := decode(values)
	if !ok {
		return zero, false
	}
	return v, true
}

// Store replaces path's entry with e, atomically (a reader sees the old
// entry or the new one, never a torn one), and only when it differs. A
// failure to write only costs the next run the work the memo saves, so it
// is not an error.
func Store(path, kind string, e Entry) {
	o := atomicfile.Options{Perm: 0o644, What: kind + " memo", NoSync: true, TempPattern: ".tmp-" + filepath.Base(path) + "-*"}
	_, _ = o.WriteIfChanged(path, Format(kind, e))
}

// StoreInCache is Store into dir/name where dir is a folder of a cache
// root (the discovery folder), made when missing. Only into a folder
// mlxbuild may write into (cache.CheckFolder): inside a cache root mlxbuild
// made (it holds CACHEDIR.TAG: plan, doctor and arch:cuda must not create
// one, and a directory with files but no tag is refused as a cache root;
// the first build writes the tag), never through a link planted there.
func StoreInCache(dir, name, kind string, e Entry) {
	if cache.CheckFolder(filepath.Dir(dir), dir) != nil {
		return
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return
	}
	Store(filepath.Join(dir, name), kind, e)
}
