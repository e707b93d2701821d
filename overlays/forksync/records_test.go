package forksync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

func TestRecordsListsItemsWithStatus(t *testing.T) {
	root := t.TempDir()
	ov := filepath.Join(root, "patches")
	testutil.WriteFile(t, filepath.Join(ov, "UPSTREAM"), "commit: 0123456789abcdef0123456789abcdef01234567\nretargeted_to_mlx_pin: 89abcdef0123456789abcdef0123456789abcdef\n")
	testutil.WriteFile(t, filepath.Join(ov, "LOCAL_FIXES.md"), "# Local fixes\n\n"+
		"1. **Retarget.** `mlx/backend/gpu/available.cpp`\n   Status: retarget-only\n\n"+
		"2. **Guard.** `mlx/backend/rocm/reduce.hip`\n   Status: to be proposed\n\n"+
		"3. **Cache key.** `device.hip` (backend-relative), as upstream's `mlx/backend/cuda/device.cu` does\n   Status: proposed https://github.com/o/r/pull/12\n\n"+
		"5. **No status.** `mlx/x.h`\n")
	for _, f := range []string{"mlx/backend/gpu/available.cpp", "mlx/backend/rocm/reduce.hip", "mlx/backend/rocm/device.hip", "mlx/backend/rocm/CMakeLists.txt"} {
		testutil.WriteFile(t, filepath.Join(ov, f), "x\n")
	}
	testutil.WriteFile(t, filepath.Join(root, "cudaov", "README.md"), "x\n")
	os.MkdirAll(filepath.Join(root, "mlx"), 0o755)
	testutil.WriteFile(t, filepath.Join(root, "mlxbuild.yaml"), "source:\n  dir: mlx\ncache: cache\nbackends:\n  rocm: {overlay: patches}\n  cuda: {overlay: cudaov}\n")
	cfg, err := configs.LoadConfig(root, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	reps, err := Records(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 2 || reps[0].backend != "cuda" || reps[1].backend != "rocm" {
		t.Fatalf("reports: %+v", reps)
	}
	var b strings.Builder
	for _, r := range reps {
		r.Render(&b)
	}
	out := b.String()
	t.Log(out)
	for _, w := range []string{
		"cuda: the overlay has no LOCAL_FIXES.md",
		"(on fork commit 0123456789ab, MLX 89abcdef0123)",
		"1. Retarget [retarget-only]",
		"2. Guard [to be proposed]",
		"3. Cache key [proposed https://github.com/o/r/pull/12]",
		"       mlx/backend/rocm/device.hip\n       (and 1 name outside the overlay",
		"5. No status [unknown]",
		"4 items: 1 retarget-only, 0 applies to the fork, 1 to be proposed, 1 proposed, 1 without a status",
		"gap in numbering: no item 4",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("records output lacks %q", w)
		}
	}
	if _, err := Records(cfg, "metal"); err == nil {
		t.Error("records of a backend without an overlay: no error")
	}
}
