package configs

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseSpec feeds arbitrary bytes to the spec loader: it may reject
// them, but must never panic, and every rejection must carry a position.
func FuzzParseSpec(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := parseWholeSpec("fuzz.yaml", data)
		checkPositions(t, err)
		_, err = parseOverride("fuzz.yaml", data)
		checkPositions(t, err)
	})
}

// FuzzParseProject does the same for project files.
func FuzzParseProject(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseProject(filepath.Join(t.TempDir(), "mlxbuild.yaml"), data)
		checkPositions(t, err)
	})
}

func addSeeds(f *testing.F) {
	for _, glob := range []string{"testdata/spec/*.yaml", "testdata/project/*.yaml", "../configs/*.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
}

func checkPositions(t *testing.T, err error) {
	if err == nil {
		return
	}
	ce, ok := err.(*ConfigError)
	if !ok {
		t.Fatalf("want *ConfigError, got %T: %v", err, err)
	}
	for _, p := range ce.Problems {
		if p.Pos.File == "" || p.Pos.Line < 1 || p.Msg == "" {
			t.Fatalf("problem without a position or message: %+v", p)
		}
	}
}
