package backends

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"

	"github.com/hashicorp/go-version"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/internal/multiarch"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// cudaToolkit is a located CUDA toolkit.
type cudaToolkit struct {
	root       string // $CUDA_HOME, /usr/local/cuda, or the parent of nvcc's bin
	from       string // "CUDA_HOME", "/usr/local/cuda" or "PATH"
	BinDir     string
	LibDir     string // Root/lib64 (or Root/lib, /usr/lib/<multiarch> for Debian's toolkit, Root/targets/<arch>/lib)
	includeDir string
	NVCC       string
	version    *version.Version // from nvcc --version ("release 12.4, V12.4.131")

	// What nvcc said of its limits, asked once per run (cuda_limits.go);
	// the memo keeps none of it, as a toolkit upgrade changes it.
	limitsMu    sync.Mutex
	lists       *cudaArchLists
	listsErr    error
	hostChecked map[string]error // by where the host compiler came from and its name
}

// defaultCUDARoot is tried when CUDA_HOME is unset, before nvcc on PATH.
var defaultCUDARoot = "/usr/local/cuda"

// LocateCUDA finds the CUDA toolkit: CUDA_HOME when set (an error naming
// CUDA_HOME when it holds no nvcc), else /usr/local/cuda, else the nvcc on PATH.
func LocateCUDA(env func(string) string) (*cudaToolkit, error) {
	return locateCUDA(env, nil)
}

// nvccRoot is the directory above the nvcc on PATH, "" without one.
func nvccRoot() string {
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		return ""
	}
	return filepath.Dir(filepath.Dir(nvcc))
}

// locateCUDACached is LocateCUDA with its answer cached in cacheDir (see
// locator): `nvcc --version` costs a no-op build of real MLX for CUDA more
// than Ninja's own no-op.
func locateCUDACached(env func(string) string, cacheDir string) (*cudaToolkit, error) {
	return locateCached("cuda", env, cacheDir, locateCUDA)
}

func locateCUDA(env func(string) string, w *witness) (*cudaToolkit, error) {
	if h := w.getenv(env, "CUDA_HOME"); h != "" {
		if err := checkRootVar("CUDA_HOME", h); err != nil {
			return nil, err
		}
		c, err := inspectCUDA(filepath.Join(h, "bin", "nvcc"), w)
		if err != nil {
			return nil, fmt.Errorf("CUDA_HOME=%s is not a usable CUDA toolkit: %v; set CUDA_HOME to the directory that holds bin/nvcc (e.g. /usr/local/cuda), or unset it", h, err)
		}
		c.from = "CUDA_HOME"
		return c, nil
	}
	nvcc := filepath.Join(defaultCUDARoot, "bin", "nvcc")
	from := defaultCUDARoot
	if !w.isExecutable(nvcc) {
		nvcc, from = w.lookPath("nvcc", w.getenv(env, "PATH")), "PATH"
	}
	if nvcc == "" {
		return nil, fmt.Errorf("no CUDA toolkit found: CUDA_HOME is unset, %s/bin/nvcc does not exist and nvcc is not on PATH; install the CUDA toolkit or set CUDA_HOME", defaultCUDARoot)
	}
	c, err := inspectCUDA(nvcc, w)
	if err != nil {
		return nil, fmt.Errorf("CUDA toolkit at %s (from %s): %v; set CUDA_HOME to a working toolkit", filepath.Dir(filepath.Dir(nvcc)), from, err)
	}
	c.from = from
	return c, nil
}

// nvccReleaseRe reads "Cuda compilation tools, release 12.4, V12.4.131".
var nvccReleaseRe = lazyregexp.New(`release [0-9.]+, V([0-9.]+)`)

func inspectCUDA(nvcc string, w *witness) (*cudaToolkit, error) {
	if !w.isExecutable(nvcc) {
		return nil, fmt.Errorf("no executable %s", nvcc)
	}
	// Root keeps the name the user gave (/usr/local/cuda, not the
	// cuda-12.4 it links to), which survives toolkit upgrades.
	root := filepath.Dir(filepath.Dir(nvcc))
	c := &cudaToolkit{root: root, BinDir: filepath.Join(root, "bin"), includeDir: filepath.Join(root, "include"), NVCC: nvcc}
	for _, d := range cudaLibDirs(root, runtime.GOARCH) {
		if w.hasLib(d, "cudart") {
			c.LibDir = d
			break
		}
	}
	if c.LibDir == "" {
		return nil, fmt.Errorf("no libcudart.so in %s/lib64, lib, lib/%s or targets/*/lib", root, multiarch.Host())
	}
	// nvcc --version reads version.json beside bin/ (CUDA 11.1 and later);
	// a toolkit upgrade rewrites it as well as nvcc.
	w.file(filepath.Join(root, "version.json"))
	w.ran(nvcc)
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	res, err := proc.Run(ctx, proc.Cmd{Path: nvcc, Args: []string{"--version"}})
	if err != nil {
		if why := foreignProgram(nvcc, err); why != "" {
			return nil, errors.New(why)
		}
		return nil, fmt.Errorf("%s --version: %v", nvcc, err)
	}
	v, err := parseNvccVersion(string(res.Stdout))
	if err != nil {
		return nil, fmt.Errorf("%s --version: %v", nvcc, err)
	}
	c.version = v
	return c, nil
}

// parseNvccVersion reads nvcc --version: the full version after "V" on
// the release line, else the number after "release ", else the first one.
func parseNvccVersion(out string) (*version.Version, error) {
	text := out
	if m := nvccReleaseRe.FindStringSubmatch(out); m != nil {
		text = m[1]
	} else if i := strings.Index(out, "release "); i >= 0 {
		text = out[i:]
	}
	return parseVersion(text)
}

// String describes the toolkit in one line.
func (c *cudaToolkit) String() string {
	return describeToolchain("CUDA", c.version, c.root, c.from)
}

func init() {
	Register(&Backend{Name: "cuda", Switch: "MLX_BUILD_CUDA", Resolve: arch.ResolveCUDA, Order: 2, Toolchain: &ToolchainKind{
		Locate: locator("cuda", locateCUDA),
		Title:  "CUDA toolkit", Env: "CUDA_HOME", // the locator's error says what to do
		rootHeader: "cuda_runtime.h", lastRoot: nvccRoot,
	}})
}

// Info is what the link plan needs of a located CUDA toolkit; env is the
// spec's toolchain variable.
func (c *cudaToolkit) Info(env string) *ToolchainInfo {
	return &ToolchainInfo{Name: "cuda", Env: env, Root: c.root, bin: c.BinDir, Lib: c.LibDir, Version: c.version}
}

// CMakeDefines: CMake finds the toolkit from the spec's defines alone.
func (c *cudaToolkit) CMakeDefines(string) (map[string]string, error) { return nil, nil }

// CMakeSetup: the toolkit's layout needs nothing written for CMake.
func (c *cudaToolkit) CMakeSetup(string) (map[string]string, []string, error) { return nil, nil, nil }
