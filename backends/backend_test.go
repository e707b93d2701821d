package backends

import (
	"slices"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
)

// TestRegistryMatchesSpecs checks that every embedded spec has a registered
// backend and no backend lacks a spec, in the specs' order, and that what
// each backend registers agrees with its spec: architectures to resolve
// where the spec declares them, a toolchain locator for the toolchain the
// spec names, a switch for every GPU backend.
func TestRegistryMatchesSpecs(t *testing.T) {
	if got := Names(); !slices.Equal(got, configs.Names) {
		t.Fatalf("registered backends %v, embedded specs %v", got, configs.Names)
	}
	for _, name := range Names() {
		b := Lookup(name)
		spec, err := b.Spec(nil)
		if err != nil {
			t.Fatal(err)
		}
		if (spec.Architectures != nil) != (b.Resolve != nil) {
			t.Errorf("%s: spec declares architectures %v, backend resolves them %v", name, spec.Architectures != nil, b.Resolve != nil)
		}
		if spec.Toolchain != nil {
			if tb := Lookup(spec.Toolchain.Name); tb == nil || tb.Toolchain == nil || tb.Toolchain.Locate == nil {
				t.Errorf("%s: spec names toolchain %q, which no backend locates", name, spec.Toolchain.Name)
			}
		}
		if (name == "cpu") != (b.Switch == "") {
			t.Errorf("%s: switch %q", name, b.Switch)
		}
	}
	if Lookup("vulkan") != nil {
		t.Error("Lookup of an unregistered name found a backend")
	}
}
