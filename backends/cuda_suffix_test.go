package backends

import (
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestCUDASuffixedFormsWhateverTheListsShow: what a GB10 user writes
// (121, 121a-real;121, 121a, 120f) passes the toolkit check however far
// nvcc's --list-gpu-code shows the a and f forms (all, none, or some:
// sm_90a only), as long as --list-gpu-arch has the compute_ form nvcc
// makes them from; a form neither list has is refused, and so is 101 on
// CUDA 13, with the number CUDA 13 gives Thor.
func TestCUDASuffixedFormsWhateverTheListsShow(t *testing.T) {
	const plainCode = "sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_103 sm_110 sm_120 sm_121"
	const arch = "compute_75 compute_80 compute_86 compute_87 compute_88 compute_89 compute_90 compute_90a compute_100 compute_100a compute_100f compute_103 compute_103a compute_103f compute_110 compute_110a compute_110f compute_120 compute_120a compute_120f compute_121 compute_121a compute_121f"
	for shape, code := range map[string]string{
		"code lists no suffixed form": plainCode,
		"code lists sm_90a only":      plainCode + " sm_90a",
	} {
		root := testutil.FakeCUDA13Listing(t, code, arch)
		c, err := LocateCUDA(envMap(map[string]string{"CUDA_HOME": root}))
		if err != nil {
			t.Fatal(err)
		}
		for _, ok := range []string{"121", "121a-real", "121a", "121f", "120f", "100f-real", "103a-virtual", "90a", "110a"} {
			if err := c.SupportsArch(ok); err != nil {
				t.Errorf("%s: SupportsArch(%s): %v, want nil", shape, ok, err)
			}
		}
		for target, says := range map[string]string{
			"101":      "nvcc --list-gpu-code has no sm_101; CUDA 13 calls this chip 110",
			"101a":     "has no sm_101a and --list-gpu-arch no compute_101a; CUDA 13 calls this chip 110a",
			"89a-real": "has no sm_89a and --list-gpu-arch no compute_89a",
			"70":       "has no sm_70",
		} {
			err := c.SupportsArch(target)
			if err == nil || !strings.Contains(err.Error(), says) || !strings.Contains(err.Error(), "MLX_CUDA_ARCHITECTURES") {
				t.Errorf("%s: SupportsArch(%s) = %v, want it to say %q and name MLX_CUDA_ARCHITECTURES", shape, target, err, says)
			}
		}
	}
}
