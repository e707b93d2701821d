package backends

import (
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// checkRootVar checks a variable that names a toolchain's folder
// (ROCM_PATH, CUDA_HOME, HIP_CLANG_PATH) before anything is looked up in
// it. A control character could add a line to cargo.txt. A relative path
// is refused rather than resolved against the working directory: it would
// mean another folder in each place it is used (CMake and hipcc run in the
// build directory, a Cargo build script in the crate's, a consumer's
// binary resolves a relative run path against its own working directory),
// so a found toolchain would fail later, far from the cause ("gfx1030 is
// not supported by the ROCm 5.2 toolchain at rocm-here"), and the same
// value would name another toolchain from another folder. The user knows
// which folder was meant; the error says how to write it.
func checkRootVar(name, value string) error {
	if err := safepath.CheckControl(value); err != nil {
		return fail.Configf("%s: %v", name, err)
	}
	if !filepath.IsAbs(value) {
		return fail.Configf("%s=%s is relative; set an absolute path (%s=$PWD/%s if it is below this directory)", name, value, name, value)
	}
	return nil
}
