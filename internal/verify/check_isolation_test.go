package verify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// configure runs real CMake on a tree to get its compile_commands.json.
func configure(t *testing.T, tree string, defs ...string) string {
	t.Helper()
	cmake, err := exec.LookPath("cmake")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("cmake not installed")
		}
		t.Fatal("cmake not found; CI installs it")
	}
	build := filepath.Join(t.TempDir(), "build")
	args := append([]string{"-S", tree, "-B", build, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"}, defs...)
	if _, err := exec.LookPath("ninja"); err == nil {
		args = append(args, "-G", "Ninja")
	}
	if _, err := proc.Run(context.Background(), proc.Cmd{Path: cmake, Args: args}); err != nil {
		t.Fatalf("cmake configure: %v", err)
	}
	return filepath.Join(build, "compile_commands.json")
}

func isolationFixture(t *testing.T) (tree string, c Isolation) {
	tree = copyTree(t, "testdata/isolation/pristine")
	return tree, Isolation{Tree: tree, Pristine: "testdata/isolation/pristine",
		Foreign: []string{"testdata/isolation/rocm-overlay", "testdata/isolation/cuda-overlay"}}
}

func TestIsolationCPUClean(t *testing.T) {
	tree, c := isolationFixture(t)
	c.CompileCommands = configure(t, tree)
	r := mustPass(t, c)
	if r.Reason != "2 compile commands" {
		t.Errorf("reason = %q", r.Reason)
	}
	// Path-only comparison (no pristine) flags copy.cpp: the ROCm overlay
	// replaces it, so its name alone cannot tell the two apart.
	c.Pristine = ""
	mustFind(t, c, "", "compiles mlx/backend/gpu/copy.cpp")
}

func TestIsolationROCmFileInCPUBuild(t *testing.T) {
	tree, c := isolationFixture(t)
	data, err := os.ReadFile("testdata/isolation/rocm-overlay/mlx/backend/rocm/device.cpp")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, tree, "mlx/backend/rocm/device.cpp", string(data))
	c.CompileCommands = configure(t, tree, "-DMLX_BUILD_ROCM=ON")
	r := mustFind(t, c, "", "compiles mlx/backend/rocm/device.cpp, a file of another backend's overlay")
	if len(r.Findings) != 1 || r.Findings[0].Line < 2 {
		t.Errorf("want one finding at the entry's line:\n%s", findingsText(r))
	}
}

func TestIsolationReplacedFileLeaked(t *testing.T) {
	tree, c := isolationFixture(t)
	data, err := os.ReadFile("testdata/isolation/rocm-overlay/mlx/backend/gpu/copy.cpp")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, tree, "mlx/backend/gpu/copy.cpp", string(data))
	c.CompileCommands = configure(t, tree)
	mustFind(t, c, "", "compiles mlx/backend/gpu/copy.cpp")
}

func TestIsolationNoBuild(t *testing.T) {
	_, c := isolationFixture(t)
	c.CompileCommands = filepath.Join(t.TempDir(), "compile_commands.json")
	if r := run(t, c); r.Status != Skip {
		t.Errorf("no build yet: %v, want skip", r.Status)
	}
	c.Require = true
	mustFind(t, c, "compile_commands.json", "cannot read")
}

// TestIsolationSharedFile: a file that this backend's own overlay also
// provides (the reference's patches/ goes to every backend) is no leak when
// the tree holds this overlay's copy; a different own copy still leaves the
// foreign bytes a leak.
func TestIsolationSharedFile(t *testing.T) {
	tree, c := isolationFixture(t)
	data, err := os.ReadFile("testdata/isolation/rocm-overlay/mlx/backend/gpu/copy.cpp")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, tree, "mlx/backend/gpu/copy.cpp", string(data))
	c.CompileCommands = configure(t, tree)
	c.Own = t.TempDir()
	writeFile(t, c.Own, "mlx/backend/gpu/copy.cpp", string(data))
	mustPass(t, c)
	writeFile(t, c.Own, "mlx/backend/gpu/copy.cpp", string(data)+"// this backend's own version\n")
	mustFind(t, c, "", "compiles mlx/backend/gpu/copy.cpp")
}
