package cmake

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// PackageConfig is a CMake package configuration file found on disk, the
// file find_package(<Name> CONFIG) would load.
type PackageConfig struct {
	Name    string
	File    string // <Name>Config.cmake or <name>-config.cmake
	Version string // from the version file next to it; "" when absent
}

// FindPackageConfig looks for name's package config under the prefixes the
// way find_package's CONFIG mode does on Unix (<prefix>/(lib/<arch>|lib|
// share)/cmake/<name>*/ and <prefix>/(lib|share)/<name>*/cmake/), without
// running CMake, so a build can name a missing package before configure.
// It returns false when no prefix has it.
func FindPackageConfig(name string, prefixes []string) (PackageConfig, bool) {
	files := []string{name + "Config.cmake", strings.ToLower(name) + "-config.cmake"}
	for _, prefix := range prefixes {
		var dirs []string
		for _, lib := range []string{"lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu", "lib64", "lib", "share"} {
			dirs = append(dirs, globDirs(filepath.Join(prefix, lib, "cmake"), name)...)
			dirs = append(dirs, globSub(filepath.Join(prefix, lib), name, "cmake")...)
		}
		dirs = append(dirs, globDirs(prefix, name)...)
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

// globDirs lists the directories under parent whose names start with name
// case-insensitively (find_package accepts <name>*, e.g. rocblas-4.0).
func globDirs(parent, name string) []string {
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

func globSub(parent, name, sub string) []string {
	var out []string
	for _, d := range globDirs(parent, name) {
		if isDir(filepath.Join(d, sub)) {
			out = append(out, filepath.Join(d, sub))
		}
	}
	return out
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// packageVersionRe reads the version a config-version file reports:
// set(PACKAGE_VERSION "3.11.2").
var packageVersionRe = lazyregexp.New(`(?m)^\s*set\s*\(\s*PACKAGE_VERSION\s+"?([0-9][0-9A-Za-z.+-]*)"?\s*\)`)

func configVersion(dir, name string) string {
	for _, f := range []string{name + "ConfigVersion.cmake", strings.ToLower(name) + "-config-version.cmake"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		if m := packageVersionRe.FindSubmatch(data); m != nil {
			return string(m[1])
		}
	}
	return ""
}

// PackagePrefixes are the prefixes FindPackageConfig searches: the
// CMAKE_PREFIX_PATH environment variable's entries, the given roots (a
// toolchain), then the system's.
func PackagePrefixes(env func(string) string, roots ...string) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	for _, p := range filepath.SplitList(env("CMAKE_PREFIX_PATH")) {
		add(p)
	}
	for _, r := range roots {
		add(r)
	}
	add("/usr/local")
	add("/usr")
	return out
}
