package configs

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

var update = flag.Bool("update", false, "rewrite the .golden files from the current output")

// TestSpecErrorsGolden loads each testdata/spec/*.yaml and compares every
// reported problem, with its position, to the .golden file beside it.
func TestSpecErrorsGolden(t *testing.T) {
	runGolden(t, "testdata/spec", func(file string, data []byte) error {
		_, err := parseWholeSpec(file, data)
		return err
	})
}

// TestProjectErrorsGolden does the same for project files.
func TestProjectErrorsGolden(t *testing.T) {
	runGolden(t, "testdata/project", func(file string, data []byte) error {
		_, err := ParseProject(file, data)
		return err
	})
}

func runGolden(t *testing.T, dir string, load func(string, []byte) error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in %s: %v", dir, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lerr := load(f, data)
			if lerr == nil {
				t.Fatalf("%s loaded without error; every fixture here plants a defect", f)
			}
			var ce *ConfigError
			if !errors.As(lerr, &ce) {
				t.Fatalf("want a *ConfigError (exit 2), got %T: %v", lerr, lerr)
			}
			if code := fail.ExitCode(lerr); code != 2 {
				t.Fatalf("exit status %d, want 2", code)
			}
			got := lerr.Error() + "\n"
			golden := strings.TrimSuffix(f, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("missing golden file (run go test -update): %v", err)
			}
			if got != string(want) {
				t.Errorf("problems differ from %s\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}
