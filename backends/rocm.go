package backends

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"

	"github.com/hashicorp/go-version"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/internal/multiarch"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// rocmToolchain is a located ROCm (HIP) toolchain. The memo (memo.go) keeps its
// fields but the run's own state (seen, archMu, archCache) between runs
// (memo_fields.go names them).
type rocmToolchain struct {
	root       string // the ROCm root: $ROCM_PATH, /opt/rocm, or /usr on Debian
	from       string // how Root was found: "ROCM_PATH", "/opt/rocm" or "/usr"
	LibDir     string // where libamdhip64 lives: Root/lib, or /usr/lib/<multiarch> on Debian
	binDir     string // Root/bin: hipcc, hipconfig, rocminfo
	includeDir string // Root/include, holding hip/hip_runtime.h
	// Version is the HIP version the toolchain reports (Debian 12: 5.2.x).
	version *version.Version
	// versionFrom says where Version was read (".info/version", "hipconfig --version", ...).
	versionFrom string
	// hipCompiler is the clang++ that compiles HIP for CMake (CMake refuses hipcc).
	hipCompiler string
	// deviceLibDir holds the AMDGPU device libraries (ocml.bc, ockl.bc, ...).
	deviceLibDir string
	// multiarchLayout is true for Debian's layout (libraries and CMake packages in
	// /usr/lib/<multiarch>), which CMake's HIP language support does not find
	// by itself; CMakeSetup bridges it.
	multiarchLayout bool

	seen *witness // what discovery looked at, while it runs

	archMu    sync.Mutex
	archCache map[string]error
}

// defaultROCmRoots are searched in order when ROCM_PATH is unset.
var defaultROCmRoots = []string{"/opt/rocm", "/usr"}

// probeTimeout bounds every version query and compile probe.
const probeTimeout = 60 * time.Second

// LocateROCm finds the ROCm toolchain: ROCM_PATH when set (an error naming
// ROCM_PATH when it is not a ROCm root), else /opt/rocm, else /usr (Debian's
// packages). env reads the environment (os.Getenv, or a test's map).
func LocateROCm(env func(string) string) (*rocmToolchain, error) {
	return locateROCm(env, nil)
}

// LocateROCmCached is LocateROCm with its answer cached in cacheDir (see
// locator): a build that changes nothing runs no ROCm program.
func LocateROCmCached(env func(string) string, cacheDir string) (*rocmToolchain, error) {
	return locateCached("rocm", env, cacheDir, locateROCm)
}

func locateROCm(env func(string) string, w *witness) (*rocmToolchain, error) {
	if p := w.getenv(env, "ROCM_PATH"); p != "" {
		if err := checkRootVar("ROCM_PATH", p); err != nil {
			return nil, err
		}
		r, err := inspectROCm(p, env, w)
		if err != nil {
			return nil, fmt.Errorf("ROCM_PATH=%s is not a usable ROCm root: %v; set ROCM_PATH to the directory that holds include/hip/hip_runtime.h and lib/libamdhip64.so (e.g. /opt/rocm), or unset it to search %s", p, err, strings.Join(defaultROCmRoots, " and "))
		}
		r.from = "ROCM_PATH"
		return r, nil
	}
	var why []string
	for _, root := range defaultROCmRoots {
		r, err := inspectROCm(root, env, w)
		if err == nil {
			r.from = root
			return r, nil
		}
		why = append(why, fmt.Sprintf("%s: %v", root, err))
	}
	return nil, fmt.Errorf("no ROCm toolchain found (ROCM_PATH is unset; %s): install AMD's ROCm under /opt/rocm, or on Debian 12 `apt-get install hipcc libamdhip64-dev libhiprand-dev librocrand-dev rocm-device-libs`, or set ROCM_PATH", strings.Join(why, "; "))
}

// inspectROCm reads one candidate root. Every missing piece is an error that
// names the path it looked for.
func inspectROCm(root string, env func(string) string, w *witness) (*rocmToolchain, error) {
	root = filepath.Clean(root)
	if !w.isDir(root) {
		return nil, errors.New("no such directory")
	}
	r := &rocmToolchain{root: root, binDir: filepath.Join(root, "bin"), includeDir: filepath.Join(root, "include"), seen: w}
	defer func() { r.seen = nil }()
	if !w.isFile(filepath.Join(r.includeDir, "hip", "hip_runtime.h")) {
		return nil, fmt.Errorf("no %s", filepath.Join(r.includeDir, "hip", "hip_runtime.h"))
	}
	for _, d := range []string{filepath.Join(root, "lib"), filepath.Join(root, "lib64"), filepath.Join(root, "lib", multiarch.Host())} {
		if w.hasLib(d, "amdhip64") {
			r.LibDir = d
			break
		}
	}
	if r.LibDir == "" {
		return nil, fmt.Errorf("no libamdhip64.so in %s/lib, lib64 or lib/%s (Debian: apt-get install libamdhip64-dev)", root, multiarch.Host())
	}
	r.multiarchLayout = r.LibDir == filepath.Join(root, "lib", multiarch.Host()) &&
		!w.isDir(filepath.Join(root, "lib", "cmake", "hip-lang"))

	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	// hipcc --version costs about half a second (on Debian it starts
	// rocm_agent_enumerator, a Python program), and every build locates
	// the toolchain: ask it only when the files do not tell.
	var hipccOut *string
	hipcc := func() string {
		if hipccOut == nil {
			out := r.toolOutput(ctx, "hipcc", "--version")
			hipccOut = &out
		}
		return *hipccOut
	}
	if err := r.readVersion(ctx, hipcc); err != nil {
		return nil, err
	}
	if err := r.findHIPCompiler(ctx, hipcc, env); err != nil {
		return nil, err
	}
	if err := r.findDeviceLibs(); err != nil {
		return nil, err
	}
	return r, nil
}

// toolOutput runs BinDir/name with args and returns stdout+stderr, or "" when
// the tool is missing or fails.
func (r *rocmToolchain) toolOutput(ctx context.Context, name string, args ...string) string {
	p := filepath.Join(r.binDir, name)
	if !r.seen.isExecutable(p) {
		return ""
	}
	r.seen.ran(p)
	res, err := proc.Run(ctx, proc.Cmd{Path: p, Args: args})
	if err != nil {
		return ""
	}
	return string(res.Stdout) + string(res.Stderr)
}

// hipVersionRe reads include/hip/hip_version.h's version macros.
var hipVersionRe = lazyregexp.New(`(?m)^#define HIP_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)`)

// parseHIPVersionH reads the version from hip_version.h's HIP_VERSION_MAJOR,
// _MINOR and _PATCH macros.
func parseHIPVersionH(b []byte) (*version.Version, bool) {
	parts := map[string]string{}
	for _, m := range hipVersionRe.FindAllStringSubmatch(string(b), -1) {
		parts[m[1]] = m[2]
	}
	if len(parts) != 3 {
		return nil, false
	}
	v, err := parseVersion(parts["MAJOR"] + "." + parts["MINOR"] + "." + parts["PATCH"])
	return v, err == nil
}

// readVersion takes the version from .info/version (AMD's packages), else
// include/hip/hip_version.h, else hipconfig --version, else hipcc --version
// (Debian's packages).
func (r *rocmToolchain) readVersion(ctx context.Context, hipcc func() string) error {
	if b, err := r.seen.readFile(filepath.Join(r.root, ".info", "version")); err == nil {
		v, perr := parseVersion(string(b))
		if perr != nil {
			return fmt.Errorf("%s: %v", filepath.Join(r.root, ".info", "version"), perr)
		}
		r.version, r.versionFrom = v, ".info/version"
		return nil
	}
	if b, err := r.seen.readFile(filepath.Join(r.includeDir, "hip", "hip_version.h")); err == nil {
		if v, ok := parseHIPVersionH(b); ok {
			r.version, r.versionFrom = v, "include/hip/hip_version.h"
			return nil
		}
	}
	if out := r.toolOutput(ctx, "hipconfig", "--version"); out != "" {
		if v, err := parseVersion(out); err == nil {
			r.version, r.versionFrom = v, "hipconfig --version"
			return nil
		}
	}
	if m := regexp.MustCompile(`HIP version:\s*(\S+)`).FindStringSubmatch(hipcc()); m != nil {
		if v, err := parseVersion(m[1]); err == nil {
			r.version, r.versionFrom = v, "hipcc --version"
			return nil
		}
	}
	return fmt.Errorf("cannot read the ROCm version: no %s, and %s/hipconfig --version and hipcc --version gave none (Debian: apt-get install hipcc)",
		filepath.Join(r.root, ".info", "version"), r.binDir)
}

// clangMajorRe reads the clang major version hipcc reports
// ("Debian clang version 15.0.6", "AMD clang version 17.0.0").
var clangMajorRe = lazyregexp.New(`clang version (\d+)`)

// findHIPCompiler picks the clang++ that CMake uses for HIP: AMD's bundled
// LLVM when there is one, else the clang hipcc uses (Debian: clang++-15).
func (r *rocmToolchain) findHIPCompiler(ctx context.Context, hipcc func() string, env func(string) string) error {
	var cands []string
	if p := r.seen.getenv(env, "HIP_CLANG_PATH"); p != "" {
		if err := checkRootVar("HIP_CLANG_PATH", p); err != nil {
			return err
		}
		cands = append(cands, filepath.Join(p, "clang++"))
	}
	cands = append(cands,
		filepath.Join(r.root, "llvm", "bin", "clang++"),
		filepath.Join(r.root, "lib", "llvm", "bin", "clang++"))
	// hipvars.pm picks hipconfig's answer by whether these exist.
	r.seen.file(filepath.Join(r.root, "llvm", "bin"))
	r.seen.file(filepath.Join(r.root, "lib", "llvm", "bin"))
	dirs := []string{r.binDir}
	if out := strings.TrimSpace(r.toolOutput(ctx, "hipconfig", "--hipclangpath")); out != "" && !strings.Contains(out, "\n") {
		dirs = append([]string{out}, dirs...)
	}
	// The bundled LLVM needs no version: take it without asking hipcc.
	for _, c := range cands {
		if r.seen.isExecutable(c) {
			r.hipCompiler = c
			return nil
		}
	}
	// One versioned clang++ in the directory hipconfig names is the one
	// hipcc uses; with several, hipcc says which.
	for _, d := range dirs {
		if m := r.seen.glob(filepath.Join(d, "clang++-[0-9]*")); len(m) == 1 && r.seen.isExecutable(m[0]) {
			r.hipCompiler = m[0]
			return nil
		}
	}
	major := ""
	if m := clangMajorRe.FindStringSubmatch(hipcc()); m != nil {
		major = m[1]
	}
	for _, d := range dirs {
		// The versioned name first: a plain clang++ may be another release.
		if major != "" {
			cands = append(cands, filepath.Join(d, "clang++-"+major))
		}
		cands = append(cands, filepath.Join(d, "clang++"))
	}
	for _, c := range cands {
		if r.seen.isExecutable(c) {
			r.hipCompiler = c
			return nil
		}
	}
	return fmt.Errorf("no clang++ for HIP: looked for %s; install the compiler (Debian: apt-get install hipcc clang-15) or set HIP_CLANG_PATH to its directory", strings.Join(cands, ", "))
}

// findDeviceLibs locates the AMDGPU bitcode libraries the HIP compiler links.
func (r *rocmToolchain) findDeviceLibs() error {
	cands := []string{
		filepath.Join(r.root, "amdgcn", "bitcode"),
		filepath.Join(r.LibDir, "amdgcn", "bitcode"),
		filepath.Join(r.root, "lib", "amdgcn", "bitcode"),
	}
	for _, pattern := range []string{"llvm/lib/clang/*/lib/amdgcn/bitcode", "lib/llvm/lib/clang/*/lib/amdgcn/bitcode"} {
		cands = append(cands, r.seen.glob(filepath.Join(r.root, pattern))...)
	}
	// Debian's ROCm 6 (rocm-device-libs-21) keeps them in the resource
	// directory of the clang that compiles HIP, where that clang finds them
	// by itself: /usr/lib/llvm-21/lib/clang/21/amdgcn/bitcode.
	cands = append(cands, r.compilerResourceBitcode()...)
	for _, c := range cands {
		if r.seen.isDir(c) {
			r.deviceLibDir = c
			return nil
		}
	}
	return fmt.Errorf("no AMDGPU device libraries: looked for %s (Debian: apt-get install rocm-device-libs)", strings.Join(cands, ", "))
}

// compilerResourceBitcode lists the bitcode directories in the resource
// directory of the HIP compiler's LLVM (<llvm>/lib/clang/<major>/amdgcn/bitcode
// and .../lib/amdgcn/bitcode), found through the compiler's symlinks
// (/usr/bin/clang++-21 -> /usr/lib/llvm-21/bin/clang++) without running it.
func (r *rocmToolchain) compilerResourceBitcode() []string {
	if r.hipCompiler == "" {
		return nil
	}
	real, err := filepath.EvalSymlinks(r.hipCompiler)
	if err != nil {
		return nil
	}
	llvm := filepath.Dir(filepath.Dir(real))
	var dirs []string
	for _, pattern := range []string{"lib/clang/*/amdgcn/bitcode", "lib/clang/*/lib/amdgcn/bitcode"} {
		dirs = append(dirs, r.seen.glob(filepath.Join(llvm, pattern))...)
	}
	return dirs
}

// String describes the toolchain in one line for summaries and errors.
func (r *rocmToolchain) String() string {
	return describeToolchain("ROCm", r.version, r.root, r.from)
}

func init() {
	Register(&Backend{Name: "rocm", Switch: "MLX_BUILD_ROCM", Resolve: arch.ResolveROCm, Order: 1, Toolchain: &ToolchainKind{
		Locate: locator("rocm", locateROCm),
		Title:  "ROCm toolchain", Env: "ROCM_PATH", CustomCommands: true, rootHeader: filepath.Join("hip", "hip_runtime.h"),
		Install: "on Debian 12: apt-get install hipcc libamdhip64-dev libhiprand-dev librocrand-dev rocm-device-libs rocminfo; else install ROCm under /opt/rocm or set ROCM_PATH",
		Probe:   "rocminfo", ProbeMissing: "not found (the KFD probe still works on a GPU machine)", ProbeFix: "apt-get install rocminfo, or set MLX_ROCM_ARCHITECTURES",
	}})
}

// Info is what the link plan needs of a located ROCm; env is the spec's
// toolchain variable.
func (r *rocmToolchain) Info(env string) *ToolchainInfo {
	return &ToolchainInfo{Name: "rocm", Env: env, Root: r.root, bin: r.binDir, Lib: r.LibDir, Version: r.version}
}
