package cmake

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/multiarch"
)

// packageRoot lays out two prefixes the way Debian and a ROCm install do:
// package configs under <lib>/cmake/<name>*/, <lib>/<name>*/cmake/ and
// <prefix>/<name>*/, with version files, among unrelated entries.
func packageRoot(t testing.TB, filler int) (first, second string) {
	t.Helper()
	root := t.TempDir()
	first, second = filepath.Join(root, "usr"), filepath.Join(root, "opt", "rocm")
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(first, "lib/"+multiarch.Host()+"/cmake/rocblas-4.4/rocblas-config.cmake"), "")
	write(filepath.Join(first, "lib/"+multiarch.Host()+"/cmake/rocblas-4.4/rocblas-config-version.cmake"), `set(PACKAGE_VERSION "4.4.1")`+"\n")
	// The same package in a later folder of the same prefix: not chosen.
	write(filepath.Join(first, "share/rocblas/cmake/rocblas-config.cmake"), "")
	write(filepath.Join(first, "lib/hiprand/cmake/hiprand-config.cmake"), "")
	write(filepath.Join(first, "share/Hip/cmake/hipConfig.cmake"), "")
	write(filepath.Join(first, "share/Hip/cmake/hipConfigVersion.cmake"), `set ( PACKAGE_VERSION 6.4.3 )`+"\n")
	// A folder named like the package without a config in it.
	write(filepath.Join(first, "lib/"+multiarch.Host()+"/cmake/rocprim-extras/README"), "")
	write(filepath.Join(second, "lib/cmake/rocprim/rocprim-config.cmake"), "")
	// Another architecture's multiarch folder (a multiarch Debian holds
	// both): CMake never looks there, so neither does the finder.
	write(filepath.Join(first, "lib", foreignMultiarch(), "cmake/rocwmma/rocwmma-config.cmake"), "")
	write(filepath.Join(second, "rocthrust-6.4/rocthrust-config.cmake"), "")
	for i := 0; i < filler; i++ {
		for _, dir := range []string{"lib/" + multiarch.Host() + "", "lib", "share", "lib/" + multiarch.Host() + "/cmake"} {
			if err := os.MkdirAll(filepath.Join(first, dir, "pkg"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+filepath.Base(dir)+itoa(i)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return first, second
}

// foreignMultiarch is a multiarch folder name of an architecture other
// than this host's.
func foreignMultiarch() string {
	if runtime.GOARCH == "arm64" {
		return multiarch.For("amd64")
	}
	return multiarch.For("arm64")
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

func TestFindPackageConfig(t *testing.T) {
	first, second := packageRoot(t, 30)
	prefixes := []string{first, second}
	tests := []struct {
		name, file, version string // file relative to the prefixes' parent; "" for not found
	}{
		{"rocblas", "usr/lib/" + multiarch.Host() + "/cmake/rocblas-4.4/rocblas-config.cmake", "4.4.1"},
		{"hiprand", "usr/lib/hiprand/cmake/hiprand-config.cmake", ""},
		{"hip", "usr/share/Hip/cmake/hipConfig.cmake", "6.4.3"},
		{"rocprim", "opt/rocm/lib/cmake/rocprim/rocprim-config.cmake", ""},
		{"rocthrust", "opt/rocm/rocthrust-6.4/rocthrust-config.cmake", ""},
		{"rocwmma", "", ""},
	}
	base := filepath.Dir(first)
	var shared Finder
	for _, tt := range tests {
		for _, how := range []string{"alone", "shared"} {
			var pc PackageConfig
			var ok bool
			if how == "alone" {
				pc, ok = FindPackageConfig(tt.name, prefixes)
			} else {
				pc, ok = shared.Find(tt.name, prefixes)
			}
			if tt.file == "" {
				if ok {
					t.Errorf("%s (%s): found %s, want none", tt.name, how, pc.File)
				}
				continue
			}
			if !ok || pc.File != filepath.Join(base, tt.file) || pc.Version != tt.version || pc.Name != tt.name {
				t.Errorf("%s (%s) = %+v, %v; want %s, version %q", tt.name, how, pc, ok, tt.file, tt.version)
			}
		}
	}
	// The shared finder listed each folder once; a folder it could not
	// read is remembered too.
	if _, listed := shared.names[filepath.Join(first, "lib64/cmake")]; !listed {
		t.Errorf("the finder did not remember a missing folder: %v", shared.names)
	}
}

// BenchmarkFindPackageConfigs asks for the ROCm fork's five packages under
// two prefixes with a few hundred unrelated entries per library folder (a
// Debian /usr): before, every package listed every folder of every prefix
// in full; now one finder lists each folder once and stops at the first
// that has the config.
func BenchmarkFindPackageConfigs(b *testing.B) {
	first, second := packageRoot(b, 400)
	prefixes := []string{first, second}
	names := []string{"hip", "rocblas", "rocthrust", "rocprim", "hiprand"}
	b.Run("before", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, n := range names {
				findPackageConfigEager(n, prefixes)
			}
		}
	})
	b.Run("finder", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var f Finder
			for _, n := range names {
				f.Find(n, prefixes)
			}
		}
	})
}

// findPackageConfigEager is FindPackageConfig as it was before the Finder
// (every folder listed for every package, all before the first check),
// kept to be measured against.
func findPackageConfigEager(name string, prefixes []string) (PackageConfig, bool) {
	glob := func(parent string) []string {
		entries, err := os.ReadDir(parent)
		if err != nil {
			return nil
		}
		var out []string
		for _, e := range entries {
			if strings.HasPrefix(strings.ToLower(e.Name()), strings.ToLower(name)) && isDir(filepath.Join(parent, e.Name())) {
				out = append(out, filepath.Join(parent, e.Name()))
			}
		}
		return out
	}
	files := []string{name + "Config.cmake", strings.ToLower(name) + "-config.cmake"}
	for _, prefix := range prefixes {
		var dirs []string
		for _, lib := range packageLibDirs {
			dirs = append(dirs, glob(filepath.Join(prefix, lib, "cmake"))...)
			for _, d := range glob(filepath.Join(prefix, lib)) {
				if isDir(filepath.Join(d, "cmake")) {
					dirs = append(dirs, filepath.Join(d, "cmake"))
				}
			}
		}
		dirs = append(dirs, glob(prefix)...)
		for _, d := range dirs {
			for _, f := range files {
				path := filepath.Join(d, f)
				if st, err := os.Stat(path); err == nil && !st.IsDir() {
					return PackageConfig{Name: name, File: path, Version: configVersion(d, name)}, true
				}
			}
		}
	}
	return PackageConfig{}, false
}
