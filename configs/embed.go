// Package configs holds the embedded default backend specs, one YAML file per
// backend, and their schema: the spec and project file types, strict loading
// that reports every problem with file:line:col, and the merge of a project's
// override over an embedded spec. It runs no processes.
package configs

import "embed"

// specFS holds cpu.yaml, rocm.yaml, cuda.yaml and metal.yaml.
//
//go:embed *.yaml
var specFS embed.FS
