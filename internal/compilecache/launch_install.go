package compilecache

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
)

// launcherPath is where the launcher of the backend whose cache directory
// is backendDir lives.
func launcherPath(backendDir string) (string, error) {
	dir, err := filepath.Abs(backendDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, launcherName), nil
}

// InstallLauncher makes the launcher of backendDir a copy of the running
// binary, leaving a current copy untouched, so that the custom commands
// Ninja runs next use this mlxbuild's rules. The copy is replaced
// atomically: a command that already started keeps the old file.
func InstallLauncher(backendDir string) error {
	dst, err := launcherPath(backendDir)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("installing %s: finding this program: %w", launcherName, err)
	}
	st, err := os.Stat(self)
	if err != nil {
		return fmt.Errorf("installing %s: %w", launcherName, err)
	}
	// The copy gets the binary's mtime: size and mtime tell a current copy
	// in two stats (a rebuilt binary has a new mtime), where comparing the
	// bytes would read tens of megabytes before every Ninja run.
	if cur, err := os.Stat(dst); err == nil && cur.Size() == st.Size() && cur.ModTime().Equal(st.ModTime()) && cur.Mode().IsRegular() {
		return nil
	}
	src, err := os.Open(self)
	if err != nil {
		return fmt.Errorf("installing %s: %w", launcherName, err)
	}
	defer src.Close()
	err = atomicfile.Options{Perm: 0o755, NoSync: true, What: "compiler launcher"}.WriteFunc(dst, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	})
	if err != nil {
		return err
	}
	return os.Chtimes(dst, st.ModTime(), st.ModTime())
}

// LaunchScript is the CMake file mlxbuild adds to
// CMAKE_PROJECT_TOP_LEVEL_INCLUDES. It reads the launcher Setup defined
// and, at the end of the top-level CMakeLists.txt (CMAKE_HIP_COMPILER is
// known only once a directory enabled HIP), makes it the global
// RULE_LAUNCH_CUSTOM: CMake puts it in front of each command of every custom
// command, in every directory, and no compiler launcher reaches those. A
// project that sets the property on a directory or target keeps its own.
func LaunchScript() string {
	return `# Written by mlxbuild; do not edit. Every custom command of a HIP build
# runs through mlxbuild's launcher: it hands compiles by the HIP compiler to
# the compile cache and runs everything else as it is.
include_guard(GLOBAL)
function(_mlxbuild_sh_word out value)
  if(value MATCHES "^[A-Za-z0-9_./=+:@%,-]+$")
    set(${out} "${value}" PARENT_SCOPE)
  else()
    string(REPLACE "'" "'\\''" value "${value}")
    set(${out} "'${value}'" PARENT_SCOPE)
  endif()
endfunction()
function(_mlxbuild_launch_custom)
  if(NOT CMAKE_HIP_COMPILER)
    return()
  endif()
  _mlxbuild_sh_word(launcher "${` + launchDefine + `}")
  _mlxbuild_sh_word(hip "--hip=${CMAKE_HIP_COMPILER}")
  set(rule "${launcher} ${hip}")
  if(` + launchCacheDefine + `)
    _mlxbuild_sh_word(cache "--cache=${` + launchCacheDefine + `}")
    string(APPEND rule " ${cache}")
  endif()
  set_property(GLOBAL PROPERTY RULE_LAUNCH_CUSTOM "${rule} --")
endfunction()
if(` + launchDefine + `)
  cmake_language(DEFER CALL _mlxbuild_launch_custom)
endif()
`
}

// DropLaunchDefines removes the launcher from Setup's defines, for a build
// that compiles no HIP: its custom commands need no launcher.
func DropLaunchDefines(defines map[string]string) {
	delete(defines, launchDefine)
	delete(defines, launchCacheDefine)
}
