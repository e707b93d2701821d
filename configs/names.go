package configs

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Names are the backends mlxbuild builds, in display order: the embedded
// specs, which builtin_gen.go lists in the order their backends register
// in package backends (the generator reads it there), then any added with
// AddSpec. No other list of backends exists: messages, validation and
// the project file's backends: keys read this one.
var Names = slices.Clone(builtinNames)

// knownTools are the tools a spec's constraints: may name: these, and
// each backend's toolchain (builtinToolchains, then added specs').
var knownTools = append([]string{"cmake", "ninja", "git"}, builtinToolchains...)

// added holds the content of the specs AddSpec took, by backend.
var added = map[string][2]string{}

// namesJoined is Names as prose: "cpu, rocm, cuda and metal" with word
// "and".
func namesJoined(word string) string {
	last := len(Names) - 1
	return strings.Join(Names[:last], ", ") + " " + word + " " + Names[last]
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
	err := yaml.Unmarshal(data, &h)
	if err == nil && h.Backend == "" {
		err = fmt.Errorf("no backend: key")
	}
	if err != nil {
		return h, fmt.Errorf("%s: %w", file, err)
	}
	return h, nil
}

// embeddedNames are the backends of the embedded configs/*.yaml, in file
// name order, and the toolchains they name.
func embeddedNames() (names, toolchains []string, err error) {
	entries, err := specFS.ReadDir(".")
	for _, e := range entries {
		data, _ := specFS.ReadFile(e.Name())
		h, err := readHead("configs/"+e.Name(), data)
		if err != nil {
			return nil, nil, err
		}
		names = append(names, h.Backend)
		if h.Toolchain.Name != "" {
			toolchains = append(toolchains, h.Toolchain.Name)
		}
	}
	return names, toolchains, err
}

// AddSpec adds a backend from its spec file's content, as if it were
// embedded: Names lists it (last), Builtin returns it, validation accepts
// its name and its toolchain's. A backend is its spec plus its
// registration in package backends; this is the spec's half for one that
// this binary does not embed (a test's). Like that registration, it is
// made before any concurrent use of this package.
func AddSpec(file string, data []byte) error {
	h, err := readHead(file, data)
	if err != nil {
		return err
	}
	if slices.Contains(Names, h.Backend) {
		return fmt.Errorf("%s: backend %q exists already", file, h.Backend)
	}
	names, tools := Names, knownTools
	Names = append(slices.Clip(Names), h.Backend)
	if h.Toolchain.Name != "" {
		knownTools = append(slices.Clip(knownTools), h.Toolchain.Name)
	}
	added[h.Backend] = [2]string{file, string(data)}
	// Validated as the embedded specs are, once its names are known.
	if _, err := Builtin(h.Backend); err != nil {
		Names, knownTools = names, tools
		delete(added, h.Backend)
		return err
	}
	return nil
}

// addedBuiltin parses an added spec afresh, as parseEmbedded does an
// embedded one; ok is false for a name AddSpec did not take.
func addedBuiltin(name string) (s *Spec, fingerprint string, ok bool, err error) {
	a, ok := added[name]
	if !ok {
		return nil, "", false, nil
	}
	if s, err = parseWholeSpec(a[0], []byte(a[1])); err != nil {
		return nil, "", true, err
	}
	return s, hashSpec(s), true, nil
}
