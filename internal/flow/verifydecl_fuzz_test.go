package flow

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// projectWithVerify is a project file whose cpu backend's verify section
// is section (indented into place).
func projectWithVerify(section string) string {
	var b strings.Builder
	b.WriteString("source:\n  dir: .\nbackends:\n  cpu:\n    verify:\n")
	for _, l := range strings.Split(section, "\n") {
		b.WriteString("      " + l + "\n")
	}
	return b.String()
}

// decodeVerify parses the project file text; its verify section is decoded
// and checked with the rest of the file, as verify:cpu reads it.
func decodeVerify(file, text string) (*configs.Verify, error) {
	p, err := configs.ParseProject(file, []byte(text))
	if err != nil {
		return nil, err
	}
	var d configs.Verify
	if pb := p.Backends["cpu"]; pb != nil && pb.Verify != nil {
		d = *pb.Verify
	}
	return &d, nil
}

// FuzzVerifySection: any verify section either decodes, and then encodes
// and decodes back to the same declarations (compared encoded), or is refused with problems
// that each point into the file (line and column within it). Seeds
// (testdata/fuzz/FuzzVerifySection) are the rocm and cuda sections of
// mlxbuild's own mlxbuild.yaml and edge cases.
func FuzzVerifySection(f *testing.F) {
	file := filepath.Join(f.TempDir(), "mlxbuild.yaml")
	f.Fuzz(func(t *testing.T, section string) {
		text := projectWithVerify(section)
		d, err := decodeVerify(file, text)
		if err != nil {
			var ce *configs.ConfigError
			if !errors.As(err, &ce) || fail.ExitCode(err) != 2 || len(ce.Problems) == 0 {
				t.Fatalf("want a configuration error with problems, got %T %v", err, err)
			}
			lines := strings.Count(text, "\n") + 1
			for _, p := range ce.Problems {
				if p.Pos.File != file || p.Pos.Line < 1 || p.Pos.Line > lines || p.Pos.Col < 1 {
					t.Fatalf("problem outside the file (%d lines): %s", lines, p)
				}
			}
			return
		}
		out, err := yaml.Marshal(d)
		if err != nil {
			t.Fatalf("encoding %+v: %v", d, err)
		}
		// Compared in their encoded form: an absent list decodes as nil,
		// and encodes as [], which decodes as an empty list.
		back, err := decodeVerify(file, projectWithVerify(string(out)))
		if err != nil {
			t.Fatalf("declarations %+v encode as\n%s\nwhich does not read back: %v", d, out, err)
		}
		if again, _ := yaml.Marshal(back); string(again) != string(out) {
			t.Fatalf("declarations encode as\n%s\nand read back as\n%s", out, again)
		}
	})
}
