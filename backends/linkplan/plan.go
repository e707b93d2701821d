// Package linkplan is the link plan a build leaves in a backend's out/
// directory (link.json): what a consumer links, with which run path, and
// what its own C++ compiles against. With targets/, it is the API mlxbuild
// promises to parent repositories: a magefile or a build tool imports it to
// read a finished build's plan with Read, and renders it as Cargo lines,
// linker arguments or compiler flags. backends/ makes the plan and
// internal/flow writes it; this package depends on no other mlxbuild
// package, so importing it brings nothing else along.
package linkplan

// FileName is the plan's file inside a backend's out/ directory.
const FileName = "link.json"

// Plan is what a consumer needs to link the backend and run without
// LD_LIBRARY_PATH. Lists are in link order; every list is present (empty,
// not null) in link.json, so consumers iterate without checks.
type Plan struct {
	Backend    string            `json:"backend"`
	Static     []string          `json:"static"` // absolute archive paths
	SearchDirs []string          `json:"search_dirs"`
	Dynamic    []string          `json:"dynamic"`
	System     []string          `json:"system"`
	Frameworks []string          `json:"frameworks,omitempty"`
	RunPaths   []string          `json:"run_paths"`
	RpathMode  string            `json:"rpath_mode"` // runpath or legacy
	Env        map[string]string `json:"rustc_env"`
	RerunPaths []string          `json:"rerun_if_changed"`
	RerunEnv   []string          `json:"rerun_if_env_changed"`
	Notes      []string          `json:"notes,omitempty"` // libraries left out and why
	Compile    *Compile          `json:"compile"`
	// TreeFingerprint is the content identity of the backend's tree the
	// archives were built from (see FingerprintName), 64 hex digits.
	// Optional so that a plan an older mlxbuild wrote still reads.
	TreeFingerprint string `json:"tree_fingerprint,omitempty"`
}

// FingerprintName is the name the tree fingerprint has for a consumer: a
// rustc-env variable in cargo.txt (env!("MLXBUILD_TREE_FINGERPRINT")), a
// string-literal macro in cxxflags.txt. MLX keys its kernel cache by its
// own version, which an overlay edit keeps; a program that scopes
// MLX_PTX_CACHE_DIR by the fingerprint never reads a stale kernel back.
const FingerprintName = "MLXBUILD_TREE_FINGERPRINT"

// Compile is what a consumer's own C++ (a bridge built by Cargo's cc or
// cxx-build crate, or a Makefile rule) compiles against the tree with.
type Compile struct {
	Std string `json:"std"` // c++20, as -std= takes it
	// StdFrom says where Std came from: the build's CMake (the standard
	// the library's own targets compile with), or the spec when the build
	// says nothing.
	StdFrom string   `json:"std_from,omitempty"`
	Include []string `json:"include"` // absolute header directories
	Defines []string `json:"defines"` // NAME or NAME=VALUE
}

// rpathModes are the values rpath_mode may take: runpath links with
// DT_RUNPATH (the linker's default), legacy with DT_RPATH
// (-Wl,--disable-new-dtags), which also serves a dependency's dependencies.
var rpathModes = []string{"runpath", "legacy"}
