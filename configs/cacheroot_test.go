package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestCacheRootRefused loads configurations whose cache root is not
// mlxbuild's own: each must be a configuration error (exit 2) that names
// the cache: key's position or MLXBUILD_CACHE, found before anything is
// written. The file system root is tested here, at load time only, so that
// a regression cannot write into / (flow's test covers the other cases
// through overlay:apply and cache:clean).
func TestCacheRootRefused(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	dir := filepath.Join(root, "app")
	testutil.WriteFile(t, filepath.Join(dir, "mlx", "CMakeLists.txt"), "")
	testutil.WriteFile(t, filepath.Join(dir, "ov", "UPSTREAM"), "")
	testutil.WriteFile(t, filepath.Join(home, ".cache", "pip", "x"), "")
	testutil.WriteFile(t, filepath.Join(root, "xdg", "tool", "x"), "")
	os.Symlink(filepath.Join(dir, "ov"), filepath.Join(root, "ov-link"))
	base := "source:\n  dir: mlx\nbackends:\n  rocm: { overlay: ov }\n"
	file := filepath.Join(dir, projectFileName)
	for _, c := range []struct {
		cache, env, xdg, want string
	}{
		{cache: "/", want: file + ":5:8: cache: / is the file system root"},
		{cache: "..", want: "is the project's root"},
		{cache: "ov/../mlx", want: "is source.dir"},
		{cache: "mlx/build", want: "lies inside source.dir"},
		{cache: "cache\nx", want: "holds a newline"},
		{env: "/", want: "MLXBUILD_CACHE=/: / is the file system root"},
		{env: "/..", want: "MLXBUILD_CACHE=/: / is the file system root"},
		{env: home, want: "is the home directory"},
		{env: filepath.Join(root, "app"), want: "project's root"},
		{env: filepath.Join(home, ".cache"), want: "every tool shares"},
		{env: filepath.Join(root, "xdg"), xdg: filepath.Join(root, "xdg"), want: "every tool shares"},
		{env: filepath.Join(root, "ov-link", "c"), want: "lies inside backends.rocm.overlay"},
	} {
		yaml := base
		if c.cache != "" {
			yaml += "cache: " + strings.ReplaceAll(c.cache, "\n", `\n`) + "\n"
			if strings.Contains(c.cache, "\n") {
				yaml = base + "cache: \"" + strings.ReplaceAll(c.cache, "\n", `\n`) + "\"\n"
			}
		}
		testutil.WriteFile(t, file, yaml)
		env := map[string]string{"MLXBUILD_CACHE": c.env, "HOME": home, "XDG_CACHE_HOME": c.xdg}
		_, err := LoadConfig(dir, func(k string) string { return env[k] })
		if fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), c.want) {
			t.Errorf("cache %q, MLXBUILD_CACHE %q: got %v, want exit 2 and %q", c.cache, c.env, err, c.want)
		}
		if c.env != "" && err != nil && !strings.Contains(err.Error(), "MLXBUILD_CACHE=") {
			t.Errorf("MLXBUILD_CACHE %q: the error does not name the variable: %v", c.env, err)
		}
	}
	// The default root, when a directory of the user's is already there.
	testutil.WriteFile(t, filepath.Join(dir, "target", "mlxbuild", "notes.txt"), "mine")
	testutil.WriteFile(t, file, base)
	_, err := LoadConfig(dir, func(k string) string { return map[string]string{"HOME": home}[k] })
	if want := "the default cache " + filepath.Join(dir, "target", "mlxbuild") + ": "; err == nil || !strings.Contains(err.Error(), want) ||
		!strings.Contains(err.Error(), "not mlxbuild's cache") || !strings.Contains(err.Error(), "set cache: in "+file+" or MLXBUILD_CACHE") {
		t.Errorf("a foreign default root: %v", err)
	}
	os.RemoveAll(filepath.Join(dir, "target"))
	// A good root inside the project, and an existing mlxbuild cache.
	testutil.WriteFile(t, file, base+"cache: target/mlxbuild\n")
	if _, err := LoadConfig(dir, func(k string) string { return map[string]string{"HOME": home}[k] }); err != nil {
		t.Errorf("target/mlxbuild: %v", err)
	}
}
