package cmake

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestParseManifest holds the manifest reader to what each statement
// means for a record: includes found, and each way a graph makes Ninja
// read more than its nodes refused.
func TestParseManifest(t *testing.T) {
	cases := []struct {
		name, text string
		includes   []string
		refuse     string // a word the refusal holds; "" for none
	}{
		{"CMake's shape", "ninja_required_version = 1.5\ninclude CMakeFiles/rules.ninja\nbuild a.o: CXX_COMPILER__mlx_Release a.cpp || cmake_object_order_depends_target_mlx\n  DEP_FILE = a.o.d\n  FLAGS = -O2\nrule CXX_COMPILER__mlx_Release\n  depfile = $DEP_FILE\n  deps = gcc\n  command = c++ $FLAGS -c $in -o $out\nbuild all: phony a.o\ndefault all\n", []string{"CMakeFiles/rules.ninja"}, ""},
		{"a comment and a continued line", "# include no.ninja\nbuild out$:x: cp $\n    in\nsubninja sub.ninja\n", []string{"sub.ninja"}, ""},
		{"an escaped dollar before a newline ends the line", "x = a$$\ninclude b.ninja\n", []string{"b.ninja"}, ""},
		{"a depfile without deps", "rule cc\n  depfile = $out.d\n  command = cc\nbuild a.o: cc a.c\n", nil, "depfile"},
		{"a depfile on the edge", "rule cc\n  command = cc\nbuild a.o: cc a.c\n  depfile = a.d\n", nil, "depfile"},
		{"the edge clears the rule's deps", "rule cc\n  depfile = $out.d\n  deps = gcc\nbuild a.o: cc a.c\n  deps =\n", nil, "depfile"},
		{"deps from a variable", "rule cc\n  depfile = $out.d\n  deps = $kind\nbuild a.o: cc a.c\n", nil, "plain value"},
		{"dyndep", "rule cc\n  command = cc\nbuild a.o: cc a.c\n  dyndep = a.dd\n", nil, "dyndep"},
		{"builddir", "builddir = out\nbuild a: phony\n", nil, "builddir"},
		{"depfile at file scope", "depfile = x.d\nrule cc\n  command = cc\nbuild a.o: cc a.c\n", nil, "top level"},
		{"an include through a variable", "d = sub\ninclude $d/rules.ninja\n", nil, "plain path"},
		{"a rule defined twice, differently", "rule cc\n  deps = gcc\nrule cc\n  deps = msvc\n", nil, "twice"},
		{"a build statement without a rule", "build a.o b.o\n", nil, "build statement"},
		{"a binding without a key", "rule cc\n  = x\n", nil, "binding"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := parseManifest([]byte(c.text))
			if m.refuse == "" {
				m.refuse = depfileRefusal(m.rules, m.edges)
			}
			if c.refuse == "" && m.refuse != "" || c.refuse != "" && !strings.Contains(m.refuse, c.refuse) {
				t.Errorf("refuse = %q, want one with %q", m.refuse, c.refuse)
			}
			if c.refuse == "" && !slices.Equal(m.includes, c.includes) {
				t.Errorf("includes = %q, want %q", m.includes, c.includes)
			}
			if c.refuse == "" && c.name != "a comment and a continued line" {
				// An edge's depfile must be read through its rule.
				for _, e := range m.edges {
					if e.rule == "" {
						t.Errorf("an edge without a rule: %+v", e)
					}
				}
			}
		})
	}
}

// TestScanManifestsFollowsIncludes: the rules of an included file decide
// for the edges of the including one, and every manifest is listed.
func TestScanManifestsFollowsIncludes(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "build.ninja"), "include rules.ninja\nbuild a.o: cc a.c\nsubninja sub/more.ninja\n")
	testutil.WriteFile(t, filepath.Join(dir, "rules.ninja"), "rule cc\n  command = cc\n  depfile = $out.d\n  deps = gcc\n")
	testutil.WriteFile(t, filepath.Join(dir, "sub", "more.ninja"), "build b.o: cc b.c\n")
	s, err := scanManifests(dir)
	if err != nil || s.refuse != "" || !slices.Equal(s.files, []string{"build.ninja", "rules.ninja", "sub/more.ninja"}) {
		t.Fatalf("scan = %+v, %v", s, err)
	}
	testutil.WriteFile(t, filepath.Join(dir, "rules.ninja"), "rule cc\n  command = cc\n  depfile = $out.d\n")
	if s, err := scanManifests(dir); err != nil || !strings.Contains(s.refuse, "depfile") {
		t.Errorf("with the rule's deps gone: %+v, %v", s, err)
	}
	testutil.WriteFile(t, filepath.Join(dir, "build.ninja"), "include missing.ninja\n")
	if _, err := scanManifests(dir); err == nil || !strings.Contains(err.Error(), "missing.ninja") {
		t.Errorf("a missing include: %v", err)
	}
}

// FuzzParseManifest: any text is read without a panic; an include it
// accepts is a plain path, and every edge it accepts names its rule.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte("include CMakeFiles/rules.ninja\nbuild a.o: cc a.c\n  DEP_FILE = a.o.d\n"))
	f.Add([]byte("rule cc\n  depfile = $out.d\n  deps = gcc\nbuild a$ b: cc $\n  c\n"))
	f.Add([]byte("x = $$\r\ndyndep = y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := parseManifest(data)
		if m.refuse != "" {
			return
		}
		_ = depfileRefusal(m.rules, m.edges)
		for _, e := range m.edges {
			if e.rule == "" || strings.ContainsAny(e.rule, " $|") {
				t.Fatalf("edge rule %q accepted", e.rule)
			}
		}
		for _, inc := range m.includes {
			if inc == "" || strings.Contains(inc, "$") {
				t.Fatalf("include %q accepted", inc)
			}
		}
	})
}
