package configs

import (
	"slices"
	"strings"
	"testing"
)

// TestGeneratorRefusesASpecWithoutARegistration: builtin_gen.go lists the
// backends in the registry's order, so a spec whose backend is not
// registered (or the reverse) stops the generator, naming both sides.
func TestGeneratorRefusesASpecWithoutARegistration(t *testing.T) {
	saved := Names
	t.Cleanup(func() { Names = saved })
	Names = slices.Clone(saved[:len(saved)-1])
	_, err := builtinSource()
	if err == nil || !strings.Contains(err.Error(), "backends.Register") || !strings.Contains(err.Error(), "metal") {
		t.Fatalf("a spec with no registered backend: %v", err)
	}
}

// TestAddSpecTakesBackNothingItRefused: a spec that does not validate
// leaves Names, the constrainable tools and Builtin as they were, and a
// name that exists is refused.
func TestAddSpecTakesBackNothingItRefused(t *testing.T) {
	names, tools := slices.Clone(Names), slices.Clone(knownTools)
	bad := "backend: broken\nplatforms: [plan9]\ntoolchain: {name: brokenkit, env: BROKEN_HOME, default: /opt/broken}\n"
	if err := AddSpec("broken.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "plan9") {
		t.Fatalf("a spec with an unknown platform: %v", err)
	}
	if !slices.Equal(Names, names) || !slices.Equal(knownTools, tools) {
		t.Errorf("after a refused spec: Names %v, tools %v; want %v, %v", Names, knownTools, names, tools)
	}
	if _, err := Builtin("broken"); err == nil {
		t.Error("Builtin returns the refused spec")
	}
	if err := AddSpec("cpu.yaml", []byte("backend: cpu\n")); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("a second cpu: %v", err)
	}
}
