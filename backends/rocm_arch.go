package backends

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// targetIDRe is the shape of an AMDGPU target ID: a processor or generic
// target with optional features (gfx90a:xnack+). Anything else never reaches
// the compiler's command line.
var targetIDRe = lazyregexp.New(`^gfx[0-9a-z]+(-[0-9a-z]+)*(:(xnack|sramecc)[+-])*$`)

// probeKernel is the smallest HIP source that makes the compiler build device
// code and link the device libraries for a target.
const probeKernel = "#include <hip/hip_runtime.h>\n__global__ void mlxbuild_probe(float* p) { p[threadIdx.x] = __builtin_sqrtf(p[threadIdx.x]); }\n"

// SupportsArch reports whether this toolchain can compile HIP device code for
// gfx (a target ID such as gfx1030 or gfx90a:xnack-). It compiles a trivial
// kernel for that target once and remembers the answer for the life of r.
// The error names the target, the toolchain and its version, what the
// compiler said, and what to do: Debian 12's ROCm 5.2 (clang 15) has no
// gfx11xx device libraries and does not know gfx942, gfx1150+ or gfx12xx.
func (r *rocmToolchain) SupportsArch(gfx string) error {
	if !targetIDRe.MatchString(gfx) {
		return fmt.Errorf("%q is not an AMDGPU target name (like gfx1030 or gfx90a:xnack-): fix MLX_ROCM_ARCHITECTURES", gfx)
	}
	r.archMu.Lock()
	defer r.archMu.Unlock()
	if err, ok := r.archCache[gfx]; ok {
		return err
	}
	err := r.probeArch(gfx)
	if r.archCache == nil {
		r.archCache = map[string]error{}
	}
	r.archCache[gfx] = err
	return err
}

func (r *rocmToolchain) probeArch(gfx string) error {
	dir, err := os.MkdirTemp("", "mlxbuild-arch-probe-")
	if err != nil {
		return fmt.Errorf("probe %s: %w", gfx, err)
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "probe.hip")
	if err := os.WriteFile(src, []byte(probeKernel), 0o644); err != nil {
		return fmt.Errorf("probe %s: %w", gfx, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	args := []string{
		"-x", "hip", "--offload-arch=" + gfx, "--cuda-device-only", "-O1",
		"--rocm-path=" + r.root, "--rocm-device-lib-path=" + r.deviceLibDir,
		"-c", src, "-o", filepath.Join(dir, "probe.o"),
	}
	res, err := proc.Run(ctx, proc.Cmd{Path: r.hipCompiler, Args: args, Dir: dir})
	if err == nil {
		return nil
	}
	said := compilerComplaint(string(res.Stderr) + string(res.Stdout))
	if said == "" {
		said = err.Error()
	}
	return &UnsupportedArchError{target: gfx, toolchain: fmt.Sprintf("ROCm %s toolchain at %s", r.version, r.root), said: filepath.Base(r.hipCompiler) + ": " + said}
}

// compilerComplaint returns the compiler's first error line without its
// "clang: error: " prefix, up to its first "; " (clang's invalid target ID
// goes on with 200 characters on the format of target IDs).
func compilerComplaint(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "error: "); i >= 0 {
			said, _, _ := strings.Cut(l[i+len("error: "):], "; ")
			return strings.TrimSpace(said)
		}
	}
	return firstLine(out)
}
