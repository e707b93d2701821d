package deps

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// ProviderScript renders the CMake file mlxbuild passes as
// CMAKE_PROJECT_TOP_LEVEL_INCLUDES. It installs a dependency provider
// (CMake >= 3.24) that sees every FetchContent_MakeAvailable call.
//
// Why a provider rather than FETCHCONTENT_SOURCE_DIR_<NAME> on the command
// line with FETCHCONTENT_FULLY_DISCONNECTED=ON alone: the source-dir
// variables only cover the names mlxbuild was told about, and a fully
// disconnected FetchContent meets an undeclared dependency with an empty
// directory and a confusing error much later. The provider is called for
// every dependency, so an undeclared one stops configure at once, naming
// itself; a declared one is pointed at its verified directory (the
// provider sets FETCHCONTENT_SOURCE_DIR_<NAME> and lets FetchContent's own
// code add it, SOURCE_SUBDIR and all), or at a system package through
// find_package. FETCHCONTENT_FULLY_DISCONNECTED stays ON as well, for
// projects that still call FetchContent_Populate directly, which bypasses
// providers: CMake never downloads either way.
func ProviderScript(choices []Choice) string {
	var b strings.Builder
	b.WriteString("# Written by mlxbuild; do not edit. Every FetchContent_MakeAvailable call\n")
	b.WriteString("# comes here: CMake never downloads (see internal/deps/provider.go).\n")
	b.WriteString("include_guard(GLOBAL)\n")
	b.WriteString("macro(mlxbuild_provide_dependency method dep_name)\n")
	b.WriteString("  string(TOLOWER \"${dep_name}\" _mlxbuild_dep)\n")
	sorted := append([]Choice(nil), choices...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Dep.Name < sorted[j].Dep.Name })
	for i, c := range sorted {
		kw := "elseif"
		if i == 0 {
			kw = "if"
		}
		fmt.Fprintf(&b, "  %s(_mlxbuild_dep STREQUAL %s)\n", kw, quote(strings.ToLower(c.Dep.Name)))
		fmt.Fprintf(&b, "    # %s\n", c.Input())
		switch c.Provider {
		case "system":
			if c.Package != nil {
				// The very config mlxbuild checked: a toolchain's prefix
				// (/usr/local/cuda) is not one CMake searches by itself.
				fmt.Fprintf(&b, "    set(%s_DIR %s)\n", c.Dep.System.FindPackage, quote(filepath.Dir(c.Package.File)))
				fmt.Fprintf(&b, "    find_package(%s CONFIG REQUIRED)\n", c.Dep.System.FindPackage)
			}
			if c.Dir != "" {
				fmt.Fprintf(&b, "    FetchContent_SetPopulated(${dep_name} SOURCE_DIR %s)\n", quote(c.Dir))
			} else {
				b.WriteString("    FetchContent_SetPopulated(${dep_name})\n")
			}
		default:
			fmt.Fprintf(&b, "    string(TOUPPER \"${dep_name}\" _mlxbuild_up)\n")
			fmt.Fprintf(&b, "    set(FETCHCONTENT_SOURCE_DIR_${_mlxbuild_up} %s)\n", quote(c.Dir))
			b.WriteString("    FetchContent_MakeAvailable(${dep_name})\n")
		}
	}
	if len(sorted) > 0 {
		b.WriteString("  else()\n  ")
	}
	b.WriteString("  message(FATAL_ERROR \"mlxbuild: this project fetches ${dep_name} with FetchContent, but no spec declares it and CMake may not download. Declare it under dependencies: in the backend's spec override (name ${dep_name}, url or git with tag and commit, sha256, providers), then run: go run mage.go deps:fetch\")\n")
	if len(sorted) > 0 {
		b.WriteString("  endif()\n")
	}
	b.WriteString("endmacro()\n")
	b.WriteString("cmake_language(SET_DEPENDENCY_PROVIDER mlxbuild_provide_dependency SUPPORTED_METHODS FETCHCONTENT_MAKEAVAILABLE_SERIAL)\n")
	return b.String()
}

// quote makes s a CMake quoted argument.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
