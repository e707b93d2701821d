package deps

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// ProviderScript renders the CMake file mlxbuild passes as
// CMAKE_PROJECT_TOP_LEVEL_INCLUDES. It installs a dependency provider
// (CMake >= 3.24) that sees every FetchContent_MakeAvailable call and every
// find_package call.
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
//
// find_package calls are answered for the dependencies a spec serves as a
// CMake package (Dependency.Package): the provider defines their imported
// targets over the verified directory, so a package whose repository has
// no config (rocWMMA's is made only by its install) is found offline. Any
// other find_package goes on as CMake would do it, except that a REQUIRED
// call in CONFIG mode that finds nothing stops configure with mlxbuild's
// message, naming the package and the ways to provide it.
func ProviderScript(choices []Choice) string {
	return ProviderScriptFor(choices, "go run mage.go deps:lock")
}

// ProviderScriptFor is ProviderScript whose refusal of an undeclared
// FetchContent dependency names lockCommand, the one command that declares
// and fetches it (deps:lock with the backend and the project's mirror).
func ProviderScriptFor(choices []Choice, lockCommand string) string {
	sorted := append([]Choice(nil), choices...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Dep.Name < sorted[j].Dep.Name })
	var served, fetched []Choice
	for _, c := range sorted {
		if c.Dep.Package != nil {
			served = append(served, c)
		} else {
			fetched = append(fetched, c)
		}
	}
	var b strings.Builder
	b.WriteString("# Written by mlxbuild; do not edit. Every FetchContent_MakeAvailable and\n")
	b.WriteString("# find_package call comes here: CMake never downloads (see internal/deps/provider.go).\n")
	b.WriteString("include_guard(GLOBAL)\n")
	writeSourceDirs(&b, fetched)
	b.WriteString("macro(mlxbuild_provide_dependency method dep_name)\n")
	b.WriteString("  string(TOLOWER \"${dep_name}\" _mlxbuild_dep)\n")
	b.WriteString("  if(\"${method}\" STREQUAL \"FIND_PACKAGE\")\n")
	writeFindPackage(&b, served)
	b.WriteString("  else()\n")
	writeFetchContent(&b, fetched, lockCommand)
	b.WriteString("  endif()\n")
	b.WriteString("endmacro()\n")
	b.WriteString("cmake_language(SET_DEPENDENCY_PROVIDER mlxbuild_provide_dependency SUPPORTED_METHODS FIND_PACKAGE FETCHCONTENT_MAKEAVAILABLE_SERIAL)\n")
	return b.String()
}

// writeFindPackage answers find_package for the served dependencies and
// checks every other REQUIRED CONFIG call. The macro's variables are named
// after the package: a config loaded by the fallback find_package calls
// find_dependency, which comes back into this macro.
func writeFindPackage(b *strings.Builder, served []Choice) {
	for i, c := range served {
		writeBranch(b, i, c)
		if v := c.Dep.Package.Version; v != "" {
			// find_package(<name> <version> ...): a newer version asked for
			// than the spec serves is the project's error, named.
			b.WriteString("      set(_mlxbuild_args_${dep_name} ${ARGN})\n")
			b.WriteString("      set(_mlxbuild_want_${dep_name} \"\")\n")
			b.WriteString("      if(_mlxbuild_args_${dep_name})\n")
			b.WriteString("        list(GET _mlxbuild_args_${dep_name} 0 _mlxbuild_want_${dep_name})\n")
			b.WriteString("      endif()\n")
			fmt.Fprintf(b, "      if(_mlxbuild_want_${dep_name} MATCHES \"^[0-9]\" AND %s VERSION_LESS _mlxbuild_want_${dep_name})\n", quote(v))
			fmt.Fprintf(b, "        message(FATAL_ERROR \"mlxbuild: find_package(${dep_name} ${_mlxbuild_want_${dep_name}}) asks for a newer version than the spec serves\" %s \"; declare a newer commit in the spec and run deps:fetch\")\n", quote(" ("+v+", declared at "+c.Dep.Origin+")"))
			b.WriteString("      endif()\n")
		}
		if c.Provider == "system" && c.Package != nil {
			// The package config mlxbuild found before configure.
			fmt.Fprintf(b, "      set(${dep_name}_DIR %s)\n", quote(filepath.Dir(c.Package.File)))
			b.WriteString("      find_package(${dep_name} CONFIG REQUIRED BYPASS_PROVIDER)\n")
			continue
		}
		for _, t := range c.Dep.Package.Targets {
			var incs []string
			for _, inc := range t.Include {
				incs = append(incs, filepath.Join(c.Dir, filepath.FromSlash(inc)))
			}
			fmt.Fprintf(b, "      if(NOT TARGET %s)\n", t.Name)
			fmt.Fprintf(b, "        add_library(%s INTERFACE IMPORTED GLOBAL)\n", t.Name)
			if len(incs) > 0 {
				fmt.Fprintf(b, "        set_target_properties(%s PROPERTIES INTERFACE_INCLUDE_DIRECTORIES %s)\n", t.Name, quote(strings.Join(incs, ";")))
			}
			b.WriteString("      endif()\n")
		}
		fmt.Fprintf(b, "      set(${dep_name}_FOUND TRUE)\n")
		if v := c.Dep.Package.Version; v != "" {
			fmt.Fprintf(b, "      set(${dep_name}_VERSION %s)\n", quote(v))
		}
	}
	if len(served) > 0 {
		b.WriteString("    else()\n")
	} else {
		b.WriteString("    if(TRUE)\n")
	}
	b.WriteString(`      set(_mlxbuild_args_${dep_name} ${ARGN})
      list(FIND _mlxbuild_args_${dep_name} REQUIRED _mlxbuild_req_${dep_name})
      list(FIND _mlxbuild_args_${dep_name} CONFIG _mlxbuild_cfg_${dep_name})
      list(FIND _mlxbuild_args_${dep_name} NO_MODULE _mlxbuild_nomod_${dep_name})
      if(NOT _mlxbuild_req_${dep_name} EQUAL -1 AND (NOT _mlxbuild_cfg_${dep_name} EQUAL -1 OR NOT _mlxbuild_nomod_${dep_name} EQUAL -1))
        # A REQUIRED component list may follow the keyword: keep it a list.
        math(EXPR _mlxbuild_next_${dep_name} "${_mlxbuild_req_${dep_name}} + 1")
        list(LENGTH _mlxbuild_args_${dep_name} _mlxbuild_len_${dep_name})
        set(_mlxbuild_kw_${dep_name} "")
        if(_mlxbuild_next_${dep_name} LESS _mlxbuild_len_${dep_name})
          list(GET _mlxbuild_args_${dep_name} ${_mlxbuild_next_${dep_name}} _mlxbuild_after_${dep_name})
          if(NOT _mlxbuild_after_${dep_name} MATCHES "^[A-Z_]+$")
            set(_mlxbuild_kw_${dep_name} COMPONENTS)
          endif()
        endif()
        list(REMOVE_AT _mlxbuild_args_${dep_name} ${_mlxbuild_req_${dep_name}})
        if(_mlxbuild_kw_${dep_name})
          list(INSERT _mlxbuild_args_${dep_name} ${_mlxbuild_req_${dep_name}} COMPONENTS)
        endif()
        find_package(${dep_name} ${_mlxbuild_args_${dep_name}} QUIET BYPASS_PROVIDER)
        if(NOT ${dep_name}_FOUND)
          message(FATAL_ERROR "mlxbuild: find_package(${dep_name} REQUIRED CONFIG) found no ${dep_name}Config.cmake or ${_mlxbuild_dep}-config.cmake, and no spec declares ${dep_name}. Install the package that provides it (or set ${dep_name}_DIR or CMAKE_PREFIX_PATH to it), or declare it under dependencies: in the backend's spec override (name ${dep_name}, git with tag and commit or url, sha256, providers [cache], and package: with its targets), then run: go run mage.go deps:fetch")
        endif()
      endif()
    endif()
`)
}

// writeFetchContent answers FetchContent_MakeAvailable for the declared
// dependencies and stops configure at any other.
func writeFetchContent(b *strings.Builder, fetched []Choice, lockCommand string) {
	for i, c := range fetched {
		writeBranch(b, i, c)
		switch c.Provider {
		case "system":
			if c.Package != nil {
				// The very config mlxbuild checked: a toolchain's prefix
				// (/usr/local/cuda) is not one CMake searches by itself.
				fmt.Fprintf(b, "      set(%s_DIR %s)\n", c.Dep.System.FindPackage, quote(filepath.Dir(c.Package.File)))
				fmt.Fprintf(b, "      find_package(%s CONFIG REQUIRED)\n", c.Dep.System.FindPackage)
			}
			if c.Dir != "" {
				fmt.Fprintf(b, "      FetchContent_SetPopulated(${dep_name} SOURCE_DIR %s)\n", quote(c.Dir))
			} else {
				b.WriteString("      FetchContent_SetPopulated(${dep_name})\n")
			}
		default:
			b.WriteString("      string(TOUPPER \"${dep_name}\" _mlxbuild_up)\n")
			fmt.Fprintf(b, "      set(FETCHCONTENT_SOURCE_DIR_${_mlxbuild_up} %s)\n", quote(c.Dir))
			b.WriteString("      FetchContent_MakeAvailable(${dep_name})\n")
		}
	}
	if len(fetched) > 0 {
		b.WriteString("    else()\n  ")
	}
	// The declared details come as the provider's arguments: name the
	// repository and tag (or URL) the tree asks for.
	b.WriteString("    cmake_parse_arguments(_mlxbuild_decl \"\" \"GIT_REPOSITORY;GIT_TAG\" \"URL\" ${ARGN})\n")
	b.WriteString("    if(_mlxbuild_decl_GIT_REPOSITORY)\n")
	b.WriteString("      set(_mlxbuild_asks \"${_mlxbuild_decl_GIT_REPOSITORY} at ${_mlxbuild_decl_GIT_TAG}\")\n")
	b.WriteString("    else()\n")
	b.WriteString("      set(_mlxbuild_asks \"${_mlxbuild_decl_URL}\")\n")
	b.WriteString("    endif()\n")
	fmt.Fprintf(b, "    message(FATAL_ERROR \"mlxbuild: this project fetches ${dep_name} (${_mlxbuild_asks}) with FetchContent, but no spec declares it and CMake may not download. Declare, pin and fetch it with one command: \" %s)\n", quote(lockCommand))
	if len(fetched) > 0 {
		b.WriteString("    endif()\n")
	}
}

// writeSourceDirs sets each fetched dependency's directory in CMake's
// cache before the project runs. FetchContent stores the directory the
// provider gave in the cache (FETCHCONTENT_SOURCE_DIR_<NAME>) and, once it
// is there, no longer calls the provider: a later configure after the
// dependency moved (a new commit, a new sha256) would build the old
// directory. Forcing the current one keeps every configure on the choice.
func writeSourceDirs(b *strings.Builder, fetched []Choice) {
	for _, c := range fetched {
		if c.Provider == "system" || c.Dir == "" {
			continue
		}
		fmt.Fprintf(b, "set(FETCHCONTENT_SOURCE_DIR_%s %s CACHE PATH \"set by mlxbuild (internal/deps)\" FORCE)\n", strings.ToUpper(c.Dep.Name), quote(c.Dir))
	}
}

// writeBranch opens the i-th branch of a choice's if/elseif chain, with
// its stamp input as a comment.
func writeBranch(b *strings.Builder, i int, c Choice) {
	kw := "elseif"
	if i == 0 {
		kw = "if"
	}
	fmt.Fprintf(b, "    %s(_mlxbuild_dep STREQUAL %s)\n", kw, quote(strings.ToLower(c.Dep.Name)))
	fmt.Fprintf(b, "      # %s\n", c.Input())
}

// quote makes s a CMake quoted argument.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
