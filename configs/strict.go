package configs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"

	"go.yaml.in/yaml/v3"
)

// The strict decoder walks a yaml.Node tree next to a Go type, because
// yaml.v3's KnownFields reports neither the column nor the file, stops at the
// first problem and names Go types. Struct fields are matched by their yaml
// tag; a `required:"true"` tag makes a key mandatory; a field of type Pos is
// filled with the position of the mapping that holds it.

// maxNodes bounds the work done on one document, so aliases that expand
// exponentially ("billion laughs") end with a problem, not a hang.
const maxNodes = 20000

var posType = reflect.TypeOf(Pos{})

type decoder struct {
	file  string
	probs *problems
	nodes int
	at    map[string]Pos // key path -> position of its value, for later checks
	// partial skips required-key checks: an override that extends a spec
	// names only what it changes.
	partial bool
}

// decodeFile parses data as exactly one YAML document and decodes it
// strictly into v (a pointer to a struct). It returns where each key path's
// value stands, so checks after decoding can point at it.
func decodeFile(file string, data []byte, v any, probs *problems, partial bool) map[string]Pos {
	d := &decoder{file: file, probs: probs, at: map[string]Pos{}, partial: partial}
	if pos, b, bad := firstInvalidUTF8(data); bad {
		// yaml.v3 reports these at line 1 whatever their place.
		probs.add(Pos{File: file, Line: pos.Line, Col: pos.Col}, "byte 0x%02x is not UTF-8; save the file as UTF-8", b)
		return d.at
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			probs.add(Pos{File: file, Line: 1, Col: 1}, "the file is empty; it needs at least the required keys")
			return d.at
		}
		d.syntax(err)
		return d.at
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		probs.add(d.pos(&extra), "a second YAML document (after ---) is not allowed; keep one document per file")
	} else if !errors.Is(err, io.EOF) {
		d.syntax(err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			probs.add(Pos{File: file, Line: 1, Col: 1}, "the file is empty; it needs at least the required keys")
			return d.at
		}
		root = root.Content[0]
	}
	d.decode(root, reflect.ValueOf(v).Elem(), "")
	return d.at
}

// firstInvalidUTF8 finds the first byte of data that is not UTF-8 and its
// line and column (1-based; the column counts characters, as yaml.v3's do).
func firstInvalidUTF8(data []byte) (Pos, byte, bool) {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return Pos{Line: line, Col: col}, data[i], true
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += n
	}
	return Pos{}, 0, false
}

var yamlLine = lazyregexp.New(`^yaml: line (\d+): (.*)$`)

// syntax turns a yaml.v3 parse error into a positioned problem.
func (d *decoder) syntax(err error) {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		d.probs.add(Pos{File: d.file, Line: line, Col: 1}, "YAML syntax: %s", m[2])
		return
	}
	d.probs.add(Pos{File: d.file, Line: 1, Col: 1}, "YAML syntax: %s", strings.TrimPrefix(msg, "yaml: "))
}

func (d *decoder) pos(n *yaml.Node) Pos { return Pos{File: d.file, Line: n.Line, Col: n.Column} }

// where names a key path for messages: `in "link.dynamic[2]"`.
func where(path string) string {
	if path == "" {
		return "at the top level"
	}
	return fmt.Sprintf("in %q", path)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// exhausted reports that the node budget is spent; loops stop at once so
// a wide list of aliases cannot multiply the work.
func (d *decoder) exhausted() bool { return d.nodes > maxNodes }

func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	d.nodes++
	if d.nodes > maxNodes {
		if d.nodes == maxNodes+1 {
			d.probs.add(d.pos(n), "the document is too large or its aliases expand too far (more than %d values)", maxNodes)
		}
		return
	}
	if _, ok := d.at[path]; !ok {
		d.at[path] = d.pos(n)
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return
		}
		d.decode(n.Alias, v, path)
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" && v.Kind() != reflect.String {
		// An empty value ("key:") leaves the zero value, as yaml.v3 does.
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, v.Elem(), path)
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.Map:
		d.decodeMap(n, v, path)
	case reflect.Slice:
		d.decodeSlice(n, v, path)
	case reflect.String:
		if s, ok := d.scalar(n, "!!str", "a string", path); ok {
			v.SetString(s)
		}
	case reflect.Bool:
		if s, ok := d.scalar(n, "!!bool", "true or false", path); ok {
			var b bool
			_ = n.Decode(&b)
			_ = s
			v.SetBool(b)
		}
	case reflect.Int, reflect.Int64:
		if _, ok := d.scalar(n, "!!int", "a whole number", path); ok {
			var i int64
			if err := n.Decode(&i); err != nil {
				d.probs.add(d.pos(n), "%s must be a whole number", describe(path))
				return
			}
			v.SetInt(i)
		}
	case reflect.Float64:
		if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
			var f float64
			if err := n.Decode(&f); err == nil {
				v.SetFloat(f)
				return
			}
		}
		d.probs.add(d.pos(n), "%s must be a number, not %s", describe(path), kindWords(n))
	default:
		panic(fmt.Sprintf("strict decoder: unsupported kind %s at %s", v.Kind(), path))
	}
}

func describe(path string) string {
	if path == "" {
		return "the document"
	}
	return fmt.Sprintf("%q", path)
}

// kindWords says what a node is in plain words, for type errors.
func kindWords(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping (key: value lines)"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!int", "!!float":
			return "a number (" + n.Value + ")"
		case "!!bool":
			return "true/false (" + n.Value + ")"
		case "!!null":
			return "empty"
		case "!!str":
			return fmt.Sprintf("the text %q", short(n.Value))
		}
		return "a value of type " + strings.TrimPrefix(n.Tag, "!!")
	}
	return "something else"
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// scalar checks n is a scalar with the wanted tag. Strings are strict on
// purpose: `pin: 1234` or `value: on` would silently change meaning.
func (d *decoder) scalar(n *yaml.Node, tag, words, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		d.probs.add(d.pos(n), "%s must be %s, not %s", describe(path), words, kindWords(n))
		return "", false
	}
	if n.Tag != tag {
		hint := ""
		if tag == "!!str" {
			hint = fmt.Sprintf(`; quote it ("%s") if you mean the text`, n.Value)
		}
		d.probs.add(d.pos(n), "%s must be %s, not %s%s", describe(path), words, kindWords(n), hint)
		return "", false
	}
	return n.Value, true
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.probs.add(d.pos(n), "%s must be a mapping (key: value lines), not %s", describe(path), kindWords(n))
		return
	}
	fields := map[string]reflect.Value{}
	var names, required []string
	d.structFields(v, d.pos(n), fields, &names, &required)
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content) && !d.exhausted(); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.probs.add(d.pos(k), "keys %s must be plain words, not %s", where(path), kindWords(k))
			continue
		}
		field, ok := fields[k.Value]
		if !ok {
			msg := fmt.Sprintf("unknown key %q %s", k.Value, where(path))
			if s := suggest(k.Value, names); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			} else {
				sort.Strings(names)
				msg += "; known keys: " + strings.Join(names, ", ")
			}
			d.probs.add(d.pos(k), "%s", msg)
			continue
		}
		if seen[k.Value] {
			d.probs.add(d.pos(k), "key %q appears twice %s", k.Value, where(path))
			continue
		}
		seen[k.Value] = true
		d.decode(val, field, join(path, k.Value))
	}
	for _, name := range required {
		if !d.partial && !seen[name] {
			d.probs.add(d.pos(n), "missing required key %q %s", name, where(path))
		}
	}
}

// structFields maps the keys of struct v to its fields, in order, and
// fills every Pos field with at. An embedded struct tagged `yaml:",inline"`
// gives its keys to the mapping that holds it, as yaml.v3 does, so fields
// that several sections share are declared once.
func (d *decoder) structFields(v reflect.Value, at Pos, fields map[string]reflect.Value, names, required *[]string) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		switch {
		case f.Type == posType:
			v.Field(i).Set(reflect.ValueOf(at))
			continue
		case f.Anonymous && f.Type.Kind() == reflect.Struct && tag == ",inline":
			d.structFields(v.Field(i), at, fields, names, required)
			continue
		}
		name := strings.Split(tag, ",")[0]
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fields[name] = v.Field(i)
		*names = append(*names, name)
		if f.Tag.Get("required") == "true" {
			*required = append(*required, name)
		}
	}
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.probs.add(d.pos(n), "%s must be a mapping (key: value lines), not %s", describe(path), kindWords(n))
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	for i := 0; i+1 < len(n.Content) && !d.exhausted(); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
			d.probs.add(d.pos(k), "keys %s must be plain words, not %s", where(path), kindWords(k))
			continue
		}
		if v.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
			d.probs.add(d.pos(k), "key %q appears twice %s", k.Value, where(path))
			continue
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		d.decode(val, elem, join(path, k.Value))
		v.SetMapIndex(reflect.ValueOf(k.Value), elem)
	}
}

func (d *decoder) decodeSlice(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.probs.add(d.pos(n), "%s must be a list, not %s", describe(path), kindWords(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, c := range n.Content {
		if d.exhausted() {
			break
		}
		d.decode(c, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
	}
	v.Set(s)
}
