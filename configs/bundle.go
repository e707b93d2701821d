package configs

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// BundlePolicy is what `bundle:<backend>` does with the shared libraries
// a program needs and which headers it copies (docs/bundle.md). A library
// is named as the link names it, without lib prefix or suffix: its file
// matches lib<name>.so*. A library the policy neither bundles nor names
// as the driver's is required from the target system. It is no input of
// the build (json:"-": the spec's fingerprint and every cache ignore it).
type BundlePolicy struct {
	// Libraries are copied into the bundle's lib/ when a program (or a
	// library copied) needs them.
	Libraries []string `yaml:"libraries"`
	// Dlopen are libraries the runtime loads by name (no NEEDED entry
	// names them): copied when the toolchain's library directory holds
	// them, since nothing else would tell the bundle they are needed.
	Dlopen []string `yaml:"dlopen"`
	// Driver are the GPU driver's libraries: never copied, whatever the
	// lists above say; they must come from the target's driver.
	Driver []string `yaml:"driver"`
	// Headers are directories the backend compiles against at run time,
	// copied into the bundle.
	Headers []BundleHeaders `yaml:"headers"`
	// HeaderHome is a header folder the runtime insists on finding on the
	// target by itself, whatever the bundle carries: bundle:check looks
	// for it as the runtime does.
	HeaderHome *HeaderHome `yaml:"header_home"`
}

// HeaderHome is where a runtime looks for a header folder of its own
// (MLX's CUDA JIT, jit_module.cpp: <bundle>/../nvidia/cuda_runtime/include,
// then $CUDA_HOME, $CUDA_PATH or /usr/local/cuda, each with /include). It
// aborts its first run-time compile when that folder is missing, even
// when the bundle's include/ holds every header it then reads.
type HeaderHome struct {
	// Beside is a folder relative to the bundle's parent, looked at first.
	Beside string `yaml:"beside"`
	// Env are variables whose value is the home, the first set one wins.
	Env []string `yaml:"env"`
	// Default is the home when no variable is set.
	Default string `yaml:"default"`
	// Sub is the folder inside the home that must exist.
	Sub string `yaml:"sub" required:"true"`
}

// BundleHeaders is one header directory: From is a directory with
// {toolchain.root}; or Define names the compile definition of MLX's build
// whose value is the directory (MLX_CCCL_DIR); or Dependency names a
// dependency mlxbuild gave CMake (FetchContent), with From a folder inside
// it (MLX's CCCL, whose folder MLX compiles in only for its tests). To is
// where it goes inside the bundle (include/cccl).
type BundleHeaders struct {
	Pos        Pos    `json:"-"`
	From       string `yaml:"from"`
	Define     string `yaml:"define"`
	Dependency string `yaml:"dependency"`
	To         string `yaml:"to" required:"true"`
}

func validateBundle(b *BundlePolicy, pos func(string) Pos, ps *problems) {
	if b == nil {
		return
	}
	bundled := map[string]bool{}
	for i, n := range append(append([]string(nil), b.Libraries...), b.Dlopen...) {
		at := fmt.Sprintf("bundle.libraries[%d]", i)
		if i >= len(b.Libraries) {
			at = fmt.Sprintf("bundle.dlopen[%d]", i-len(b.Libraries))
		}
		checkLibName(ps, pos(at), n)
		bundled[n] = true
	}
	for i, n := range b.Driver {
		at := pos(fmt.Sprintf("bundle.driver[%d]", i))
		checkLibName(ps, at, n)
		if bundled[n] {
			ps.add(at, "%q is the driver's library and also listed to be bundled; the driver's libraries are never bundled: drop it from bundle.libraries and bundle.dlopen", n)
		}
	}
	for i, h := range b.Headers {
		at := pos(fmt.Sprintf("bundle.headers[%d]", i))
		switch {
		case h.Dependency != "":
			if h.Define != "" {
				ps.add(at, "a header entry has exactly one of from (a directory), define (the MLX define naming one) and dependency (with from: a folder inside it)")
			} else if err := safepath.CheckRel(h.From); h.From != "" && err != nil {
				ps.add(at, "from %q must be a relative folder inside dependency %s (include)", h.From, h.Dependency)
			}
		case (h.From == "") == (h.Define == ""):
			ps.add(at, "a header entry has exactly one of from (a directory), define (the MLX define naming one) and dependency (with from: a folder inside it)")
		}
		if err := safepath.CheckRel(h.To); err != nil || !strings.HasPrefix(h.To+"/", "include/") {
			ps.add(at, "to %q must be a relative folder under include/ (include, include/cccl)", h.To)
		}
	}
	if h := b.HeaderHome; h != nil {
		at := pos("bundle.header_home")
		if err := safepath.CheckRel(h.Sub); err != nil {
			ps.add(at, "sub %q must be a relative folder inside the home (include)", h.Sub)
		}
		if err := safepath.CheckRel(h.Beside); h.Beside != "" && err != nil {
			ps.add(at, "beside %q must be a relative folder beside the bundle (nvidia/cuda_runtime/include)", h.Beside)
		}
		if h.Default != "" && !filepath.IsAbs(h.Default) {
			ps.add(at, "default %q must be an absolute folder (/usr/local/cuda)", h.Default)
		}
		if len(h.Env) == 0 && h.Default == "" {
			ps.add(at, "a header home names env (the variables that set it) or a default folder, or both")
		}
	}
}

func checkLibName(ps *problems, at Pos, n string) {
	if n == "" || strings.ContainsAny(n, "/ *?[") || strings.HasPrefix(n, "lib") && strings.Contains(n, ".so") {
		ps.add(at, "%q is not a library name as the link names it (amdhip64 for libamdhip64.so)", n)
	}
}
