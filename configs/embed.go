// Package configs embeds the default backend specs, one YAML file per
// backend. A project file may extend or replace any of them.
package configs

import "embed"

// FS holds cpu.yaml, rocm.yaml, cuda.yaml and metal.yaml.
//
//go:embed *.yaml
var FS embed.FS
