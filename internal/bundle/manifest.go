package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// ManifestName is the bundle's manifest, at its top: what makes a folder
// a bundle (Make replaces only a folder that has one).
const ManifestName = "manifest.json"

// Format is the manifest's version: it changes only when a field is
// removed or changes its meaning.
const Format = 1

// Manifest says what a bundle holds and what it needs of the target.
type Manifest struct {
	Format          int          `json:"format"`
	Backend         string       `json:"backend"`
	MLXPin          string       `json:"mlx_pin"`          // "" for a source.dir checkout without one
	TreeFingerprint string       `json:"tree_fingerprint"` // "" when the plan has none
	Architectures   []string     `json:"architectures"`    // the GPU targets built, as CMake took them
	Toolchain       Toolchain    `json:"toolchain"`
	RpathMode       string       `json:"rpath_mode"`
	Executables     []Executable `json:"executables"`
	Libraries       []Library    `json:"libraries"`
	Headers         []Headers    `json:"headers"`
	HeaderHome      *HeaderHome  `json:"header_home,omitempty"` // nil: the runtime needs no header folder of its own
}

// HeaderHome is the spec's bundle.header_home, kept for bundle:check on
// the target: where the runtime looks for a header folder of its own.
type HeaderHome struct {
	Beside  string   `json:"beside,omitempty"` // relative to the bundle's parent
	Env     []string `json:"env"`
	Default string   `json:"default,omitempty"`
	Sub     string   `json:"sub"`
}

// Toolchain is the GPU toolchain the build used ("" for cpu).
type Toolchain struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Executable is one program in bin/ and how Make knew it was linked
// against the build: "tree_fingerprint" (the program holds the build's
// fingerprint) or "run_path" (its run path was the link plan's).
type Executable struct {
	Name     string `json:"name"`
	LinkedBy string `json:"linked_by"`
}

// How a library reaches the program on the target.
const (
	Bundled  = "bundled"  // copied into lib/
	Required = "required" // from the target system's loader path
	Driver   = "driver"   // the GPU driver's: from the target, never bundled
)

// Library is one shared library a program or a bundled library needs.
type Library struct {
	Soname   string   `json:"soname"`
	How      string   `json:"how"`
	NeededBy []string `json:"needed_by"` // sonames or program names; "dlopen" for a library loaded by name
}

// Headers is one header folder copied for run-time compiles.
type Headers struct {
	Path string `json:"path"` // inside the bundle: include/cccl
	From string `json:"from"` // what it is: "{toolchain.root}/include", "define MLX_CCCL_DIR"
}

func (m *Manifest) encode() []byte {
	data, _ := json.MarshalIndent(m, "", "  ")
	return append(data, '\n')
}

// decodeManifest reads a manifest strictly: one object, known keys only,
// a known format and kinds; errors name file.
func decodeManifest(file string, data []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: not a bundle manifest: %v", file, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: not a bundle manifest: text after the object", file)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("%s: manifest format %d; this mlxbuild reads format %d: check it with the mlxbuild that made it", file, m.Format, Format)
	}
	for _, l := range m.Libraries {
		if !slices.Contains([]string{Bundled, Required, Driver}, l.How) || l.Soname == "" || !plainName(l.Soname) {
			return nil, fmt.Errorf("%s: library %q: how %q; want a soname and one of bundled, required, driver", file, l.Soname, l.How)
		}
	}
	for _, e := range m.Executables {
		if !plainName(e.Name) {
			return nil, fmt.Errorf("%s: executable %q is not a plain file name", file, e.Name)
		}
	}
	return &m, nil
}

// plainName is a file name without a folder: what lib/ and bin/ hold.
func plainName(n string) bool {
	if n == "" || n == "." || n == ".." {
		return false
	}
	for i := 0; i < len(n); i++ {
		if c := n[i]; c == '/' || c == '\\' || c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}
