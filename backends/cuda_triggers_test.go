package backends

import (
	"slices"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
)

// TestCUDALimitInputsAreTriggers holds the CUDA spec's triggers to what the
// host-compiler check reads: CMake takes CUDAHOSTCXX and CUDAFLAGS at the
// first configure only, so a change of either must reconfigure, or the
// build keeps the host compiler the check no longer describes.
func TestCUDALimitInputsAreTriggers(t *testing.T) {
	spec, err := configs.Builtin("cuda")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"CUDAHOSTCXX", "CUDAFLAGS", "CUDA_HOME", "MLX_CUDA_ARCHITECTURES"} {
		if !slices.Contains(spec.Triggers.Env, v) {
			t.Errorf("the cuda spec's triggers.env %v lacks %s", spec.Triggers.Env, v)
		}
	}
}
