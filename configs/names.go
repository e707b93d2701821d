package configs

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Names are the backends mlxbuild builds, in display order: the embedded
// specs, which builtin_gen.go lists in the order their backends register
// in package backends (the generator reads it there), then any added with
// AddSpec. No other list of backends exists: messages, validation and
// the project file's backends: keys read this one.
var Names = slices.Clone(builtinNames)

// baseTools are the tools every spec may constrain; each backend's
// toolchain (builtinToolchains, and added specs') joins them.
var baseTools = []string{"cmake", "ninja", "git"}

// added holds the specs AddSpec took, by backend, and the toolchains they
// name; addedMu guards both and Names' growth.
var (
	addedMu         sync.Mutex
	added           = map[string]addedSpec{}
	addedToolchains []string
)

type addedSpec struct {
	file string
	data []byte
}

// knownConstraints are the tools a spec's constraints: may name.
func knownConstraints() []string {
	addedMu.Lock()
	defer addedMu.Unlock()
	return slices.Concat(baseTools, builtinToolchains, addedToolchains)
}

// NamesJoined is Names as prose: "cpu, rocm, cuda and metal" with word
// "and".
func NamesJoined(word string) string {
	n := len(Names)
	if n < 2 {
		return strings.Join(Names, "")
	}
	return strings.Join(Names[:n-1], ", ") + " " + word + " " + Names[n-1]
}

// specHead is what a spec says of its name and its toolchain's, read
// without validation: the set of names has to be known before any spec
// can be validated against it.
type specHead struct {
	Backend   string `yaml:"backend"`
	Toolchain struct {
		Name string `yaml:"name"`
	} `yaml:"toolchain"`
}

func readHead(file string, data []byte) (specHead, error) {
	var h specHead
	if err := yaml.Unmarshal(data, &h); err != nil {
		return h, fmt.Errorf("%s: %w", file, err)
	}
	if h.Backend == "" {
		return h, fmt.Errorf("%s: no backend: key", file)
	}
	return h, nil
}

// embeddedNames are the backends of the embedded configs/*.yaml, in file
// name order, and the toolchains they name.
func embeddedNames() (names, toolchains []string, err error) {
	entries, err := specFS.ReadDir(".")
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		data, err := specFS.ReadFile(e.Name())
		if err != nil {
			return nil, nil, err
		}
		h, err := readHead("configs/"+e.Name(), data)
		if err != nil {
			return nil, nil, err
		}
		names = append(names, h.Backend)
		if h.Toolchain.Name != "" {
			toolchains = append(toolchains, h.Toolchain.Name)
		}
	}
	return names, toolchains, nil
}

// AddSpec adds a backend from its spec file's content, as if it were
// embedded: Names lists it (last), Builtin returns it, validation accepts
// its name and its toolchain's. A backend is its spec plus its
// registration in package backends; this is the spec's half for one that
// this binary does not embed (a test's).
func AddSpec(file string, data []byte) error {
	h, err := readHead(file, data)
	if err != nil {
		return err
	}
	addedMu.Lock()
	if slices.Contains(Names, h.Backend) {
		addedMu.Unlock()
		return fmt.Errorf("%s: backend %q exists already", file, h.Backend)
	}
	Names = append(Names, h.Backend)
	if h.Toolchain.Name != "" {
		addedToolchains = append(addedToolchains, h.Toolchain.Name)
	}
	added[h.Backend] = addedSpec{file, data}
	addedMu.Unlock()
	// Validated as the embedded specs are, once its names are known.
	if _, err := Builtin(h.Backend); err != nil {
		addedMu.Lock()
		Names = slices.DeleteFunc(Names, func(n string) bool { return n == h.Backend })
		addedToolchains = slices.DeleteFunc(addedToolchains, func(n string) bool { return n == h.Toolchain.Name })
		delete(added, h.Backend)
		addedMu.Unlock()
		return err
	}
	return nil
}

// addedBuiltin parses an added spec afresh, as parseEmbedded does an
// embedded one.
func addedBuiltin(name string) (*Spec, string, bool, error) {
	addedMu.Lock()
	a, ok := added[name]
	addedMu.Unlock()
	if !ok {
		return nil, "", false, nil
	}
	s, err := parseWholeSpec(a.file, a.data)
	if err != nil {
		return nil, "", true, err
	}
	if s.Backend != name {
		return nil, "", true, fmt.Errorf("%s declares backend %q", a.file, s.Backend)
	}
	return s, hashSpec(s), true, nil
}
