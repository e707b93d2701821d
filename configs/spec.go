package configs

// Spec declares one backend: what CMake gets, what the consumer links, what
// triggers a rebuild. The embedded defaults live in configs/<backend>.yaml.
type Spec struct {
	Pos           Pos               `json:"-"`
	Backend       string            `yaml:"backend" required:"true"`
	Description   string            `yaml:"description"`
	Platforms     []string          `yaml:"platforms" required:"true"`
	Conflicts     []string          `yaml:"conflicts"`
	Toolchain     *toolchain        `yaml:"toolchain"`
	Constraints   map[string]string `yaml:"constraints"`
	Defines       []Define          `yaml:"defines"`
	Architectures *architectures    `yaml:"architectures"`
	Link          link              `yaml:"link"`
	Rpath         Rpath             `yaml:"rpath"`
	Compile       Compile           `yaml:"compile"`
	Triggers      triggers          `yaml:"triggers"`
	Records       []string          `yaml:"records"`
	Jobs          jobs              `yaml:"jobs"`
	// Dependencies are what the project's CMake would download
	// (FetchContent); mlxbuild provides them instead.
	Dependencies []Dependency `yaml:"dependencies"`
	// CMakePackages are find_package configs the build needs from the
	// toolchain, checked before configure.
	CMakePackages []cmakePackage `yaml:"cmake_packages"`
	// Verify names the checks verify:<backend> runs, in order.
	Verify []string `yaml:"verify"`
	// Bundle is what bundle:<backend> copies and what it requires from
	// the target system; nil bundles no library.
	Bundle *BundlePolicy `yaml:"bundle" json:"-"`

	// Source names where the spec came from ("built-in configs/rocm.yaml",
	// or the override file) for plan output.
	Source string `yaml:"-" json:"-"`

	// memo is the fingerprint of a built-in spec (see Fingerprint).
	memo fingerprintMemo
}

// toolchain says how to find the backend's SDK root.
type toolchain struct {
	Pos       Pos      `json:"-"`
	Name      string   `yaml:"name" required:"true"`    // rocm, cuda
	Env       string   `yaml:"env" required:"true"`     // ROCM_PATH, CUDA_HOME
	Default   string   `yaml:"default" required:"true"` // /opt/rocm
	Fallbacks []string `yaml:"fallbacks"`               // /usr on Debian
}

// Define is one CMake cache variable. Value may hold {toolchain.root},
// {toolchain.bin} or {toolchain.lib}, filled once the toolchain is found.
type Define struct {
	Pos    Pos      `json:"-"`
	Name   string   `yaml:"name" required:"true"`
	Value  string   `yaml:"value" required:"true"`
	OS     []string `yaml:"os"`
	Origin string   `yaml:"-" json:"-"`
}

// architectures says how GPU targets are resolved and where they go.
type architectures struct {
	Pos      Pos      `json:"-"`
	Env      string   `yaml:"env" required:"true"`
	Probes   []string `yaml:"probes"`
	CMake    []string `yaml:"cmake" required:"true"`
	RustcEnv string   `yaml:"rustc_env"`
	Default  []string `yaml:"default"`
}

// link lists what a consumer links, in link order.
type link struct {
	Static     []Lib    `yaml:"static"`     // archives from the build tree
	Dynamic    []Lib    `yaml:"dynamic"`    // shared libraries from the toolchain
	System     []Lib    `yaml:"system"`     // from the system's default paths
	Frameworks []Lib    `yaml:"frameworks"` // macOS frameworks
	Search     []string `yaml:"search"`     // extra search (and run path) directories
	// Stubs are searched at link time only, never a run path: stub
	// libraries such as CUDA's lib64/stubs/libcuda.so stand in for the
	// driver's library at link time, and the loader must take the driver's.
	Stubs  []string `yaml:"stubs"`
	Remove []string `yaml:"remove"` // names dropped from the spec being extended
}

// Lib is one library.
type Lib struct {
	Pos Pos `json:"-"`
	// Name is the library name without lib prefix or suffix: amdhip64.
	Name string   `yaml:"name" required:"true"`
	OS   []string `yaml:"os"`
	// Toolchain is a version constraint on the toolchain: hiprtc is a
	// separate library only from ROCm 6 (">= 6.0").
	Toolchain string `yaml:"toolchain"`
	// Package names what installs it, for the error when it is missing.
	Package string `yaml:"package"`
	Origin  string `yaml:"-" json:"-"`
}

// Compile is what a consumer's own C++ (a bridge compiled by Cargo's cc
// or cxx-build crate, or a Makefile) needs to compile against the tree:
// the link plan renders it next to the link flags.
type Compile struct {
	// Std is the C++ standard, as the compiler's -std= takes it (c++17).
	Std string `yaml:"std"`
	// Include lists header directories; {tree} is the backend's tree and
	// {build} its build directory (generated headers).
	Include []string `yaml:"include"`
	// Defines are preprocessor macros, so the bridge's code can tell which
	// backend it is compiled for.
	Defines []CompileDefine `yaml:"defines"`
}

// CompileDefine is one preprocessor macro: -DNAME or -DNAME=VALUE.
type CompileDefine struct {
	Pos    Pos      `json:"-"`
	Name   string   `yaml:"name" required:"true"`
	Value  string   `yaml:"value"`
	OS     []string `yaml:"os"`
	Origin string   `yaml:"-" json:"-"`
}

// Flag is the define as a compiler argument's text: NAME or NAME=VALUE.
func (d CompileDefine) Flag() string {
	if d.Value == "" {
		return d.Name
	}
	return d.Name + "=" + d.Value
}

// Rpath says how the consumer finds shared libraries at run time.
type Rpath struct {
	// Mode is runpath (DT_RUNPATH, the linker's default) or legacy
	// (DT_RPATH via --disable-new-dtags, which also covers the libraries
	// that a library loads).
	Mode string   `yaml:"mode"`
	Dirs []string `yaml:"dirs"`
}

// triggers are inputs outside the tree whose change must rebuild.
type triggers struct {
	Env   []string `yaml:"env"`
	Paths []string `yaml:"paths"`
}

// jobs tunes build parallelism.
type jobs struct {
	// MemoryPerJobGiB caps jobs by available memory: CUDA compiles of MLX
	// die with exit 137 at about 5 GB per job.
	MemoryPerJobGiB float64 `yaml:"memory_per_job_gib"`
}

// ActiveDefines are the defines that apply on goos.
func (s *Spec) ActiveDefines(goos string) []Define {
	var out []Define
	for _, d := range s.Defines {
		if OnOS(d.OS, goos) {
			out = append(out, d)
		}
	}
	return out
}

// ActiveDependencies are the dependencies that apply on goos.
func (s *Spec) ActiveDependencies(goos string) []Dependency {
	var out []Dependency
	for _, d := range s.Dependencies {
		if d.on(goos) {
			out = append(out, d)
		}
	}
	return out
}

// On reports whether the library applies on goos: its os list is empty (every
// system) or names goos. The link plan and what `plan` prints both ask here,
// so they cannot disagree.
func (l Lib) On(goos string) bool { return OnOS(l.OS, goos) }

// OnOS reports whether an entry restricted to list (empty: every OS) applies on goos.
func OnOS(list []string, goos string) bool {
	if len(list) == 0 {
		return true
	}
	for _, o := range list {
		if o == goos {
			return true
		}
	}
	return false
}
