package layout

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// publicAPI are the packages mlxbuild promises to parent repositories: the
// Mage targets, and the reader of the link plan a build leaves in out/.
// Their exported names are the promise, used inside the module or not.
var publicAPI = []string{"targets", "backends/linkplan"}

// ownAPI is what the doc comment of every other public package says, so a
// parent repository's author reading it in the editor knows not to import it.
const ownAPI = "mlxbuild's own API, not supported for parent repositories"

// unneeded are the exported names of s that nothing justifies: no other
// package uses them, they implement no interface and no decoder reads them,
// and they are not part of the public API.
func unneeded(s *surface) []*exported {
	var out []*exported
	for _, x := range s.names {
		if len(x.usedBy) == 0 && x.kept == "" && !slices.ContainsFunc(publicAPI, func(p string) bool { return x.pkg == p }) {
			out = append(out, x)
		}
	}
	return out
}

// undocumented are the public packages of s, other than the public API,
// whose doc comment does not say they are mlxbuild's own.
func undocumented(s *surface) []string {
	var out []string
	for pkg, doc := range s.docs {
		own := strings.Contains(strings.Join(strings.Fields(doc), " "), ownAPI)
		if own == slices.Contains(publicAPI, pkg) {
			out = append(out, pkg)
		}
	}
	slices.Sort(out)
	return out
}

var loaded *surface

// moduleSurface loads this module's surface once for the tests that read it.
func moduleSurface(t *testing.T) *surface {
	if loaded == nil {
		loaded = loadSurface(t, filepath.Join("..", ".."), module)
	}
	return loaded
}

// TestRoomsExportOnlyWhatOtherPackagesUse keeps the surface from growing
// back: a name exported by configs/, backends/, arch/, overlays/ or cache/
// that no other package of the module uses is unexported, unless it
// implements an interface (error, fmt.Stringer, yaml.Unmarshaler, the
// errors package's Unwrap, ...) or is a field that a decoder or encoder
// reads by reflection (its struct has yaml/json tags or goes through
// encoding/json). MLXBUILD_SURFACE_REPORT=FILE writes the whole list.
func TestRoomsExportOnlyWhatOtherPackagesUse(t *testing.T) {
	testutil.NeedTools(t, "go")
	s := moduleSurface(t)
	if out := os.Getenv("MLXBUILD_SURFACE_REPORT"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		s.report(f)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, must := range []string{"configs", "backends", "backends/linkplan", "arch", "overlays", "overlays/records", "overlays/forksync", "cache", "targets"} {
		if _, ok := s.docs[must]; !ok {
			t.Fatalf("package %s not loaded: the surface walk is broken", must)
		}
	}
	for _, x := range unneeded(s) {
		t.Errorf("%s: %s.%s (%s) is exported but no other package uses it: unexport it (targets/ and backends/linkplan are the public API)", x.pos, x.pkg, x.name, x.kind)
	}
	all, used, kept, unused := s.counts()
	t.Logf("%d exported names: %d used by another package, %d kept for a reason, %d unused (the public API's)", all, used, kept, unused)
}

// TestRoomsSayTheyAreNotForParents: every public package but targets/ and
// backends/linkplan says in its doc comment that it is mlxbuild's own API;
// those two must not say so.
func TestRoomsSayTheyAreNotForParents(t *testing.T) {
	testutil.NeedTools(t, "go")
	s := moduleSurface(t)
	for _, pkg := range undocumented(s) {
		if slices.Contains(publicAPI, pkg) {
			t.Errorf("%s is the public API, yet its package doc says %q", pkg, ownAPI)
		} else {
			t.Errorf("%s: its package doc does not say it is %s; add that sentence, naming targets and backends/linkplan", pkg, ownAPI)
		}
	}
}

// TestSurfaceRulesCatchViolations runs both rules on a stand-in module
// that breaks each, so neither can pass by seeing nothing.
func TestSurfaceRulesCatchViolations(t *testing.T) {
	testutil.NeedTools(t, "go")
	root := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"room/room.go": `// Package room is a room. It is ` + ownAPI + `.
package room

import "encoding/json"

// Used is called by user.
func Used() {}

// Unused is called by nobody else.
func Unused() {}

// T is used by user, and Field through it.
type T struct {
	Field  int
	Lonely int
}

// String makes T a fmt.Stringer.
func (T) String() string { return "t" }

// Solo is a method only room's own test calls.
func (T) Solo() {}

// E is an error that wraps another.
type E struct{ Err error }

func (e *E) Error() string { return "e" }
func (e *E) Unwrap() error { return e.Err }

// Tagged is decoded by reflection.
type Tagged struct {
	Key string ` + "`json:\"key\"`" + `
}

// Encoded has no tags but goes through encoding/json.
type Encoded struct{ Plain int }

func write() ([]byte, error) { return json.Marshal(Encoded{}) }

// OnlyTests is used by user's test only.
var OnlyTests = 1
`,
		"room/room_test.go":  "package room\n\nimport \"testing\"\n\nfunc TestSolo(t *testing.T) { T{}.Solo(); _, _ = write(); _ = Unused; _ = E{}; _ = Tagged{} }\n",
		"room/bare/bare.go":  "// Package bare forgets to say whose API it is.\npackage bare\n",
		"targets/targets.go": "// Package targets is the public API. It is " + ownAPI + ".\npackage targets\n\n// Exported is public API, used or not.\nfunc Exported() {}\n",
		"internal/user/user.go": `// Package user uses the room.
package user

import (
	"fmt"

	"example.com/m/room"
)

func use() int {
	room.Used()
	fmt.Println(room.T{}, room.E{Err: nil}, room.Tagged{}, room.Encoded{})
	return room.T{}.Field
}
`,
		"internal/user/user_test.go": "package user\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/room\"\n)\n\nfunc TestUse(t *testing.T) { _ = use() + room.OnlyTests }\n",
	}
	for name, text := range files {
		testutil.WriteFile(t, filepath.Join(root, name), text)
	}
	s := loadSurface(t, root, "example.com/m")
	var got []string
	for _, x := range unneeded(s) {
		got = append(got, x.pkg+"."+x.name)
	}
	want := []string{"room.T.Lonely", "room.T.Solo", "room.Unused"}
	if !slices.Equal(got, want) {
		t.Errorf("unneeded = %v, want %v", got, want)
	}
	state := map[string]*exported{}
	for _, x := range s.names {
		state[x.pkg+"."+x.name] = x
	}
	for name, reason := range map[string]string{"room.T.String": "implements", "room.E.Unwrap": "implements errors'", "room.E.Error": "implements error",
		"room.Tagged.Key": "decoded", "room.Encoded.Plain": "decoded"} {
		if x := state[name]; x == nil || !strings.Contains(x.kept, reason) {
			t.Errorf("%s: kept = %+v, want a reason with %q", name, x, reason)
		}
	}
	if x := state["room.OnlyTests"]; x == nil || !slices.Equal(x.usedBy, []string{"internal/user+test"}) {
		t.Errorf("room.OnlyTests used by %+v, want internal/user+test", x)
	}
	if got := undocumented(s); !slices.Equal(got, []string{"room/bare", "targets"}) {
		t.Errorf("undocumented = %v, want [room/bare targets]", got)
	}
}
