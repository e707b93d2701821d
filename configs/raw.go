package configs

import (
	"reflect"

	"go.yaml.in/yaml/v3"
)

// Raw keeps a YAML value undecoded, with its file, for a section whose
// schema belongs to another package (verify rules). DecodeRaw checks it
// with the same strictness and positions as everything else.
type Raw struct {
	File string
	Node *yaml.Node
}

var rawType = reflect.TypeOf(Raw{})

// IsZero reports whether the section was absent.
func (r Raw) IsZero() bool { return r.Node == nil }

// DecodeRaw strictly decodes r into v (a pointer to a struct or slice).
func DecodeRaw(r Raw, v any) error {
	if r.Node == nil {
		return nil
	}
	var ps problems
	d := &decoder{file: r.File, probs: &ps, at: map[string]Pos{}}
	d.decode(r.Node, reflect.ValueOf(v).Elem(), "")
	return ps.err()
}
