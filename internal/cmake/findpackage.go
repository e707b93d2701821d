package cmake

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
	"github.com/mlxbuild/mlxbuild/internal/multiarch"
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
	var f Finder
	return f.Find(name, prefixes)
}

// A Finder is FindPackageConfig for several packages: it lists each folder
// it searches once, however many packages ask, and stops at the first
// folder that holds the config. Every build asks it for each of the spec's
// packages, and the folders it lists (/usr/lib/<arch>, /usr/share) hold
// hundreds of entries: listing them all for every package was a tenth of a
// no-op's CPU on Debian's ROCm. Its zero value is ready; it is not safe for
// concurrent use.
type Finder struct {
	names map[string][]string // a folder's entry names, as listed; nil for a folder that could not be read
}

// packageLibDirs are find_package's library folders of a prefix: the
// multiarch one is CMAKE_LIBRARY_ARCHITECTURE's, this host's only (an
// x86-64 package config that a multiarch Debian also holds on an aarch64
// host names libraries the aarch64 link cannot use).
var packageLibDirs = []string{"lib/" + multiarch.Host(), "lib64", "lib", "share"}

// Find is FindPackageConfig through the finder's listings. The order is
// find_package's: per prefix, per library folder, <lib>/cmake/<name>*/
// before <lib>/<name>*/cmake/, then <prefix>/<name>*/.
func (f *Finder) Find(name string, prefixes []string) (PackageConfig, bool) {
	files := []string{name + "Config.cmake", strings.ToLower(name) + "-config.cmake"}
	in := func(dirs []string) (PackageConfig, bool) {
		for _, d := range dirs {
			for _, file := range files {
				path := filepath.Join(d, file)
				if st, err := os.Stat(path); err == nil && !st.IsDir() {
					return PackageConfig{Name: name, File: path, Version: configVersion(d, name)}, true
				}
			}
		}
		return PackageConfig{}, false
	}
	for _, prefix := range prefixes {
		for _, lib := range packageLibDirs {
			if pc, ok := in(f.globDirs(filepath.Join(prefix, lib, "cmake"), name)); ok {
				return pc, true
			}
			if pc, ok := in(f.globSub(filepath.Join(prefix, lib), name, "cmake")); ok {
				return pc, true
			}
		}
		if pc, ok := in(f.globDirs(prefix, name)); ok {
			return pc, true
		}
	}
	return PackageConfig{}, false
}

// globDirs lists the directories under parent whose names start with name
// case-insensitively (find_package accepts <name>*, e.g. rocblas-4.0), in
// name order.
func (f *Finder) globDirs(parent, name string) []string {
	names, listed := f.names[parent]
	if !listed {
		if d, err := os.Open(parent); err == nil {
			names, _ = d.Readdirnames(-1)
			d.Close()
		}
		if f.names == nil {
			f.names = map[string][]string{}
		}
		f.names[parent] = names
	}
	lower := strings.ToLower(name)
	var out []string
	for _, n := range names {
		if strings.HasPrefix(strings.ToLower(n), lower) && isDir(filepath.Join(parent, n)) {
			out = append(out, filepath.Join(parent, n))
		}
	}
	// os.ReadDir's order, which the first match depends on; only the
	// matches need sorting (they share the parent).
	sort.Strings(out)
	return out
}

func (f *Finder) globSub(parent, name, sub string) []string {
	var out []string
	for _, d := range f.globDirs(parent, name) {
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
