package linkplan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Read reads the link plan of a finished build from outDir, a backend's
// out/ directory (target/mlxbuild/rocm/out for the default cache). Errors
// name the file, and line and column when the content is wrong.
func Read(outDir string) (*Plan, error) {
	path := filepath.Join(outDir, FileName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notBuilt{fmt.Sprintf("%s: no link plan here; build the backend first (mage build:%s)", path, backendOf(outDir))}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the link plan: %w", err)
	}
	return Decode(path, data)
}

// notBuilt is the error for a plan that does not exist yet; it is
// fs.ErrNotExist to errors.Is, so a caller can tell "not built" from "broken".
type notBuilt struct{ msg string }

func (e notBuilt) Error() string { return e.msg }
func (notBuilt) Unwrap() error   { return fs.ErrNotExist }

// backendOf guesses the backend from the cache layout (<backend>/out).
func backendOf(outDir string) string {
	switch b := filepath.Base(filepath.Dir(filepath.Clean(outDir))); b {
	case "cpu", "rocm", "cuda", "metal":
		return b
	}
	return "<backend>"
}

// Decode parses data, the content of file, as a link plan: one JSON object
// with exactly the keys link.json has, each once, of the right type, with a
// backend and a known rpath_mode. The first problem is returned as
// file:line:col: what is wrong.
func Decode(file string, data []byte) (*Plan, error) {
	w := &walker{file: file, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	w.dec.UseNumber()
	start := w.next()
	if start == len(data) {
		return nil, w.errorf(start, "the file is empty; build the backend again to rewrite it")
	}
	if data[start] != '{' {
		return nil, w.errorf(start, "a link plan is a JSON object ({...}), not %s", describe(data[start]))
	}
	if err := w.value(""); err != nil {
		return nil, err
	}
	if off := w.next(); off < len(data) {
		return nil, w.errorf(off, "text after the plan's closing brace")
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, w.errorf(w.valueBefore(int(te.Offset)), "%s must be %s, not a JSON %s", te.Field, goWords(te.Type), te.Value)
		}
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if err := w.missing(); err != nil {
		return nil, err
	}
	if p.Backend == "" {
		return nil, w.errorf(w.at["backend"], "backend is empty; it names the backend the plan links (rocm, cuda, metal, cpu)")
	}
	if !slices.Contains(rpathModes, p.RpathMode) {
		return nil, w.errorf(w.at["rpath_mode"], "rpath_mode %q is not one of %s", p.RpathMode, strings.Join(rpathModes, ", "))
	}
	if f := p.TreeFingerprint; f != "" && !isFingerprint(f) {
		return nil, w.errorf(w.at["tree_fingerprint"], "tree_fingerprint %q is not 64 lowercase hex digits; build the backend again to rewrite the plan", f)
	}
	return &p, nil
}

// isFingerprint says f is a SHA-256 in lowercase hex, as builds write it:
// cxxflags.txt puts it inside a string literal, which nothing else may end.
func isFingerprint(f string) bool {
	if len(f) != 64 {
		return false
	}
	for i := 0; i < len(f); i++ {
		if c := f[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// keys are, for each object of the plan (by key path), its keys and
// whether each is required, read from the Go types' json tags so the
// schema cannot drift from the type. Only reading a plan needs them, so
// they are made on first use, not at every start of every program that
// imports the package (a build only writes plans).
var keys = sync.OnceValue(func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"":        tagsOf(reflect.TypeOf(Plan{})),
		"compile": tagsOf(reflect.TypeOf(Compile{})),
	}
})

func tagsOf(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out[name] = opts != "omitempty"
	}
	return out
}

// walker reads the plan token by token, so a problem can be placed: it
// records where each value starts.
type walker struct {
	file   string
	data   []byte
	dec    *json.Decoder
	at     map[string]int // key path -> offset of its value
	starts []int          // offset of every value, in order
	seen   map[string]map[string]bool
}

// next is the offset of the next token: the decoder's offset past white
// space and the one separator it consumes silently.
func (w *walker) next() int {
	off := w.space(int(w.dec.InputOffset()))
	if off < len(w.data) && (w.data[off] == ':' || w.data[off] == ',') {
		off = w.space(off + 1)
	}
	return off
}

func (w *walker) space(off int) int {
	for off < len(w.data) && strings.IndexByte(" \t\r\n", w.data[off]) >= 0 {
		off++
	}
	return off
}

func (w *walker) value(path string) error {
	if w.at == nil {
		w.at, w.seen = map[string]int{}, map[string]map[string]bool{}
	}
	start := w.next()
	w.at[path] = start
	w.starts = append(w.starts, start)
	tok, err := w.dec.Token()
	if err != nil {
		return w.syntax(err, start)
	}
	switch tok {
	case json.Delim('{'):
		known, checked := keys()[path]
		w.seen[path] = map[string]bool{}
		for w.dec.More() {
			at := w.next()
			kt, err := w.dec.Token()
			if err != nil {
				return w.syntax(err, at)
			}
			key, _ := kt.(string) // the decoder refuses an object key that is not a string
			if _, ok := known[key]; checked && !ok {
				return w.errorf(at, "unknown key %q%s; known keys: %s", key, inside(path), strings.Join(sorted(known), ", "))
			}
			if w.seen[path][key] {
				return w.errorf(at, "key %q appears twice%s", key, inside(path))
			}
			w.seen[path][key] = true
			if err := w.value(join(path, key)); err != nil {
				return err
			}
		}
		return w.close()
	case json.Delim('['):
		for i := 0; w.dec.More(); i++ {
			if err := w.value(fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return w.close()
	}
	return nil
}

// close reads the delimiter that ends an object or a list.
func (w *walker) close() error {
	at := w.next()
	if _, err := w.dec.Token(); err != nil {
		return w.syntax(err, at)
	}
	return nil
}

// missing reports the required keys the plan lacks, all at once.
func (w *walker) missing() error {
	var lines []string
	for _, path := range sorted(keys()) {
		seen, ok := w.seen[path]
		if !ok {
			continue // an absent or null object: its own key is checked above it
		}
		for _, k := range sorted(keys()[path]) {
			if keys()[path][k] && !seen[k] {
				lines = append(lines, fmt.Sprintf("%q%s", k, inside(path)))
			}
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return w.errorf(w.at[""], "missing key %s; build the backend again to rewrite the plan", strings.Join(lines, ", "))
}

// valueBefore is the start of the value the decoder was reading when it
// stopped at off: the last one that starts before it.
func (w *walker) valueBefore(off int) int {
	i := sort.SearchInts(w.starts, off)
	if i == 0 {
		return 0
	}
	return w.starts[i-1]
}

func (w *walker) syntax(err error, at int) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return w.errorf(int(se.Offset), "JSON syntax: %s", strings.TrimPrefix(se.Error(), "json: "))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return w.errorf(len(w.data), "the file ends inside the plan (cut short?); build the backend again to rewrite it")
	}
	return fmt.Errorf("%s: %v", w.file, err)
}

// errorf places msg at byte offset off of the file, as file:line:col.
func (w *walker) errorf(off int, format string, args ...any) error {
	off = min(off, len(w.data))
	line := 1 + bytes.Count(w.data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(w.data[:off], '\n')
	return fmt.Errorf("%s:%d:%d: %s", w.file, line, col, fmt.Sprintf(format, args...))
}

func describe(c byte) string {
	switch {
	case c == '[':
		return "a list"
	case c == '"':
		return "a string"
	case c >= '0' && c <= '9' || c == '-':
		return "a number"
	}
	return fmt.Sprintf("%q", c)
}

// goWords says a Go type of the plan in words.
func goWords(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(goWords(t.Elem()), "a ") + "s"
	case reflect.Map:
		return "an object of " + strings.TrimPrefix(goWords(t.Elem()), "a ") + "s"
	case reflect.Pointer:
		return goWords(t.Elem())
	case reflect.Struct:
		return "an object"
	}
	return t.String()
}

func inside(path string) string {
	if path == "" {
		return ""
	}
	return " in " + path
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func sorted[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
