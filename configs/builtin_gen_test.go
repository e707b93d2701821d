package configs

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestBuiltinGenIsCurrent fails when a YAML file or a Spec type changed
// and builtin_gen.go was not regenerated.
func TestBuiltinGenIsCurrent(t *testing.T) {
	src, err := builtinSource()
	if err != nil {
		t.Fatal(err)
	}
	want, err := format.Source(src)
	if err != nil {
		t.Fatalf("the generated source does not format: %v", err)
	}
	got, err := os.ReadFile("builtin_gen.go")
	if err != nil {
		t.Fatalf("%v: run %s", err, generateCommand)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("configs/builtin_gen.go is stale (%s): run %s", firstLineDiff(got, want), generateCommand)
	}
}

// TestGeneratorWritesTheCommittedFile runs the generator as go generate
// does, with the tag that leaves builtin_gen.go out of its build.
func TestGeneratorWritesTheCommittedFile(t *testing.T) {
	testutil.NeedTools(t, "go")
	out := filepath.Join(t.TempDir(), "builtin_gen.go")
	testutil.RunOK(t, nil, "", "go", "run", "-tags", "specgen", "../internal/specgen", "-o", out)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("builtin_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Fatalf("the generator's output differs from configs/builtin_gen.go (%s): run %s", firstLineDiff(committed, got), generateCommand)
	}
}

// TestGeneratedSpecsEqualTheParsedYAML compiles the generator's literals
// against the parser: each generated spec, and what Builtin returns, must
// be what parsing the embedded YAML gives, positions and origins included,
// with the fingerprint of the parsed one.
func TestGeneratedSpecsEqualTheParsedYAML(t *testing.T) {
	for _, name := range Names {
		parsed, err := parseEmbedded(name)
		if err != nil {
			t.Fatal(err)
		}
		gen, sum, ok := generated(name)
		if !ok {
			t.Fatalf("builtin_gen.go has no %s: run %s", name, generateCommand)
		}
		if d := firstDiff(reflect.ValueOf(gen), reflect.ValueOf(parsed), "Spec"); d != "" {
			t.Errorf("configs/%s.yaml: the generated spec differs from the parsed one at %s: run %s", name, d, generateCommand)
		}
		if want := hashSpec(parsed); sum != want {
			t.Errorf("configs/%s.yaml: generated fingerprint %s, parsed %s: run %s", name, sum, want, generateCommand)
		}
		b, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		if b.Fingerprint() != hashSpec(parsed) {
			t.Errorf("Builtin(%q).Fingerprint() = %s, want %s", name, b.Fingerprint(), hashSpec(parsed))
		}
		b.memo = fingerprintMemo{}
		if d := firstDiff(reflect.ValueOf(b), reflect.ValueOf(parsed), "Spec"); d != "" {
			t.Errorf("Builtin(%q) differs from the parsed YAML at %s", name, d)
		}
	}
}

// TestBuiltinReturnsAFreshSpec: callers merge into and change what Builtin
// returns, so no two calls may share anything.
func TestBuiltinReturnsAFreshSpec(t *testing.T) {
	for _, name := range Names {
		want, _, ok := generated(name)
		if !ok {
			t.Fatalf("builtin_gen.go has no %s: run %s", name, generateCommand)
		}
		first, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		mutateEverything(reflect.ValueOf(first))
		if firstDiff(reflect.ValueOf(first), reflect.ValueOf(want), "Spec") == "" {
			t.Fatal("mutateEverything changed nothing")
		}
		second, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		second.memo = fingerprintMemo{}
		if d := firstDiff(reflect.ValueOf(second), reflect.ValueOf(want), "Spec"); d != "" {
			t.Fatalf("changing one Builtin(%q) changed the next one at %s", name, d)
		}
	}
}

// TestFingerprintOfAChangedSpecIsRecomputed: the generated fingerprint
// holds only for the Spec Builtin returned, not for a copy that changed or
// a merge.
func TestFingerprintOfAChangedSpecIsRecomputed(t *testing.T) {
	base, err := Builtin("rocm")
	if err != nil {
		t.Fatal(err)
	}
	c := *base
	c.Description = "changed"
	if c.Fingerprint() == base.Fingerprint() || c.Fingerprint() != hashSpec(&c) {
		t.Fatalf("a changed copy kept the built-in fingerprint %s", base.Fingerprint())
	}
	over := &Spec{Triggers: triggers{Env: []string{"EXTRA"}}}
	merged := Merge(base, over)
	if merged.Fingerprint() != hashSpec(merged) || merged.Fingerprint() == base.Fingerprint() {
		t.Fatalf("a merged spec has fingerprint %s, want %s", merged.Fingerprint(), hashSpec(merged))
	}
}

// mutateEverything changes every string, number and bool reachable from v
// and adds a key to every map, so any sharing shows.
func mutateEverything(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			mutateEverything(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).Type == reflect.TypeOf(fingerprintMemo{}) {
				continue // the memo points back at the spec
			}
			if f := v.Field(i); f.CanSet() {
				mutateEverything(f)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			mutateEverything(v.Index(i))
		}
	case reflect.Map:
		if !v.IsNil() {
			for _, k := range v.MapKeys() {
				v.SetMapIndex(k, reflect.ValueOf("changed").Convert(v.Type().Elem()))
			}
			v.SetMapIndex(reflect.ValueOf("added").Convert(v.Type().Key()), reflect.Zero(v.Type().Elem()))
		}
	case reflect.String:
		v.SetString(v.String() + "!")
	case reflect.Int:
		v.SetInt(v.Int() + 1)
	case reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	}
}

// firstDiff is the path of the first place a and b differ, or "".
func firstDiff(a, b reflect.Value, path string) string {
	if a.Kind() != b.Kind() {
		return path
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + " (nil on one side)"
			}
			return ""
		}
		return firstDiff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if d := firstDiff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s (length %d, nil %v vs length %d, nil %v)", path, a.Len(), a.IsNil(), b.Len(), b.IsNil())
		}
		for i := 0; i < a.Len(); i++ {
			if d := firstDiff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	// Maps and scalars: DeepEqual says whether, the path says where.
	if a.CanInterface() && b.CanInterface() {
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return fmt.Sprintf("%s (%v vs %v)", path, a, b)
		}
		return ""
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		return fmt.Sprintf("%s (%v vs %v)", path, a, b)
	}
	return ""
}

// firstLineDiff names the first line where got and want differ.
func firstLineDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d is %q, the specs give %q", i+1, strings.TrimSpace(g[i]), strings.TrimSpace(w[i]))
		}
	}
	return fmt.Sprintf("%d lines, the specs give %d", len(g), len(w))
}
