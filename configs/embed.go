// Package configs holds the embedded default backend specs, one YAML file per
// backend, and their schema: the spec and project file types, strict loading
// that reports every problem with file:line:col, and the merge of a project's
// override over an embedded spec. It runs no processes.
//
// It is mlxbuild's own API, not supported for parent repositories: a
// parent's magefile imports targets, and reads a build's link plan with
// backends/linkplan.
package configs

import "embed"

// builtin_gen.go holds these specs parsed, as Go literals (see Builtin);
// regenerate it after changing a YAML file or the Spec types.
//
//go:generate go run -tags specgen ../internal/specgen -o builtin_gen.go

// specFS holds configs/<backend>.yaml for every backend: they define the
// set of backend names (see Names).
//
//go:embed *.yaml
var specFS embed.FS
