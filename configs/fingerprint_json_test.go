package configs

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// specsToHash are the specs a stamp fingerprints: each built-in as parsed,
// merged with the example project's overrides, and every spec fixture that
// parses.
func specsToHash(t testing.TB) map[string]*Spec {
	out := map[string]*Spec{}
	merged := 0
	for _, name := range Names {
		s, err := parseEmbedded(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = s
		over := filepath.Join("..", "examples", "minimlx", name+".yaml")
		if data, err := os.ReadFile(over); err == nil {
			o, err := parseOverride(over, data)
			if err != nil {
				t.Fatal(err)
			}
			out[name+"+"+over] = Merge(s, o)
			merged++
		}
	}
	files, _ := filepath.Glob("testdata/spec/*.yaml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if s, err := parseWholeSpec(f, data); err == nil {
			out[f] = s
		}
	}
	if merged == 0 {
		t.Fatal("no example override to merge: examples/minimlx/*.yaml are missing")
	}
	odd := Merge(out["rocm"], &Spec{Description: "<b>&\u2028\n\x01\xff", Constraints: map[string]string{"a\"": "<x>", "Z": ""}})
	odd.Jobs.MemoryPerJobGiB = 1e-9
	out["rocm with odd values"] = odd
	return out
}

// TestSpecJSONIsMarshal: the fingerprint's JSON must be Marshal's byte for
// byte, or every cache stamped by an earlier mlxbuild rebuilds; and the
// specs mlxbuild hashes must take the fast path, or the speed-up is gone.
func TestSpecJSONIsMarshal(t *testing.T) {
	for name, s := range specsToHash(t) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := specJSON(s)
		if !ok {
			t.Errorf("%s: specJSON left the spec to encoding/json", name)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: specJSON differs from json.Marshal:\n%s\n%s", name, got, want)
		}
	}
}

// TestSpecJSONLeavesTheRestToMarshal: every value it does not write as
// Marshal does, it refuses.
func TestSpecJSONLeavesTheRestToMarshal(t *testing.T) {
	type embedded struct{ A int }
	cases := map[string]any{
		"embedded field": struct{ embedded }{},
		"renamed field": struct {
			A int `json:"a"`
		}{},
		"omitempty": struct {
			A int `json:",omitempty"`
		}{},
		"interface":  struct{ A any }{1},
		"byte slice": []byte("x"),
		"array":      [1]int{},
		"NaN":        math.NaN(),
		"float32":    float32(1),
		"int keys":   map[int]string{1: "a"},
	}
	for name, v := range cases {
		w := jsonWriter{}
		if w.value(reflect.ValueOf(v)) {
			t.Errorf("%s: written as %s, want a refusal", name, w.buf)
		}
	}
	s, err := parseEmbedded("cuda")
	if err != nil {
		t.Fatal(err)
	}
	s.Jobs.MemoryPerJobGiB = math.Inf(1)
	data, _ := json.Marshal(s)
	if _, ok := specJSON(s); ok {
		t.Fatal("specJSON wrote an infinity, which Marshal refuses")
	}
	if sum := sha256.Sum256(data); hashSpec(s) != hex.EncodeToString(sum[:8]) {
		t.Fatal("hashSpec of a spec specJSON refuses is not the hash of Marshal's output")
	}
}

// TestSpecTypesHaveNoMarshalers: specJSON writes a value by its kind, so
// no type a Spec is made of may marshal itself.
func TestSpecTypesHaveNoMarshalers(t *testing.T) {
	if got := marshalerTypes(reflect.TypeFor[Spec]()); len(got) > 0 {
		t.Fatalf("%v marshal themselves: teach specJSON to call them, or hash with json.Marshal", got)
	}
	type withTime struct{ T []*time.Time }
	if got := marshalerTypes(reflect.TypeFor[withTime]()); len(got) != 1 || got[0] != "*time.Time" {
		t.Fatalf("marshalerTypes missed time.Time: %v", got)
	}
}

// marshalerTypes are the types reachable from t that have a MarshalJSON or
// MarshalText method, on the value or the pointer.
func marshalerTypes(t reflect.Type) []string {
	marshalers := []reflect.Type{reflect.TypeFor[json.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()}
	seen := map[reflect.Type]bool{}
	var out []string
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		for _, m := range marshalers {
			if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
				out = append(out, t.String())
				return
			}
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				if f := t.Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
					walk(f.Type)
				}
			}
		}
	}
	walk(t)
	return out
}

// TestSpecJSONNumbers covers the number forms Marshal writes.
func TestSpecJSONNumbers(t *testing.T) {
	for _, f := range []float64{0, 5, 0.5, -2.25, 1e-7, 1.5e-300, 1e21, 123456789e20, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		w := jsonWriter{}
		want, _ := json.Marshal(f)
		if !w.value(reflect.ValueOf(f)) || string(w.buf) != string(want) {
			t.Errorf("%v: wrote %s, Marshal %s", f, w.buf, want)
		}
	}
	for _, v := range []any{-7, uint8(200), uint64(math.MaxUint64), true, map[string]int(nil), []string(nil), []string{}, (*Spec)(nil)} {
		w := jsonWriter{}
		want, _ := json.Marshal(v)
		if !w.value(reflect.ValueOf(v)) || string(w.buf) != string(want) {
			t.Errorf("%#v: wrote %s, Marshal %s", v, w.buf, want)
		}
	}
}

// FuzzJSONString: strings are most of a spec's JSON; any text must quote
// as Marshal quotes it.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "\x00\x1f\b\f\n\r\t\x7f", "<a href='x'>&</a>", "\u2028\u2029", "\xff\xfe", "é€😀", ">= 6.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: wrote %s, Marshal %s", s, got, want)
		}
	})
}

// FuzzSpecJSON: any spec the loader accepts writes as Marshal writes it.
func FuzzSpecJSON(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseOverride("fuzz.yaml", data)
		if err != nil {
			return
		}
		want, err := json.Marshal(s)
		got, ok := specJSON(s)
		if ok && (err != nil || !bytes.Equal(got, want)) {
			t.Fatalf("specJSON wrote\n%s\nMarshal\n%s (%v)", got, want, err)
		}
	})
}
