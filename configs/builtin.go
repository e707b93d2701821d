package configs

import (
	"fmt"
	"slices"
)

// Builtin returns the embedded spec of a backend, freshly allocated: the
// caller may change it. It comes from builtin_gen.go, which holds the
// parsed configs/<name>.yaml as Go literals (go generate ./configs writes
// it; a test fails when it is stale), so a run parses no YAML.
func Builtin(name string) (*Spec, error) {
	if !slices.Contains(Names, name) {
		return nil, UnknownBackend(name)
	}
	s, sum, ok := generated(name)
	if !ok {
		var err error
		if s, sum, ok, err = addedBuiltin(name); err != nil {
			return nil, err
		}
	}
	if !ok {
		return nil, fmt.Errorf("built-in spec for %s is missing from this binary: run %s", name, generateCommand)
	}
	s.memo = fingerprintMemo{of: s, sum: sum}
	return s, nil
}

// parseEmbedded parses the embedded configs/<name>.yaml, as Builtin did
// at run time before the specs were generated: the generator and the
// tests that keep builtin_gen.go true use it.
func parseEmbedded(name string) (*Spec, error) {
	data, err := specFS.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("built-in spec for %s is missing: %w", name, err)
	}
	s, err := parseWholeSpec("configs/"+name+".yaml", data)
	if err != nil {
		return nil, err
	}
	if s.Backend != name {
		return nil, fmt.Errorf("configs/%s.yaml declares backend %q", name, s.Backend)
	}
	return s, nil
}
