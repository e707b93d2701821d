package configs

import (
	"math"
	"reflect"
	"sort"
	"strconv"
	"unicode/utf8"
)

// specJSON writes a spec's JSON byte for byte as encoding/json's Marshal
// does, for the kinds spec types are made of: structs of plain fields,
// pointers, slices, string-keyed maps, strings, numbers and bools. It
// exists for the stamp's fingerprint of a spec that is not a pure built-in
// (a project's override merged in): Marshal's first call in a process
// builds and caches an encoder for every type it meets, and a run of
// mlxbuild marshals a spec once, so that set-up was most of its cost. ok is
// false when v holds anything else (an embedded or JSON-named field, an
// interface, a byte slice, an array, a NaN): the caller then asks
// encoding/json. Types with their own MarshalJSON or MarshalText are not
// looked for here (reflect.PointerTo, needed for pointer methods, costs
// more than the rest of the walk): a test walks every type a Spec is
// made of and fails when one has such a method.
func specJSON(s *Spec) (data []byte, ok bool) {
	w := jsonWriter{buf: make([]byte, 0, 8192)}
	if !w.value(reflect.ValueOf(s)) {
		return nil, false
	}
	return w.buf, true
}

type jsonWriter struct {
	buf []byte
	// fields caches each struct type's plan: a run writes many values of
	// few types (Lib, Define, Pos), and reflect's Field is not free.
	fields map[reflect.Type][]jsonField
}

// jsonField is one field Marshal writes: its index and its key, quoted,
// with the colon.
type jsonField struct {
	index int
	key   []byte
}

func (w *jsonWriter) value(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		w.buf = appendJSONString(w.buf, v.String())
	case reflect.Bool:
		w.buf = strconv.AppendBool(w.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.buf = strconv.AppendInt(w.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.buf = strconv.AppendUint(w.buf, v.Uint(), 10)
	case reflect.Float64:
		return w.float(v.Float())
	case reflect.Pointer:
		if v.IsNil() {
			w.buf = append(w.buf, "null"...)
			return true
		}
		return w.value(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			w.buf = append(w.buf, "null"...)
			return true
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return false // Marshal writes base64
		}
		w.buf = append(w.buf, '[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			if !w.value(v.Index(i)) {
				return false
			}
		}
		w.buf = append(w.buf, ']')
	case reflect.Map:
		return w.mapValue(v)
	case reflect.Struct:
		return w.structValue(v)
	default:
		return false
	}
	return true
}

// structValue writes the exported fields in declaration order under their
// Go names, which is Marshal's order when no field is embedded or renamed.
func (w *jsonWriter) structValue(v reflect.Value) bool {
	plan, ok := w.plan(v.Type())
	if !ok {
		return false
	}
	w.buf = append(w.buf, '{')
	for i, f := range plan {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = append(w.buf, f.key...)
		if !w.value(v.Field(f.index)) {
			return false
		}
	}
	w.buf = append(w.buf, '}')
	return true
}

// plan lists the fields of t that Marshal writes; ok is false when t has
// a field whose key Marshal would choose otherwise (embedded, or named or
// optioned by a json tag).
func (w *jsonWriter) plan(t reflect.Type) ([]jsonField, bool) {
	if p, ok := w.fields[t]; ok {
		return p, p != nil
	}
	p := []jsonField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			p = nil
			break
		}
		if !f.IsExported() {
			continue
		}
		if tag, ok := f.Tag.Lookup("json"); ok {
			if tag == "-" {
				continue
			}
			p = nil // a name or an option such as omitempty
			break
		}
		p = append(p, jsonField{i, append(appendJSONString(nil, f.Name), ':')})
	}
	if w.fields == nil {
		w.fields = map[reflect.Type][]jsonField{}
	}
	w.fields[t] = p
	return p, p != nil
}

// mapValue writes a string-keyed map with its keys sorted, as Marshal does.
func (w *jsonWriter) mapValue(v reflect.Value) bool {
	if v.Type().Key().Kind() != reflect.String {
		return false
	}
	if v.IsNil() {
		w.buf = append(w.buf, "null"...)
		return true
	}
	keys := make([]string, 0, v.Len())
	vals := make(map[string]reflect.Value, v.Len())
	for it := v.MapRange(); it.Next(); {
		k := it.Key().String()
		keys = append(keys, k)
		vals[k] = it.Value()
	}
	sort.Strings(keys)
	w.buf = append(w.buf, '{')
	for i, k := range keys {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = appendJSONString(w.buf, k)
		w.buf = append(w.buf, ':')
		if !w.value(vals[k]) {
			return false
		}
	}
	w.buf = append(w.buf, '}')
	return true
}

// float is Marshal's float64: ES6 number formatting, exponents unpadded;
// NaN and infinities are Marshal's error, so it decides.
func (w *jsonWriter) float(f float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	w.buf = strconv.AppendFloat(w.buf, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9
		if n := len(w.buf); n >= 4 && w.buf[n-4] == 'e' && w.buf[n-3] == '-' && w.buf[n-2] == '0' {
			w.buf[n-2] = w.buf[n-1]
			w.buf = w.buf[:n-1]
		}
	}
	return true
}

// appendJSONString quotes s as Marshal does (its HTML escaping included):
// ", \ and control characters escaped, <, > and & as \u003c \u003e
// \u0026, U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
