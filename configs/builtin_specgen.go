//go:build specgen

package configs

import "go/format"

// GeneratedSource is builtin_gen.go as it must be for the embedded specs,
// formatted, with the backends in order (package backends' registry) and
// the verify checks (package flow's): the generator reads both, as
// configs cannot import either. Only the generator (go run -tags specgen
// ../internal/specgen, from configs/) sees it: the tag leaves out builtin_gen.go,
// so the generator compiles even when that file is stale against a
// changed Spec type.
func GeneratedSource(order []string, checks []VerifyCheck) ([]byte, error) {
	Names, VerifyChecks = order, checks
	src, err := builtinSource()
	if err != nil {
		return nil, err
	}
	return format.Source(src)
}

// generated stands in for builtin_gen.go's in a -tags specgen build: it
// parses the embedded YAML, as Builtin did before the specs were generated.
func generated(name string) (*Spec, string, bool) {
	s, err := parseEmbedded(name)
	if err != nil {
		return nil, "", false
	}
	return s, hashSpec(s), true
}

// builtinNames, builtinToolchains and builtinVerifyChecks stand in for
// builtin_gen.go's: the embedded files', in file name order, and no
// checks, until GeneratedSource is given the generator's. An embedded file
// that does not read stops builtinSource, which reads them again.
var (
	builtinNames, builtinToolchains, _ = embeddedNames()
	builtinVerifyChecks                []VerifyCheck
)
