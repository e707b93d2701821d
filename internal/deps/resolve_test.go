package deps

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestResolveProviders walks each provider in the spec's order: the cache
// wins when it holds the archive, a system package config (in a prefix the
// test makes) when its version fits, a named directory; a dependency none
// satisfies is named with its URL and every way to provide it.
func TestResolveProviders(t *testing.T) {
	root := t.TempDir()
	prefix := filepath.Join(root, "usr")
	testutil.WriteFile(t, filepath.Join(prefix, "lib", "cmake", "fmt", "fmt-config.cmake"), "# fmt\n")
	testutil.WriteFile(t, filepath.Join(prefix, "lib", "cmake", "fmt", "fmt-config-version.cmake"), "set(PACKAGE_VERSION \"9.1.0\")\n")
	srcDir := filepath.Join(root, "src", "gguf")
	testutil.WriteFile(t, filepath.Join(srcDir, "gguflib.c"), "")
	store := StoreAt(filepath.Join(root, "cache"))
	env := Env{Store: store, Prefixes: []string{prefix}}

	cached := configs.Dependency{Name: "json", URL: "https://example.invalid/json.tar.xz", SHA256: strings.Repeat("1", 64), Providers: []string{"cache"}}
	testutil.WriteFile(t, store.Archive(cached), "x")
	fmtDep := configs.Dependency{Name: "fmt", Git: "https://example.invalid/fmt", Commit: strings.Repeat("2", 40), SHA256: strings.Repeat("2", 64),
		Providers: []string{"cache", "system"},
		System:    &configs.SystemProvider{FindPackage: "fmt", Version: ">= 9", Package: "libfmt-dev", Defines: []configs.Define{{Name: "USE_SYSTEM_FMT", Value: "ON"}}}}
	gguf := configs.Dependency{Name: "gguflib", Providers: []string{"dir"}, Dir: "src/gguf", Base: root}
	missing := configs.Dependency{Name: "cutlass", Git: "https://example.invalid/cutlass", Tag: "v4", Commit: strings.Repeat("3", 40), SHA256: strings.Repeat("3", 64),
		Providers: []string{"cache", "system"}, System: &configs.SystemProvider{FindPackage: "NvidiaCutlass", Package: "nvidia-cutlass-dev"}, Origin: "cuda.yaml:9:5"}
	tooOld := fmtDep
	tooOld.Name = "fmt12"
	tooOld.System = &configs.SystemProvider{FindPackage: "fmt", Version: ">= 12", Package: "libfmt-dev"}

	got, err := Resolve("cuda", []configs.Dependency{cached, fmtDep, gguf, missing, tooOld}, nil, env)
	want := map[string]string{"json": "cache", "fmt": "system", "gguflib": "dir"}
	if len(got) != 3 {
		t.Fatalf("choices %+v", got)
	}
	for _, c := range got {
		if want[c.Dep.Name] != c.Provider {
			t.Errorf("%s: provider %s, want %s", c.Dep.Name, c.Provider, want[c.Dep.Name])
		}
	}
	if got[1].Defines["USE_SYSTEM_FMT"] != "ON" || got[1].Package == nil || got[1].Package.Version != "9.1.0" {
		t.Errorf("system fmt: %+v", got[1])
	}
	if got[2].Dir != srcDir {
		t.Errorf("dir provider: %q, want %q", got[2].Dir, srcDir)
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	for _, w := range []string{
		"the cuda build needs 2 dependencies that no provider has",
		"cutlass (https://example.invalid/cutlass at v4 (" + strings.Repeat("3", 40) + "), declared at cuda.yaml:9:5)",
		"cache: not fetched; run `go run mage.go deps:fetch`",
		"system: no CMake package NvidiaCutlass (find_package) under " + prefix + "; apt-get install nvidia-cutlass-dev",
		`system: fmt 9.1.0 (` + filepath.Join(prefix, "lib", "cmake", "fmt", "fmt-config.cmake") + `) does not satisfy ">= 12"`,
	} {
		if !strings.Contains(msg, w) {
			t.Errorf("missing-dependency error lacks %q:\n%s", w, msg)
		}
	}

	// Only what the tree declares counts.
	got, err = Resolve("cuda", []configs.Dependency{cached, missing}, map[string]bool{"json": true}, env)
	if err != nil || len(got) != 1 {
		t.Errorf("with a tree that declares json only: %+v, %v", got, err)
	}
}

// TestDeclared reads FetchContent_Declare names from CMake files, skipping
// comments and files CMake does not read.
func TestDeclared(t *testing.T) {
	tree := t.TempDir()
	testutil.WriteFile(t, filepath.Join(tree, "CMakeLists.txt"), "FetchContent_Declare(\n  json\n  URL https://x/json.tar.xz)\n# FetchContent_Declare(commented URL x)\n")
	testutil.WriteFile(t, filepath.Join(tree, "mlx", "io", "CMakeLists.txt"), "  fetchcontent_declare(GgufLib GIT_REPOSITORY x)\n")
	testutil.WriteFile(t, filepath.Join(tree, "cmake", "deps.cmake"), "FetchContent_Declare(fmt GIT_REPOSITORY x)\n")
	testutil.WriteFile(t, filepath.Join(tree, "README.md"), "FetchContent_Declare(readme)\n")
	got, err := Declared(tree)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !got["json"] || !got["gguflib"] || !got["fmt"] {
		t.Errorf("Declared = %v, want json, gguflib, fmt", got)
	}
	if _, err := Declared(filepath.Join(tree, "absent")); !os.IsNotExist(err) {
		t.Errorf("a missing tree: %v", err)
	}
}
