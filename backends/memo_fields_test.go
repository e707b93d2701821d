package backends

import (
	"reflect"
	"testing"

	"github.com/hashicorp/go-version"

	imemo "github.com/mlxbuild/mlxbuild/internal/memo"
)

// runState are the fields of ROCm that belong to one run, not to the
// answer a memo keeps.
var runState = map[string]bool{"seen": true, "archMu": true, "archCache": true}

// TestMemoFieldsKeepEveryField round-trips a ROCm and a tool answer with
// every field of the answer set through the memo's text, and checks that
// each type names as many memo fields as it has answer fields: a field
// added later and not kept would come back empty from a cached discovery.
func TestMemoFieldsKeepEveryField(t *testing.T) {
	r := &rocmToolchain{root: "/r", from: "ROCM_PATH", LibDir: "/r/lib", binDir: "/r/bin", includeDir: "/r/include", version: version.Must(version.NewVersion("6.1.2")),
		versionFrom: ".info/version", hipCompiler: "/r/llvm/bin/clang++", deviceLibDir: "/r/amdgcn/bitcode", multiarchLayout: true}
	f := &toolFound{path: "/usr/bin/cmake", version: version.Must(version.NewVersion("3.25.1"))}
	for _, c := range []struct {
		in, out memoResult
	}{{r, &rocmToolchain{}}, {f, &toolFound{}}} {
		kept := 0
		typ := reflect.TypeOf(c.in).Elem()
		for i := 0; i < typ.NumField(); i++ {
			if !runState[typ.Field(i).Name] {
				kept++
			}
		}
		if n := len(c.in.fields()); n != kept {
			t.Errorf("%s: %d memo fields for %d fields of the answer", typ.Name(), n, kept)
		}
		e, ok := imemo.Parse(discoveryKind, imemo.Format(discoveryKind, imemo.Entry{Values: memoFields(c.in)}))
		if !ok {
			t.Fatalf("%s: its entry does not parse", typ.Name())
		}
		if !setMemoFields(c.out, e.Values) {
			t.Fatalf("%s: its fields %v are refused", typ.Name(), e.Values)
		}
		if !reflect.DeepEqual(c.out, c.in) {
			t.Errorf("%s round trip:\n got %v\nwant %v", typ.Name(), memoFields(c.out), memoFields(c.in))
		}
	}
	if setMemoFields(&rocmToolchain{}, [][2]string{{"unknown", "x"}}) || setMemoFields(&toolFound{}, [][2]string{{"version", "not a version"}}) || setMemoFields(&rocmToolchain{}, [][2]string{{"multiarch", "maybe"}}) {
		t.Error("a field the result does not take was taken")
	}
}
