package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestProjectPathsWithControlCharacters: a newline in an overlay path (one
// that exists on disk) would put a `cargo:` line of its own into
// cargo.txt; every path of the project file with a control character is a
// positioned configuration error.
func TestProjectPathsWithControlCharacters(t *testing.T) {
	dir := t.TempDir()
	evil := "patches\ncargo:rustc-link-arg=-Wl,--wrap=main"
	if err := os.MkdirAll(filepath.Join(dir, evil), 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "mlx"), 0o755)
	file := filepath.Join(dir, projectFileName)
	testutil.WriteFile(t, file, "source:\n  dir: mlx\nbackends:\n  rocm:\n    overlay: \"patches\\ncargo:rustc-link-arg=-Wl,--wrap=main\"\n  cuda:\n    overlay: \"mlx\\r\"\n")
	_, err := loadProject(file, "")
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Kind() != fail.Config {
		t.Fatalf("want a configuration error, got %v", err)
	}
	for _, want := range []string{file + ":5:14: backends.rocm.overlay: ", "a newline at byte 7", file + ":7:14: backends.cuda.overlay: ", "a carriage return"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
}

// TestNonUTF8Position: a byte that is not UTF-8 is reported where it is.
func TestNonUTF8Position(t *testing.T) {
	data := []byte("source:\n  dir: mlx\nbackends:\n  rocm: { overlay: p\xe9tches }\n")
	_, err := ParseProject("/p/mlxbuild.yaml", data)
	if err == nil || !strings.Contains(err.Error(), "/p/mlxbuild.yaml:4:21: byte 0xe9 is not UTF-8") {
		t.Errorf("got %v, want the error at 4:21", err)
	}
	if _, err := parseWholeSpec("s.yaml", []byte("backend: cpu\n# ü is fine\nplatforms: [linux]\xff\n")); err == nil || !strings.Contains(err.Error(), "s.yaml:3:19: byte 0xff") {
		t.Errorf("spec: got %v, want the error at 3:19", err)
	}
}

// TestConfigNamingADirectory: MLXBUILD_CONFIG=<a directory> is a usage
// error (exit 2) that names the file to point at.
func TestConfigNamingADirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := find(t.TempDir(), func(k string) string { return map[string]string{"MLXBUILD_CONFIG": dir}[k] })
	if fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), "MLXBUILD_CONFIG="+dir+" is a directory") || !strings.Contains(err.Error(), filepath.Join(dir, projectFileName)) {
		t.Errorf("got %v", err)
	}
}
